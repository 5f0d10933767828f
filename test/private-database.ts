import postgres from 'postgres';
import { closeDb } from '@/lib/db/client';
import { migrateDatabase } from '@/lib/admin/migrate-database';
import { resetEnvCache } from '@/lib/env';
import { randomBase62 } from '@/lib/ids';

/**
 * A fresh database on the test cluster, migrated, and this process switched to it. For files that run
 * their own node of a chain (BSC, say): the engine's reconciler and the watchers work per chain name,
 * so two files with two different "BSC" nodes must not share the records of what was sent on it.
 */
export async function switchToPrivateDatabase(prefix = 'private'): Promise<void> {
  const shared = process.env.DATABASE_URL!;
  const name = `${prefix}_${randomBase62(12).toLowerCase()}`;
  const admin = postgres(shared, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(shared);
  url.pathname = `/${name}`;
  await closeDb();
  process.env.DATABASE_URL = url.toString();
  resetEnvCache();
  await migrateDatabase(process.env.DATABASE_URL);
}
