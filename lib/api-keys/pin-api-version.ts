/**
 * Pins an API key to a dated API version on its first authenticated request (the rules are in
 * lib/api/resolve-api-version.ts). One conditional UPDATE (`… where api_version is null`), so two
 * first requests racing on any number of instances pin one value: the loser's UPDATE matches no row
 * once the winner committed, and it reads the winner's value back.
 *
 * Only the first request of a key writes: the key row comes from the credential cache, and once
 * pinned, this process remembers the pin until the cache reloads the row (the UPDATE's NOTIFY drops it).
 */
import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { apiKeys, type ApiKey } from '@/lib/db/schema';

const MAX_REMEMBERED = 10_000;
/** Pins this process wrote or read back, and pins in flight (so concurrent first requests share one UPDATE). */
const pins = new Map<string, Promise<string>>();

/** The key's pinned version: `apiKey.apiVersion` when set, else `version`, or whatever another request pinned first. */
export function pinApiVersion(apiKey: Pick<ApiKey, 'id' | 'apiVersion'>, version: string): Promise<string> {
  if (apiKey.apiVersion) return Promise.resolve(apiKey.apiVersion);
  const known = pins.get(apiKey.id);
  if (known) return known;
  if (pins.size >= MAX_REMEMBERED) pins.clear();
  const pin = writePin(apiKey.id, version);
  pins.set(apiKey.id, pin);
  // A failed write is not remembered: the next request tries again.
  pin.catch(() => pins.delete(apiKey.id));
  return pin;
}

async function writePin(apiKeyId: string, version: string): Promise<string> {
  const [pinned] = await getDb()
    .update(apiKeys)
    .set({ apiVersion: version })
    .where(and(eq(apiKeys.id, apiKeyId), isNull(apiKeys.apiVersion)))
    .returning({ apiVersion: apiKeys.apiVersion });
  if (pinned?.apiVersion) return pinned.apiVersion;
  const [row] = await getDb().select({ apiVersion: apiKeys.apiVersion }).from(apiKeys).where(eq(apiKeys.id, apiKeyId));
  return row?.apiVersion ?? version;
}

/** Tests: forget what this process remembers, as a fresh instance would. */
export function forgetPinnedApiVersions(): void {
  pins.clear();
}
