import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, getDb } from '@/lib/db/client';
import { apiKeys, merchantTokens } from '@/lib/db/schema';
import { env, resetEnvCache } from '@/lib/env';
import { newMerchant, type TestMerchant } from '@/test/fixtures';
import { waitFor } from '@/test/webhook-receiver';
import { authenticateApiKey } from '@/lib/api-keys/authenticate-api-key';
import { cachedCredentials, credentialCacheActive, credentialListenerLosses, forgetMerchantCredentials } from './credential-cache';
import { hashApiKey } from '@/lib/api-keys/key-material';
import { merchantTokenRule } from '@/lib/merchants/tokens';

/** Another instance, the admin CLI or psql: a connection of its own, so only NOTIFY can tell this process. */
let elsewhere: postgres.Sql;
beforeAll(() => {
  elsewhere = postgres(env().DATABASE_URL!, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await elsewhere.end({ timeout: 5 });
});
afterEach(() => {
  delete process.env.API_KEY_CACHE_SECONDS;
  resetEnvCache();
});

async function cacheListening(): Promise<void> {
  await waitFor(() => credentialCacheActive(), { what: 'LISTEN in effect' });
}

/** Counts database loads behind the cache for one key. */
function countingLoader(key: string) {
  const counter = { loads: 0 };
  const hash = hashApiKey(key);
  const lookup = () =>
    cachedCredentials(hash, async () => {
      counter.loads += 1;
      const [row] = await getDb().select().from(apiKeys).where(eq(apiKeys.hash, hash));
      return row ? { apiKey: row, merchant: { id: row.merchantId } as never } : undefined;
    });
  return { counter, lookup };
}

describe('credential cache', () => {
  let merchant: TestMerchant;
  beforeAll(async () => {
    merchant = await newMerchant({ verified: true });
    await cacheListening();
  });

  it('serves a known key from memory after the first lookup', async () => {
    const { counter, lookup } = countingLoader(merchant.testKey);
    await lookup();
    await lookup();
    await lookup();
    expect(counter.loads).toBe(1);
  });

  it('a key revoked by another connection is refused at once (NOTIFY), not after the cache time', async () => {
    const other = await newMerchant({ verified: true });
    await authenticateApiKey(other.liveKey!); // cached now
    await elsewhere`update api_keys set revoked_at = now() where merchant_id = ${other.id} and mode = 'live'`;
    await waitFor(
      () =>
        authenticateApiKey(other.liveKey!).then(
          () => false,
          (error: { code?: string }) => error.code === 'invalid_api_key',
        ),
      {
        what: 'the revoked key to be refused',
        timeoutMs: 2_000,
      },
    );
  });

  it('a merchant change (verification withdrawn) elsewhere reaches the cached merchant', async () => {
    const other = await newMerchant({ verified: true });
    expect((await authenticateApiKey(other.liveKey!)).merchant.verifiedAt).not.toBeNull();
    await elsewhere`update merchants set verified_at = null where id = ${other.id}`;
    await waitFor(async () => (await authenticateApiKey(other.liveKey!)).merchant.verifiedAt === null, {
      what: 'the merchant to be re-read',
      timeoutMs: 2_000,
    });
  });

  it('a token disabled elsewhere stops being accepted without waiting for the cache time', async () => {
    const other = await newMerchant({ verified: true });
    const rule = { merchantId: other.id, chain: 'POLYGON' as const, address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' };
    expect(await merchantTokenRule(getDb(), rule)).toBeUndefined();
    await elsewhere`insert into merchant_tokens (merchant_id, chain, address, symbol, name, decimals, enabled)
      values (${other.id}, 'POLYGON', ${rule.address.toLowerCase()}, 'USDC', 'USD Coin', 6, false)`;
    await waitFor(async () => (await merchantTokenRule(getDb(), rule))?.disabled === true, {
      what: 'the disabled token to be seen',
      timeoutMs: 2_000,
    });
    await getDb().delete(merchantTokens).where(eq(merchantTokens.merchantId, other.id));
  });

  it('last_used_at writes do not empty the cache (the trigger ignores them)', async () => {
    const { counter, lookup } = countingLoader(merchant.liveKey!);
    await lookup();
    await elsewhere`update api_keys set last_used_at = now() where merchant_id = ${merchant.id}`;
    // A notification would arrive within milliseconds; give it ample time, then check nothing was evicted.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await lookup();
    expect(counter.loads).toBe(1);
  });

  it('is emptied when its LISTEN connection drops (notifications may have been missed), and used again once back', async () => {
    const { counter, lookup } = countingLoader(merchant.testKey);
    await lookup();
    const before = counter.loads;
    const losses = credentialListenerLosses();
    await elsewhere`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'chargeport-listen' and datname = current_database()`;
    await waitFor(() => credentialListenerLosses() === losses + 1, { what: 'the lost connection to be noticed' });
    await cacheListening();
    await lookup();
    await lookup();
    expect(counter.loads).toBe(before + 1); // reloaded once after reconnecting, then cached again
  });

  it('API_KEY_CACHE_SECONDS=0 turns the cache off', async () => {
    process.env.API_KEY_CACHE_SECONDS = '0';
    resetEnvCache();
    const { counter, lookup } = countingLoader(merchant.testKey);
    await lookup();
    await lookup();
    expect(counter.loads).toBe(2);
  });
});

describe('credential cache after a drop', () => {
  it('caches a merchant again after its entries were dropped (a drop only voids loads that were in flight)', async () => {
    await cacheListening();
    const merchant = await newMerchant({ verified: true });
    const { counter, lookup } = countingLoader(merchant.testKey);
    await lookup();
    forgetMerchantCredentials(merchant.id);
    await lookup();
    await lookup();
    expect(counter.loads).toBe(2);
  });

  it('does not store what a load read when the merchant was dropped while it ran', async () => {
    await cacheListening();
    const merchant = await newMerchant({ verified: true });
    const hash = hashApiKey(merchant.testKey);
    let loads = 0;
    const load = async () => {
      loads += 1;
      const [row] = await getDb().select().from(apiKeys).where(eq(apiKeys.hash, hash));
      if (loads === 1) forgetMerchantCredentials(merchant.id); // a change committed while this load ran
      return { apiKey: row!, merchant: { id: row!.merchantId } as never };
    };
    await cachedCredentials(hash, load);
    await cachedCredentials(hash, load);
    await cachedCredentials(hash, load);
    expect(loads).toBe(2);
  });
});

describe('credential cache across closeDb()', () => {
  it('listens again after the pool (and its LISTEN connection) was closed, instead of staying off', async () => {
    await cacheListening();
    await closeDb();
    // The old listener is gone; the next use starts a new one and the cache is trusted again once it listens.
    await cacheListening();
    const merchant = await newMerchant({ verified: true });
    const { counter, lookup } = countingLoader(merchant.testKey);
    await lookup();
    await lookup();
    expect(counter.loads).toBe(1);
    await elsewhere`update api_keys set revoked_at = now() where merchant_id = ${merchant.id}`;
    await waitFor(
      () =>
        authenticateApiKey(merchant.testKey).then(
          () => false,
          (error: { code?: string }) => error.code === 'invalid_api_key',
        ),
      {
        what: 'the new listener to hear the revocation',
        timeoutMs: 2_000,
      },
    );
  });
});
