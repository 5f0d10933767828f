/**
 * Finds the database for a command-line tool: DATABASE_URL when set; else the embedded PostgreSQL of
 * a running stack (runtime file); else it starts the embedded cluster itself for the duration of the
 * command. Migrations are applied in the last two cases (DATABASE_URL too: it is idempotent).
 */
import path from 'node:path';
import { runMigrations } from '@/lib/db/run-migrations';
import { readRuntimeInfo } from '@/lib/infra/runtime-file';
import { startStack } from '@/lib/infra/stack';

export async function withAdminDatabase<T>(run: () => Promise<T>): Promise<T> {
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  let stop: (() => Promise<void>) | undefined;
  const running = readRuntimeInfo(dataDir);
  // A running stack's local chains, for commands that read them (gas-tank status).
  for (const [chain, url] of Object.entries(running?.localRpcUrls ?? {})) process.env[`RPC_URL_${chain}`] ??= url;
  if (!process.env.DATABASE_URL) {
    if (running?.embeddedDatabaseUrl) {
      process.env.DATABASE_URL = running.embeddedDatabaseUrl;
    } else {
      const stack = await startStack({ dataDir, env: process.env });
      process.env.DATABASE_URL = stack.databaseUrl;
      stop = stack.stop;
    }
  }
  if (process.env.NODE_ENV !== 'production') {
    const { ensureDevSecrets } = await import('@/lib/infra/dev-secrets');
    Object.assign(process.env, ensureDevSecrets(dataDir, process.env));
  }
  await runMigrations(process.env.DATABASE_URL!);
  const { closeDb } = await import('@/lib/db/client');
  try {
    return await run();
  } finally {
    await closeDb();
    await stop?.();
  }
}
