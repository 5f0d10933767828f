/**
 * The PostgreSQL client (postgres.js) and the drizzle instance over it, created on first use from
 * DATABASE_URL. The launcher (scripts/stack.mts) sets DATABASE_URL to the embedded server when the
 * user has not, so this module has one code path for both.
 */
import 'server-only';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres, { type Sql } from 'postgres';
import { env, type Env } from '@/lib/env';
import * as schema from './schema';
import { runInTransactionScope } from './transaction-scope';
import { traceQueries } from './trace-queries';

export type Database = PostgresJsDatabase<typeof schema>;
/** A transaction or the database itself: domain verbs accept either through ctx.tx. */
export type DbOrTx = Database | Parameters<Parameters<Database['transaction']>[0]>[0];

interface DbHandle {
  sql: Sql;
  db: Database;
  /** Connections of listenForNotifications, ended with the pool. */
  listeners: Sql[];
}

const globalForDb = globalThis as unknown as { __chargeportDb?: DbHandle; __chargeportDbRole?: 'web' | 'jobs' };

/**
 * Makes this process's pool the jobs pool (its own size, its own application_name). Called by
 * scripts/worker.mts before anything connects: web and jobs never share a pool, so a burst of job work
 * cannot take the connections requests wait for.
 */
export function selectJobsPool(): void {
  globalForDb.__chargeportDbRole = 'jobs';
}

/**
 * Session settings every pooled connection starts with: a runaway statement is cancelled, and a
 * transaction left open (a bug, a hung await) is ended instead of holding its row locks forever.
 */
function sessionSettings(config: Env): Record<string, string> {
  return {
    statement_timeout: String(config.DATABASE_STATEMENT_TIMEOUT_MS),
    idle_in_transaction_session_timeout: String(config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS),
  };
}

function connect(): DbHandle {
  const url = env().DATABASE_URL;
  if (!url) {
    throw new Error(
      'DATABASE_URL is not set. Start the app with `npm run dev` / `npm start` (they start an embedded PostgreSQL), or set DATABASE_URL.',
    );
  }
  const isJobs = globalForDb.__chargeportDbRole === 'jobs';
  // A span per query while tracing is on (./trace-queries.ts).
  const sql = traceQueries(
    postgres(url, {
      max: isJobs ? env().WORKER_DATABASE_POOL_SIZE : env().DATABASE_POOL_SIZE,
      onnotice: () => {},
      // NUMERIC stays a string on the wire; drizzle's bigint mode turns it into bigint.
      connection: { application_name: isJobs ? 'chargeport-jobs' : 'chargeport', ...sessionSettings(env()) },
    }),
  );
  const db = drizzle(sql, { schema });
  // Chain clients refuse requests inside this scope (./transaction-scope.ts); savepoints (tx.transaction) run inside it.
  const transaction = db.transaction.bind(db);
  db.transaction = ((callback, config) =>
    transaction((tx) => runInTransactionScope(() => callback(tx)), config)) as Database['transaction'];
  return { sql, db, listeners: [] };
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
  await Promise.all([handle?.sql.end({ timeout: 5 }), ...(handle?.listeners ?? []).map((listener) => listener.end({ timeout: 5 }))]);
}

export interface NotificationListener {
  /** True while LISTEN is in effect: no notification can have been missed since `onListening` last ran. */
  readonly listening: boolean;
  /** Ended by closeDb(): it will not listen again; start a new one if needed. */
  readonly closed: boolean;
}

/**
 * LISTEN on `channel` over a connection of its own. `onListening` runs each time LISTEN takes effect
 * (first connect and every reconnect: notifications sent while disconnected are lost, so callers
 * resynchronise there); `onLost` runs when the connection drops. Reconnects with backoff until
 * closeDb().
 */
export function listenForNotifications(
  channel: string,
  handlers: { onNotification: (payload: string) => void; onListening: () => void; onLost: () => void },
): NotificationListener {
  globalForDb.__chargeportDb ??= connect();
  const handle = globalForDb.__chargeportDb;
  const state = { listening: false, closed: false, attempt: 0 };
  // `onnotify` is the connection-level hook postgres.js's own listen() is built on; its types omit it
  // (pinned version; listen-for-notifications.test.ts fails if it changes). Unlike listen(), it lets
  // `onclose` here report a lost connection.
  const options = {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: 'chargeport-listen' },
    onnotify: (from: string, payload: string) => {
      if (from === channel) handlers.onNotification(payload);
    },
    onclose: () => {
      if (!state.listening) return;
      state.listening = false;
      handlers.onLost();
      if (!state.closed) void listen();
    },
  };
  const connection = postgres(env().DATABASE_URL!, options as postgres.Options<Record<string, never>>);
  handle.listeners.push(connection);
  const originalEnd = connection.end.bind(connection);
  connection.end = ((options?: { timeout?: number }) => {
    state.closed = true;
    return originalEnd(options);
  }) as Sql['end'];
  const listen = async (): Promise<void> => {
    while (!state.closed) {
      try {
        await connection.unsafe(`listen "${channel.replace(/"/g, '""')}"`);
        state.attempt = 0;
        state.listening = true;
        handlers.onListening();
        return;
      } catch {
        state.attempt += 1;
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 100 * 2 ** state.attempt)).unref?.());
      }
    }
  };
  void listen();
  return {
    get listening() {
      return state.listening;
    },
    get closed() {
      return state.closed;
    },
  };
}
