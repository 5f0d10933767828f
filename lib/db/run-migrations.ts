/**
 * Applies the committed SQL migrations in drizzle/. Several instances may start at once: a
 * session-level advisory lock lets one migrate while the others wait, then find nothing to do.
 * Reference data that follows the schema (the reviewed on-ramp provider registry) is loaded under the same
 * lock by the steps the caller passes: lib/admin/migrate-database.ts names them, so the foundation imports no
 * domain.
 */
import path from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';

const MIGRATION_LOCK_ID = 727_274_001;

export interface MigrationOptions {
  migrationsFolder?: string;
  /** Run in order after the migrations, under the same lock. */
  followUps?: readonly ((db: PostgresJsDatabase) => Promise<unknown>)[];
}

export async function runMigrations(databaseUrl: string, options: MigrationOptions = {}): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    const db = drizzle(sql);
    await migrate(db, { migrationsFolder: options.migrationsFolder ?? path.resolve('drizzle') });
    for (const followUp of options.followUps ?? []) await followUp(db);
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
