/**
 * Readiness: may this instance take traffic? The database answers and every migration this build ships
 * is applied. Chains are not part of it: an RPC outage must not take every instance out of a load
 * balancer (the full report at /api/health says which chain is unreachable).
 */
import { getSql } from '@/lib/db/client';
import journal from '@/drizzle/meta/_journal.json' with { type: 'json' };
import type { Readiness } from './schemas';

const TIMEOUT_MS = 2_000;
/** drizzle's migrator applies what is newer than the last `created_at` it recorded: the same test here. */
const LATEST_MIGRATION_MILLIS = Math.max(...journal.entries.map((entry) => entry.when));
/** Once applied, migrations stay applied: later probes only ping the database. */
let migrationsSeenApplied = false;

export async function checkReadiness(): Promise<Readiness> {
  try {
    const migrations = await withTimeout(migrationStatus(), TIMEOUT_MS);
    return { status: migrations === 'applied' ? 'ready' : 'not_ready', db: 'ok', migrations };
  } catch {
    return { status: 'not_ready', db: 'unreachable', migrations: 'unknown' };
  }
}

async function migrationStatus(): Promise<'applied' | 'pending'> {
  const sql = getSql();
  if (migrationsSeenApplied) {
    await sql`select 1`;
    return 'applied';
  }
  const [table] = await sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`;
  if (!table?.present) return 'pending';
  const [row] = await sql`select max(created_at)::text as latest from drizzle.__drizzle_migrations`;
  migrationsSeenApplied = Number(row?.latest ?? 0) >= LATEST_MIGRATION_MILLIS;
  return migrationsSeenApplied ? 'applied' : 'pending';
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}

/** Tests run a database without migrations, then with. */
export function forgetMigrationStatus(): void {
  migrationsSeenApplied = false;
}
