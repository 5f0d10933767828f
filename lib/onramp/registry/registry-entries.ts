import { getDb } from '@/lib/db/client';
import { onrampProviders } from '@/lib/db/schema';
import { log } from '@/lib/log';
import { providerFactsSchema, type ProviderFacts } from './facts';

interface RegistryEntry {
  facts: ProviderFacts;
  reviewedOn: string;
}

const CACHE_MS = 30_000;
let cached: { at: number; entries: RegistryEntry[] } | undefined;

/** The enabled providers' facts, as loaded into the database (cached for 30 s per process). */
export async function registryEntries(now = Date.now()): Promise<RegistryEntry[]> {
  if (cached && now - cached.at < CACHE_MS) return cached.entries;
  const rows = await getDb().select().from(onrampProviders);
  const entries = rows
    .filter((row) => row.enabled)
    .flatMap((row) => {
      const facts = providerFactsSchema.safeParse(row.facts);
      // A row the reviewed file did not write (edited by hand) is skipped, not allowed to break every page.
      if (!facts.success) {
        log.error('on-ramp provider row does not match the registry schema: not offered', { providerId: row.id });
        return [];
      }
      return [{ facts: facts.data, reviewedOn: row.reviewedOn }];
    })
    .sort((a, b) => a.facts.displayName.localeCompare(b.facts.displayName));
  cached = { at: now, entries };
  return entries;
}
