/**
 * Dated API versions and the RateLimit-* headers on the wire, through real routes on PostgreSQL:
 * unknown version → 400 with nothing done; the first request pins the key (once, even when two race);
 * the pinned version answers when no header is sent; the header overrides it; every answer says which.
 */
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GET as listCharges } from '@/app/api/charges/route';
import { POST as cancelCharge } from '@/app/api/charges/[chargeId]/cancel/route';
import { forgetPinnedApiVersions, pinApiVersion } from '@/lib/api-keys/pin-api-version';
import { getDb } from '@/lib/db/client';
import { apiKeys, apiRateLimits, charges } from '@/lib/db/schema';
import { hashApiKey } from '@/lib/api-keys/key-material';
import { env, resetEnvCache } from '@/lib/env';
import { resetApiRateLimiter } from '@/lib/rate-limit/api-rate-limit';
import { callRoute, createTestCharge, newMerchant, storedCounts, usdcCharge } from '@/test/fixtures';
import { API_VERSIONS, CURRENT_API_VERSION } from './resolve-api-version';

/** An older version still served, standing for the day there is more than one. */
const OLDER = '2026-01-01';
const versions = API_VERSIONS as unknown as string[];

beforeEach(() => {
  versions.unshift(OLDER);
});
afterEach(() => {
  versions.splice(versions.indexOf(OLDER), 1);
  delete process.env.API_RATE_LIMIT_PER_MINUTE;
  resetEnvCache();
  resetApiRateLimiter();
});

async function keyRow(plaintext: string) {
  const [row] = await getDb()
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.hash, hashApiKey(plaintext)));
  return row!;
}

describe('Chargeport-Version', () => {
  it('an unknown version → 400 unsupported_api_version listing the known ones; nothing done, counted or pinned', async () => {
    const merchant = await newMerchant();
    const { chargeId } = await createTestCharge({ apiKey: merchant.liveKey, body: usdcCharge() });
    const before = await storedCounts(merchant.id);
    const res = await callRoute(cancelCharge, {
      method: 'POST',
      apiKey: merchant.liveKey,
      params: { chargeId },
      headers: { 'chargeport-version': '2020-01-01' },
    });
    expect(res.status).toBe(400);
    expect(res.json.error?.code).toBe('unsupported_api_version');
    expect(res.json.error?.message).toContain('2020-01-01');
    for (const version of [OLDER, CURRENT_API_VERSION]) expect(res.json.error?.message).toContain(version);
    expect(res.headers.get('chargeport-version')).toBe(CURRENT_API_VERSION);
    expect(await storedCounts(merchant.id)).toEqual(before);
    const [charge] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
    expect(charge!.status).toBe('pending');
    const key = await keyRow(merchant.liveKey!);
    expect(key.apiVersion).toBeNull();
    expect(
      await getDb()
        .select()
        .from(apiRateLimits)
        .where(eq(apiRateLimits.key, `api:${key.id}`)),
    ).toEqual([]);
  });

  it('the first request pins the key to the current version and says so; the dashboard listing reads the same column', async () => {
    const merchant = await newMerchant();
    const res = await callRoute(listCharges, { apiKey: merchant.testKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('chargeport-version')).toBe(CURRENT_API_VERSION);
    expect((await keyRow(merchant.testKey)).apiVersion).toBe(CURRENT_API_VERSION);
  });

  it('a request with a header still pins the key to the current version, and answers in the version it asked for', async () => {
    const merchant = await newMerchant();
    const res = await callRoute(listCharges, { apiKey: merchant.testKey, headers: { 'chargeport-version': OLDER } });
    expect(res.status).toBe(200);
    expect(res.headers.get('chargeport-version')).toBe(OLDER);
    expect((await keyRow(merchant.testKey)).apiVersion).toBe(CURRENT_API_VERSION);
  });

  it('a pinned key without the header gets its pinned version; the header overrides it', async () => {
    const merchant = await newMerchant();
    await getDb()
      .update(apiKeys)
      .set({ apiVersion: OLDER })
      .where(eq(apiKeys.hash, hashApiKey(merchant.testKey)));
    forgetPinnedApiVersions();
    const pinned = await callRoute(listCharges, { apiKey: merchant.testKey });
    expect(pinned.status).toBe(200);
    expect(pinned.headers.get('chargeport-version')).toBe(OLDER);
    const overridden = await callRoute(listCharges, { apiKey: merchant.testKey, headers: { 'chargeport-version': CURRENT_API_VERSION } });
    expect(overridden.headers.get('chargeport-version')).toBe(CURRENT_API_VERSION);
    // The override does not move the pin.
    expect((await keyRow(merchant.testKey)).apiVersion).toBe(OLDER);
    expect((await callRoute(listCharges, { apiKey: merchant.testKey })).headers.get('chargeport-version')).toBe(OLDER);
  });

  it('two first requests racing (as on two instances) pin one value, and both read that value back', async () => {
    const merchant = await newMerchant();
    const key = await keyRow(merchant.testKey);
    // Forgetting between the calls makes each its own UPDATE, as on two instances.
    const first = pinApiVersion(key, OLDER);
    forgetPinnedApiVersions();
    const second = pinApiVersion(key, CURRENT_API_VERSION);
    const [a, b] = await Promise.all([first, second]);
    expect(a).toBe(b);
    expect([OLDER, CURRENT_API_VERSION]).toContain(a);
    expect((await keyRow(merchant.testKey)).apiVersion).toBe(a);
    // Through the routes as well: concurrent first requests agree with the stored pin.
    const other = await newMerchant();
    forgetPinnedApiVersions();
    const answers = await Promise.all([1, 2, 3].map(() => callRoute(listCharges, { apiKey: other.testKey })));
    const stored = (await keyRow(other.testKey)).apiVersion;
    expect(stored).toBe(CURRENT_API_VERSION);
    for (const answer of answers) expect(answer.headers.get('chargeport-version')).toBe(stored);
  });

  it('errors carry the version too: a 401 answers the version asked for, or the current one', async () => {
    const unknownKey = await callRoute(listCharges, {
      apiKey: 'cp_test_0000000000000000000000000000',
      headers: { 'chargeport-version': OLDER },
    });
    expect(unknownKey.status).toBe(401);
    expect(unknownKey.headers.get('chargeport-version')).toBe(OLDER);
    const noKey = await callRoute(listCharges, {});
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('chargeport-version')).toBe(CURRENT_API_VERSION);
    // No key was counted: no RateLimit headers to give.
    expect(noKey.headers.get('ratelimit-limit')).toBeNull();
  });
});

describe('RateLimit-Limit / -Remaining / -Reset', () => {
  it('on every counted answer, Remaining going down by one per request (within a lease and across leases)', async () => {
    const merchant = await newMerchant();
    const remaining: number[] = [];
    // The default budget (6,000) leases 16 points at a time: 20 requests span two leases.
    for (let i = 0; i < 20; i++) {
      const res = await callRoute(listCharges, { apiKey: merchant.testKey });
      expect(res.status).toBe(200);
      expect(Number(res.headers.get('ratelimit-limit'))).toBe(env().API_RATE_LIMIT_PER_MINUTE);
      const reset = Number(res.headers.get('ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(0);
      expect(reset).toBeLessThanOrEqual(60);
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
    }
    const limit = env().API_RATE_LIMIT_PER_MINUTE;
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => limit - 1 - i));
  });

  it("a 429 says Remaining 0, with Retry-After, in the key's pinned version", async () => {
    process.env.API_RATE_LIMIT_PER_MINUTE = '2';
    resetEnvCache();
    resetApiRateLimiter();
    const merchant = await newMerchant();
    await getDb()
      .update(apiKeys)
      .set({ apiVersion: OLDER })
      .where(eq(apiKeys.hash, hashApiKey(merchant.testKey)));
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await callRoute(listCharges, { apiKey: merchant.testKey }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers.map((a) => a.headers.get('ratelimit-remaining'))).toEqual(['1', '0', '0']);
    expect(answers[2]!.headers.get('ratelimit-limit')).toBe('2');
    expect(Number(answers[2]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(answers[2]!.headers.get('chargeport-version')).toBe(OLDER);
  });
});
