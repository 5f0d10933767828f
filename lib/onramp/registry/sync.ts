import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { onrampProviders } from '@/lib/db/schema';
import { reviewedRegistry } from './facts';

/**
 * Loads the reviewed provider facts into `onramp_providers`, run right after the migrations (same lock):
 * the facts are replaced by the file's, the `enabled` switch (an operator's decision) is kept.
 */
export async function syncProviderRegistry(db: PgDatabase<PgQueryResultHKT, Record<string, unknown>>): Promise<number> {
  const registry = reviewedRegistry();
  const rows = registry.providers.map((provider) => ({
    id: provider.id,
    displayName: provider.displayName,
    facts: provider as unknown as Record<string, unknown>,
    reviewedOn: registry.reviewedOn,
  }));
  await db
    .insert(onrampProviders)
    .values(rows)
    .onConflictDoUpdate({
      target: onrampProviders.id,
      set: {
        displayName: sql`excluded.display_name`,
        facts: sql`excluded.facts`,
        reviewedOn: sql`excluded.reviewed_on`,
        updatedAt: sql`now()`,
      },
    });
  return rows.length;
}
