/**
 * Brings a database up to date: the committed migrations (drizzle/), then the reference data that lives in
 * the repository and follows the schema (the reviewed on-ramp provider registry), all under one lock.
 * Every process that migrates calls this, never runMigrations alone.
 */
import { runMigrations } from '@/lib/db/run-migrations';
import { syncProviderRegistry } from '@/lib/onramp/registry/sync';

export function migrateDatabase(databaseUrl: string, options: { migrationsFolder?: string } = {}): Promise<void> {
  return runMigrations(databaseUrl, { ...options, followUps: [syncProviderRegistry] });
}
