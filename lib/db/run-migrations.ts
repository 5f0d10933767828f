/**
 * Applies the committed SQL migrations in drizzle/. Several instances may start at once: a
 * session-level advisory lock lets one migrate while the others wait, then find nothing to do.
 * The reviewed on-ramp provider registry is loaded under the same lock.
 */
import path from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { syncProviderRegistry } from '@/lib/onramp/registry/sync';

const MIGRATION_LOCK_ID = 727_274_001;

export async function runMigrations(databaseUrl: string, migrationsFolder = path.resolve('drizzle')): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await migrate(drizzle(sql), { migrationsFolder });
    // Reference data that lives in the repository (reviewed on-ramp provider facts) follows the schema.
    await syncProviderRegistry(drizzle(sql));
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
