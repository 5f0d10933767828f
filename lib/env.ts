/**
 * The one place that reads environment variables. Every variable is validated with zod on first use
 * and a bad value stops the process with a message that names the variable and what to fix.
 * `.env.example` documents each one.
 */
import { z } from 'zod';
import { CHAIN_NAMES, type ChainName } from './chains/registry';

const optionalUrl = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .pipe(z.url({ protocol: /^(https?|wss?|postgres(ql)?)$/ }).optional())
  .optional();

const rpcEnvEntries = Object.fromEntries(CHAIN_NAMES.map((chain) => [rpcEnvName(chain), optionalUrl])) as Record<
  string,
  typeof optionalUrl
>;

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** PostgreSQL connection string. Unset: the launcher starts an embedded PostgreSQL and sets it. */
  DATABASE_URL: optionalUrl,
  /** Where the app is reached; paymentUrl and links are built from it. */
  APP_URL: z.url().default('http://localhost:3000'),
  /** Base of the hosted checkout (defaults to APP_URL). */
  CHECKOUT_URL: optionalUrl,
  /** Data directory of the embedded services (PostgreSQL cluster, local chain state, runtime file). */
  DATA_DIR: z.string().default('.data'),
  /** Minutes a charge stays payable. */
  CHARGE_EXPIRY_MINUTES: z.coerce.number().int().min(5).max(7 * 24 * 60).default(60),
  /** Requests per minute allowed for one API key. */
  API_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /** Largest accepted JSON request body, in bytes. */
  API_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(1024 * 1024).default(64 * 1024),
  /** Connections in this process's PostgreSQL pool. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** Run background jobs (charge expiry, …) in the web process. Set false when a separate worker runs them. */
  RUN_JOBS_IN_WEB: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  ...rpcEnvEntries,
});

export type Env = z.infer<typeof envSchema> & Partial<Record<`RPC_URL_${ChainName}`, string>>;

/** RPC_URL_POLYGON, RPC_URL_SOLANA_DEVNET, … */
export function rpcEnvName(chain: ChainName): `RPC_URL_${ChainName}` {
  return `RPC_URL_${chain}`;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

let cached: Env | undefined;

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration (see .env.example):\n${lines.join('\n')}`);
  }
  return result.data as Env;
}

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Tests change process.env between cases; production never calls this. */
export function resetEnvCache(): void {
  cached = undefined;
}

export function checkoutBaseUrl(): string {
  const config = env();
  return (config.CHECKOUT_URL ?? config.APP_URL).replace(/\/+$/, '');
}

export function rpcUrl(chain: ChainName): string | undefined {
  return env()[rpcEnvName(chain)];
}
