/**
 * In-process cache of what an API request is authenticated with: the key and its merchant (by key
 * hash), and the merchant's token rules (the Tokens tab). Every merchant API call needs them, and
 * reading them from PostgreSQL was two of createCharge's round trips.
 *
 * Revocation still takes effect at once: PostgreSQL triggers (migration 0019) NOTIFY
 * `chargeport_credentials` with the merchant id on every change to api_keys, merchants or
 * merchant_tokens, by any writer, at commit. Each instance LISTENs and drops that merchant's entries.
 * The cache is only used while LISTEN is in effect: before it is, and from the moment its connection
 * drops until it is back (when everything cached is dropped), lookups go to the database.
 * Entries also expire after API_KEY_CACHE_SECONDS (default 60, 0 = no cache) as a last safety net.
 * Writers in this process also call `forgetMerchantCredentials` themselves, so a change is visible
 * to the next line of code even before the notification comes back.
 *
 * Unknown keys are never cached (a flood of random keys cannot fill memory); entries are bounded.
 */
import { env } from '@/lib/env';
import { listenForNotifications, type NotificationListener } from '@/lib/db/client';
import type { ApiKey, Merchant } from '@/lib/db/schema';

const CREDENTIALS_CHANNEL = 'chargeport_credentials';
const MAX_KEYS = 10_000;
const MAX_MERCHANT_RULES = 10_000;

export interface CachedCredentials {
  apiKey: ApiKey;
  merchant: Merchant;
}

interface Entry<T> {
  value: T;
  merchantId: string;
  expiresAt: number;
}

interface CacheState {
  listener?: NotificationListener;
  keys: Map<string, Entry<CachedCredentials>>;
  tokenRules: Map<string, Entry<unknown>>;
  /** Counts drops. A load that started before a drop of its merchant (or of everything) must not store what it read. */
  tick: number;
  allDroppedAt: number;
  droppedAt: Map<string, number>;
  /** Times the LISTEN connection was lost. */
  connectionsLost: number;
}

const globalForCache = globalThis as unknown as { __chargeportCredentialCache?: CacheState };

function state(): CacheState {
  globalForCache.__chargeportCredentialCache ??= {
    keys: new Map(),
    tokenRules: new Map(),
    tick: 0,
    allDroppedAt: 0,
    droppedAt: new Map(),
    connectionsLost: 0,
  };
  return globalForCache.__chargeportCredentialCache;
}

function ttlMs(): number {
  return env().API_KEY_CACHE_SECONDS * 1000;
}

/** Starts listening on first use; true when cached entries may be trusted. */
function usable(): boolean {
  if (ttlMs() === 0) return false;
  const cache = state();
  // A listener ended by closeDb() (tests, CLI) is replaced on the next use.
  if (!cache.listener || cache.listener.closed) {
    forgetAllCredentials();
    cache.listener = listenForNotifications(CREDENTIALS_CHANNEL, {
      onNotification: (merchantId) => forgetMerchantCredentials(merchantId),
      onListening: () => forgetAllCredentials(),
      onLost: () => {
        state().connectionsLost += 1;
        forgetAllCredentials();
      },
    });
  }
  return cache.listener.listening;
}

/**
 * `load` from the database, or its cached result. `load` returning undefined (unknown key) is not cached.
 * A notification that arrives while `load` runs wins: the result is returned but not stored.
 */
async function cached<T>(
  map: Map<string, Entry<T>>,
  cacheKey: string,
  merchantOf: (value: T) => string,
  load: () => Promise<T | undefined>,
  max: number,
): Promise<T | undefined> {
  if (!usable()) return load();
  const hit = map.get(cacheKey);
  if (hit && hit.expiresAt > Date.now()) return hit.value;
  const cache = state();
  const startedAt = cache.tick;
  const value = await load();
  if (value === undefined || !usable()) return value;
  const merchantId = merchantOf(value);
  // Dropped while loading: what was read may predate the change.
  if (cache.allDroppedAt > startedAt || (cache.droppedAt.get(merchantId) ?? 0) > startedAt) return value;
  if (map.size >= max) map.delete(map.keys().next().value!);
  map.set(cacheKey, { value, merchantId, expiresAt: Date.now() + ttlMs() });
  return value;
}

export function cachedCredentials(
  keyHash: string,
  load: () => Promise<CachedCredentials | undefined>,
): Promise<CachedCredentials | undefined> {
  return cached(state().keys, keyHash, (value) => value.merchant.id, load, MAX_KEYS);
}

export async function cachedTokenRules<T>(merchantId: string, load: () => Promise<T>): Promise<T> {
  const rules = state().tokenRules as Map<string, Entry<T>>;
  return (await cached(rules, merchantId, () => merchantId, load, MAX_MERCHANT_RULES)) as T;
}

/** Drops what is cached for a merchant (its keys, its token rules). */
export function forgetMerchantCredentials(merchantId: string): void {
  const cache = state();
  if (cache.droppedAt.size >= MAX_KEYS) return forgetAllCredentials();
  cache.tick += 1;
  cache.droppedAt.set(merchantId, cache.tick);
  for (const [hash, entry] of cache.keys) if (entry.merchantId === merchantId) cache.keys.delete(hash);
  cache.tokenRules.delete(merchantId);
}

function forgetAllCredentials(): void {
  const cache = state();
  cache.tick += 1;
  cache.allDroppedAt = cache.tick;
  cache.droppedAt.clear();
  cache.keys.clear();
  cache.tokenRules.clear();
}

/** How often the LISTEN connection was lost (each loss empties the cache): for tests. */
export function credentialListenerLosses(): number {
  return state().connectionsLost;
}

/** Whether the cache is in use (LISTEN in effect and API_KEY_CACHE_SECONDS > 0): for tests and the health of the cache. */
export function credentialCacheActive(): boolean {
  return usable();
}
