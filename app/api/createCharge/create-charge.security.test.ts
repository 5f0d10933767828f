import { eq, sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetApiRateLimiter } from '@/lib/rate-limit/api-rate-limit';
import { getDb } from '@/lib/db/client';
import { apiKeys, charges } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { callRoute, newMerchant, newPublishableKey, storedCounts, testCharge, usdcCharge, type TestMerchant } from '@/test/fixtures';
import { GET as getChargeRoute } from '../charges/[chargeId]/route';
import { POST } from './route';

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await newMerchant({ verified: true });
});

describe('Idempotency-Key', () => {
  it('same key + same body → the same response again, one charge stored', async () => {
    const merchantA = await newMerchant();
    const headers = { 'idempotency-key': 'order-1001' };
    const first = await callRoute(POST, { apiKey: merchantA.liveKey, body: usdcCharge(), headers });
    const second = await callRoute(POST, { apiKey: merchantA.liveKey, body: usdcCharge(), headers });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await storedCounts(merchantA.id)).charges).toBe(1);
  });

  it('same key + a different body → 409 idempotency_conflict, nothing new stored', async () => {
    const merchantA = await newMerchant();
    const headers = { 'idempotency-key': 'order-1002' };
    await callRoute(POST, { apiKey: merchantA.liveKey, body: usdcCharge(), headers });
    const before = await storedCounts(merchantA.id);
    const other = await callRoute(POST, {
      apiKey: merchantA.liveKey,
      body: usdcCharge({ items: [{ name: 'Other', amount: '9.99', quantity: 1 }] }),
      headers,
    });
    expect(other.status).toBe(409);
    expect(other.json.error?.code).toBe('idempotency_conflict');
    expect(await storedCounts(merchantA.id)).toEqual(before);
  });

  it('50 parallel requests with one key create exactly one charge and all get its id', async () => {
    const merchantA = await newMerchant();
    const headers = { 'idempotency-key': 'burst-key' };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => callRoute(POST, { apiKey: merchantA.liveKey, body: usdcCharge(), headers })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    const ids = new Set(responses.map((r) => r.json.data.chargeId));
    expect(ids.size).toBe(1);
    expect((await storedCounts(merchantA.id)).charges).toBe(1);
  });

  it('a failed request stores nothing under its key, so a corrected retry with the same key succeeds', async () => {
    const merchantA = await newMerchant();
    const headers = { 'idempotency-key': 'retry-after-fix' };
    const bad = await callRoute(POST, { apiKey: merchantA.liveKey, body: usdcCharge({ chain: 'ETHEREUM' }), headers });
    expect(bad.status).toBe(422);
    expect(await storedCounts(merchantA.id)).toEqual({ charges: 0, events: 0, idempotencyKeys: 0 });
    const good = await callRoute(POST, { apiKey: merchantA.liveKey, body: usdcCharge(), headers });
    expect(good.status).toBe(200);
  });

  it('keys are scoped per merchant: two merchants may use the same key', async () => {
    const [a, b] = [await newMerchant(), await newMerchant()];
    const headers = { 'idempotency-key': 'shared-name' };
    const ra = await callRoute(POST, { apiKey: a.liveKey, body: usdcCharge(), headers });
    const rb = await callRoute(POST, { apiKey: b.liveKey, body: usdcCharge(), headers });
    expect(ra.json.data.chargeId).not.toBe(rb.json.data.chargeId);
  });

  it('keys are scoped per mode: a test key never replays a live response', async () => {
    const merchantA = await newMerchant();
    const headers = { 'idempotency-key': 'order-2001' };
    // No isTest: the key decides the mode, so one body is valid for both keys.
    const body = testCharge({}, { isTest: undefined });
    const live = await callRoute(POST, { apiKey: merchantA.liveKey, body, headers });
    const test = await callRoute(POST, { apiKey: merchantA.testKey, body, headers });
    expect(live.status).toBe(200);
    expect(test.status).toBe(200);
    expect(test.headers.get('idempotent-replayed')).toBeNull();
    expect(test.json.data.chargeId).not.toBe(live.json.data.chargeId);
    const [testRow] = await getDb().select().from(charges).where(eq(charges.id, test.json.data.chargeId));
    expect(testRow!.mode).toBe('test');
    // Each mode still replays its own response.
    const testAgain = await callRoute(POST, { apiKey: merchantA.testKey, body, headers });
    expect(testAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(testAgain.json.data.chargeId).toBe(test.json.data.chargeId);
    const liveAgain = await callRoute(POST, { apiKey: merchantA.liveKey, body, headers });
    expect(liveAgain.json.data.chargeId).toBe(live.json.data.chargeId);
  });

  it('keys are scoped per key kind: a publishable key never replays a secret key response', async () => {
    const merchantA = await newMerchant();
    const publishable = await newPublishableKey(merchantA.id, 'test');
    const headers = { 'idempotency-key': 'order-2002' };
    const secret = await callRoute(POST, { apiKey: merchantA.testKey, body: testCharge(), headers });
    const fromBrowser = await callRoute(POST, { apiKey: publishable, body: testCharge(), headers });
    expect(fromBrowser.status).toBe(200);
    expect(fromBrowser.headers.get('idempotent-replayed')).toBeNull();
    expect(fromBrowser.json.data.chargeId).not.toBe(secret.json.data.chargeId);
  });
});

describe('rate limit', () => {
  afterEach(() => {
    delete process.env.API_RATE_LIMIT_PER_MINUTE;
    resetEnvCache();
    resetApiRateLimiter();
  });

  it('answers 429 rate_limited with Retry-After past the per-key budget, storing nothing', async () => {
    process.env.API_RATE_LIMIT_PER_MINUTE = '3';
    resetEnvCache();
    resetApiRateLimiter();
    const merchantA = await newMerchant();
    for (let i = 0; i < 3; i++) expect((await callRoute(POST, { apiKey: merchantA.liveKey, body: usdcCharge() })).status).toBe(200);
    const before = await storedCounts(merchantA.id);
    const limited = await callRoute(POST, { apiKey: merchantA.liveKey, body: usdcCharge() });
    expect(limited.status).toBe(429);
    expect(limited.json.error?.code).toBe('rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await storedCounts(merchantA.id)).toEqual(before);
    // The budget is per key: another merchant's key is unaffected.
    const other = await newMerchant();
    expect((await callRoute(POST, { apiKey: other.liveKey, body: usdcCharge() })).status).toBe(200);
  });

  it('keeps the count in PostgreSQL, so every app instance shares one budget', async () => {
    process.env.API_RATE_LIMIT_PER_MINUTE = '2';
    resetEnvCache();
    resetApiRateLimiter();
    const merchantA = await newMerchant();
    await callRoute(POST, { apiKey: merchantA.liveKey, body: usdcCharge() });
    // A fresh limiter object stands for another instance: it must see the stored count.
    resetApiRateLimiter();
    await callRoute(POST, { apiKey: merchantA.liveKey, body: usdcCharge() });
    resetApiRateLimiter();
    expect((await callRoute(POST, { apiKey: merchantA.liveKey, body: usdcCharge() })).status).toBe(429);
  });
});

describe('ownership and secrets', () => {
  it('the charge belongs to the merchant that owns the key', async () => {
    const [a, b] = [await newMerchant(), await newMerchant()];
    const res = await callRoute(POST, { apiKey: b.liveKey, body: usdcCharge() });
    const [row] = await getDb().select().from(charges).where(eq(charges.id, res.json.data.chargeId));
    expect(row!.merchantId).toBe(b.id);
    expect(row!.merchantId).not.toBe(a.id);
  });

  it("another merchant's key gets 404 for a charge, never 403 or its data", async () => {
    const [owner, stranger] = [await newMerchant(), await newMerchant()];
    const created = await callRoute(POST, { apiKey: owner.liveKey, body: usdcCharge() });
    const chargeId = created.json.data.chargeId;
    const res = await callRoute(getChargeRoute, { apiKey: stranger.liveKey, params: { chargeId } });
    expect(res.status).toBe(404);
    expect(res.json.error?.code).toBe('not_found');
    expect(JSON.stringify(res.json)).not.toContain('Gem pack');
  });

  it('API keys are stored only as SHA-256 hashes', async () => {
    const fresh = await newMerchant();
    const rows = await getDb().select().from(apiKeys).where(eq(apiKeys.merchantId, fresh.id));
    expect(rows).toHaveLength(2);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(fresh.testKey);
    expect(dump).not.toContain(fresh.liveKey!);
    for (const row of rows) expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    // Nothing in the whole table holds a plaintext key.
    const [hit] = await getDb().execute<{ n: number }>(
      sql`select count(*)::int as n from api_keys where concat_ws(' ', hash, display_prefix, name) like ${`%${fresh.liveKey!.slice(12)}%`}`,
    );
    expect(hit!.n).toBe(0);
  });

  it('item names reach the checkout without bidi, control or invisible characters', async () => {
    const res = await callRoute(POST, {
      apiKey: merchant.liveKey,
      body: usdcCharge({ items: [{ name: 'Gem \u202Ekcap\u202C\u200B\n pack', amount: '1', quantity: 1 }] }),
    });
    expect(res.status).toBe(200);
    const [row] = await getDb().select().from(charges).where(eq(charges.id, res.json.data.chargeId));
    expect(row!.items).toEqual([expect.objectContaining({ name: 'Gem kcap pack' })]);
    const onlyControls = await callRoute(POST, {
      apiKey: merchant.liveKey,
      body: usdcCharge({ items: [{ name: '\u202E\u0007', amount: '1', quantity: 1 }] }),
    });
    expect(onlyControls.status).toBe(400);
    expect(onlyControls.json.error).toMatchObject({ code: 'invalid_request', param: 'chargeData.items.0.name' });
  });

  it('keys carry a recognisable prefix by mode', () => {
    expect(merchant.testKey).toMatch(/^cp_test_[0-9A-Za-z]{32}$/);
    expect(merchant.liveKey).toMatch(/^cp_live_[0-9A-Za-z]{32}$/);
  });

  it('answers CORS preflight for browser use with publishable keys', async () => {
    const { OPTIONS } = await import('./route');
    const res = OPTIONS();
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toContain('x-api-key');
  });
});
