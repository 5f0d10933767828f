/**
 * Which deployment a database belongs to (issue 26 point 6, N17). Every server start, and every
 * production worker start, records its master key id and whether it runs in production
 * (`platform_settings` 'last_server_start'). Tools started beside it read that record first:
 *
 *  - the admin CLI refuses when its master key (or deposit seed) differs from the recorded one, or when it would fill a
 *    development default (scripts/stack/dev-secrets.ts) for WALLET_MASTER_KEY or DEPOSIT_HD_SEED against a
 *    production database: it would create wallets and deposit addresses the server cannot open;
 *  - a server or worker without NODE_ENV=production refuses a production database (its defaults allow
 *    loopback webhooks, the sandbox provider and test helpers), and a development worker refuses a
 *    database whose server runs another master key.
 *
 * A production start always records: the deployment that started last is the one tools must match.
 */
import { createHash } from 'node:crypto';
import postgres from 'postgres';
import { getDb } from '@/lib/db/client';
import { platformSettings } from '@/lib/db/schema';
import { env } from '@/lib/env';

const SETTING = 'last_server_start';

export interface ServerStart {
  /** Null when the process had no WALLET_MASTER_KEY (it cannot seal anything). */
  masterKeyId: string | null;
  /** A fingerprint of DEPOSIT_HD_SEED (deposit addresses and the gas tank derive from it); absent in older records. */
  depositSeedId?: string | null;
  production: boolean;
  role: 'server' | 'worker';
  at: string;
}

/** A tool or process that must not run against this database with its environment. */
export class DeploymentRefused extends Error {
  override name = 'DeploymentRefused';
}

/** The id lib/keyring/master-keys.ts gives the key (kept here so the check needs no key ring). */
export function masterKeyIdFrom(base64: string | undefined): string | null {
  if (!base64) return null;
  return `mk_${createHash('sha256').update(Buffer.from(base64, 'base64')).digest('hex').slice(0, 16)}`;
}

/** A fingerprint of the seed: 64 bits of a hash, enough to tell two seeds apart and useless to find one. */
export function depositSeedIdFrom(seed: string | undefined): string | null {
  if (!seed) return null;
  return `ds_${createHash('sha256').update(`chargeport.deposit-seed-id.v1:${seed}`).digest('hex').slice(0, 16)}`;
}

/** The last recorded start, read on a connection of its own (the CLI reads it before migrating: the table may be missing). */
export async function readServerStart(databaseUrl: string): Promise<ServerStart | null> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    // Two statements: a query naming a missing table fails when planned, whatever branch would run.
    const [table] = await sql<{ name: string | null }[]>`select to_regclass('public.platform_settings')::text as name`;
    if (!table?.name) return null;
    const [row] = await sql<{ value: ServerStart }[]>`select value from platform_settings where key = ${SETTING}`;
    return row?.value ?? null;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

function openedBy(last: ServerStart): string {
  return `this database was last opened by a ${last.production ? 'production ' : ''}${last.role} with master key ${last.masterKeyId ?? '(none)'} at ${last.at}`;
}

/**
 * Server start (instrumentation.ts) and worker start (scripts/worker.mts): refuses a production database
 * outside production (N17), then records this start (a development worker only checks).
 */
export async function recordStart(role: ServerStart['role']): Promise<void> {
  const config = env();
  const production = config.NODE_ENV === 'production';
  const masterKeyId = masterKeyIdFrom(config.WALLET_MASTER_KEY);
  const depositSeedId = depositSeedIdFrom(config.DEPOSIT_HD_SEED);
  if (!production) {
    const last = await readServerStart(config.DATABASE_URL!);
    if (last?.production) {
      throw new DeploymentRefused(
        `NODE_ENV is ${config.NODE_ENV}, not production, but ${openedBy(last)}. Start the ${role} with the server's environment ` +
          '(NODE_ENV=production and its secrets), or point DATABASE_URL at a development database.',
      );
    }
    if (role === 'worker') {
      if (last?.masterKeyId && masterKeyId && masterKeyId !== last.masterKeyId) {
        throw new DeploymentRefused(
          `WALLET_MASTER_KEY names master key ${masterKeyId}, but ${openedBy(last)}. Start the worker with the server's WALLET_MASTER_KEY.`,
        );
      }
      if (last?.depositSeedId && depositSeedId && depositSeedId !== last.depositSeedId) {
        throw new DeploymentRefused(
          `DEPOSIT_HD_SEED is not the server's (seed ${depositSeedId}, the server's ${last.depositSeedId}): start the worker with the server's DEPOSIT_HD_SEED.`,
        );
      }
      return;
    }
  }
  const value: ServerStart = { masterKeyId, depositSeedId, production, role, at: new Date().toISOString() };
  await getDb()
    .insert(platformSettings)
    .values({ key: SETTING, value: { ...value } })
    .onConflictDoUpdate({ target: platformSettings.key, set: { value: { ...value }, updatedAt: new Date() } });
}

/** Secrets whose development default would make data the server cannot use. */
const DATA_SECRETS = ['WALLET_MASTER_KEY', 'DEPOSIT_HD_SEED'] as const;

/**
 * The admin CLI (scripts/lib/admin-database.mts): why it must not run against this database with the
 * secrets it has (`filled`: those a development default would supply), or null.
 */
export function adminRefusal(
  last: ServerStart | null,
  own: { production: boolean; masterKeyId: string | null; depositSeedId?: string | null; filled: readonly string[] },
): string | null {
  if (!last) return null;
  const defaulted = DATA_SECRETS.filter((name) => own.filled.includes(name));
  if (last.production && !own.production && defaulted.length) {
    return (
      `${defaulted.join(' and ')} ${defaulted.length > 1 ? 'are' : 'is'} not set: ${openedBy(last)}. ` +
      "Run the CLI with the server's environment (its WALLET_MASTER_KEY, WALLET_MASTER_KEYS_PREVIOUS and DEPOSIT_HD_SEED), not development defaults."
    );
  }
  if (last.masterKeyId && own.masterKeyId !== last.masterKeyId) {
    const origin = own.filled.includes('WALLET_MASTER_KEY') ? ' (the development default, WALLET_MASTER_KEY is not set)' : '';
    return (
      `WALLET_MASTER_KEY names master key ${own.masterKeyId ?? '(none)'}${origin}, but ${openedBy(last)}. ` +
      "Run the CLI with the server's WALLET_MASTER_KEY (when rotating: deploy the new key to the server first)."
    );
  }
  if (last.depositSeedId && own.depositSeedId !== last.depositSeedId) {
    const origin = own.filled.includes('DEPOSIT_HD_SEED') ? ' (the development default, DEPOSIT_HD_SEED is not set)' : '';
    return (
      `DEPOSIT_HD_SEED is not the server's: seed ${own.depositSeedId ?? '(none)'}${origin}, but ${openedBy(last)} and seed ${last.depositSeedId}. ` +
      "Run the CLI with the server's DEPOSIT_HD_SEED."
    );
  }
  return null;
}
