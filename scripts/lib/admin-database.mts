/**
 * Finds the database for a command-line tool: DATABASE_URL when set; else the embedded PostgreSQL of
 * a running stack (runtime file); else it starts the embedded cluster itself for the duration of the
 * command. Migrations are applied in the last two cases (DATABASE_URL too: it is idempotent).
 *
 * Before anything else it checks the database's last server start (lib/admin/server-start.ts): it refuses
 * a master key (or deposit seed) other than the server's, and development defaults for WALLET_MASTER_KEY or DEPOSIT_HD_SEED
 * against a production database (there it fills no development default at all).
 */
import { migrateDatabase } from '@/lib/admin/migrate-database';
import { localChainEnv, readRuntimeInfo } from '@/scripts/stack/runtime-file';
import { adminRefusal, depositSeedIdFrom, DeploymentRefused, masterKeyIdFrom, readServerStart } from '@/lib/admin/server-start';
import { startStack } from '@/scripts/stack/stack';
import { resolveDataDir } from '@/scripts/stack/data-dir';

export async function withAdminDatabase<T>(run: () => Promise<T>): Promise<T> {
  // The launcher's directory (scripts/stack/data-dir.ts), set for the commands that use it (backup).
  const dataDir = resolveDataDir({ projectRoot: process.cwd() });
  process.env.DATA_DIR = dataDir;
  let stop: (() => Promise<void>) | undefined;
  const running = readRuntimeInfo(dataDir);
  // A running stack's local chains, for commands that read them (gas-tank status, reconcile), counted as it counts them.
  Object.assign(process.env, localChainEnv(running, process.env));
  if (!process.env.DATABASE_URL) {
    if (running?.embeddedDatabaseUrl) {
      process.env.DATABASE_URL = running.embeddedDatabaseUrl;
    } else {
      const stack = await startStack({ dataDir, env: process.env });
      process.env.DATABASE_URL = stack.databaseUrl;
      stop = stack.stop;
    }
  }
  try {
    const production = process.env.NODE_ENV === 'production';
    const last = await readServerStart(process.env.DATABASE_URL!);
    const devSecrets: Record<string, string> = production
      ? {}
      : await import('@/scripts/stack/dev-secrets').then((m) => m.ensureDevSecrets(dataDir, process.env));
    const refusal = adminRefusal(last, {
      production,
      masterKeyId: masterKeyIdFrom(process.env.WALLET_MASTER_KEY ?? devSecrets.WALLET_MASTER_KEY),
      depositSeedId: depositSeedIdFrom(process.env.DEPOSIT_HD_SEED ?? devSecrets.DEPOSIT_HD_SEED),
      filled: Object.keys(devSecrets),
    });
    if (refusal) throw new DeploymentRefused(refusal);
    if (!last?.production) Object.assign(process.env, devSecrets);
    await migrateDatabase(process.env.DATABASE_URL!);
    const { closeDb } = await import('@/lib/db/client');
    try {
      return await run();
    } finally {
      await closeDb();
    }
  } finally {
    await stop?.();
  }
}
