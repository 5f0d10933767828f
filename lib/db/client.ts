/**
 * The PostgreSQL client (postgres.js) and the drizzle instance over it, created on first use from
 * DATABASE_URL. The launcher (scripts/stack.mts) sets DATABASE_URL to the embedded server when the
 * user has not, so this module has one code path for both.
 */
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres, { type Sql } from 'postgres';
import { env } from '@/lib/env';
import * as schema from './schema';

export type Database = PostgresJsDatabase<typeof schema>;
/** A transaction or the database itself: domain verbs accept either through ctx.tx. */
export type DbOrTx = Database | Parameters<Parameters<Database['transaction']>[0]>[0];

interface DbHandle {
  sql: Sql;
  db: Database;
}

const globalForDb = globalThis as unknown as { __chargeportDb?: DbHandle };

function connect(): DbHandle {
  const url = env().DATABASE_URL;
  if (!url) {
    throw new Error(
      'DATABASE_URL is not set. Start the app with `npm run dev` / `npm start` (they start an embedded PostgreSQL), or set DATABASE_URL.',
    );
  }
  const sql = postgres(url, {
    max: env().DATABASE_POOL_SIZE,
    onnotice: () => {},
    // NUMERIC stays a string on the wire; drizzle's bigint mode turns it into bigint.
    connection: { application_name: 'chargeport' },
  });
  return { sql, db: drizzle(sql, { schema }) };
}

/** One pool per process (kept on globalThis so Next's dev reloads do not open new pools). */
export function getDb(): Database {
  globalForDb.__chargeportDb ??= connect();
  return globalForDb.__chargeportDb.db;
}

export function getSql(): Sql {
  globalForDb.__chargeportDb ??= connect();
  return globalForDb.__chargeportDb.sql;
}

export async function closeDb(): Promise<void> {
  const handle = globalForDb.__chargeportDb;
  globalForDb.__chargeportDb = undefined;
  await handle?.sql.end({ timeout: 5 });
}
