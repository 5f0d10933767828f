import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GET as getChargeRoute, OPTIONS as getChargePreflight } from '@/app/api/charges/[chargeId]/route';
import { GET as listChargesRoute } from '@/app/api/charges/route';
import { POST as createChargeRoute, OPTIONS as createChargePreflight } from '@/app/api/createCharge/route';
import { createApiKey } from '@/lib/api-keys/create-api-key';
import { hashApiKey } from '@/lib/api-keys/key-material';
import { forgetMerchantCredentials } from '@/lib/merchants/credential-cache';
import { getDb } from '@/lib/db/client';
import { apiKeys } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { callRoute, newMerchant, newPublishableKey, storedCounts, usdcCharge } from '@/test/fixtures';
import { resetPublishableIpLimiter } from '@/lib/rate-limit/publishable-ip-limit';
import { corsPreflight, withCorsHeaders } from './cors';

const SHOP = 'https://shop.example';
let merchantId: string;
let publishableKey: string;
let secretKey: string;
let chargeId: string;

async function allowOrigins(key: string, origins: { allowedOrigins?: string[]; allowedRedirectOrigins?: string[] }) {
  await getDb()
    .update(apiKeys)
    .set(origins)
    .where(eq(apiKeys.hash, hashApiKey(key)));
  forgetMerchantCredentials(merchantId);
}

beforeAll(async () => {
  const merchant = await newMerchant({ verified: true });
  merchantId = merchant.id;
  secretKey = merchant.liveKey!;
  publishableKey = await newPublishableKey(merchant.id, 'live');
  await allowOrigins(publishableKey, { allowedOrigins: [SHOP], allowedRedirectOrigins: ['https://game.example'] });
  const created = await callRoute(createChargeRoute, { apiKey: publishableKey, body: usdcCharge(), headers: { origin: SHOP } });
  chargeId = created.json.data.chargeId;
});

describe('CORS preflight', () => {
  it.each([
    ['POST /api/createCharge', createChargePreflight],
    ['GET /api/charges/{chargeId}', getChargePreflight],
  ])('%s: 204 for the asking origin (it carries no key), the headers the SDK sends, cached, no body', async (_route, preflight) => {
    const response = preflight(new Request('http://localhost/api/createCharge', { method: 'OPTIONS', headers: { origin: SHOP } }));
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(response.headers.get('vary')).toContain('Origin');
    const allowedHeaders = response.headers.get('access-control-allow-headers')!.split(/,\s*/);
    expect(allowedHeaders).toEqual(expect.arrayContaining(['content-type', 'x-api-key', 'idempotency-key']));
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });

  it('never allows credentials: the API key header is the only credential, cookies play no part', () => {
    expect(corsPreflight().headers.has('access-control-allow-credentials')).toBe(false);
  });
});

describe('publishable keys and their allowed origins', () => {
  it.each([
    [
      'createCharge, 200',
      () => callRoute(createChargeRoute, { apiKey: publishableKey, body: usdcCharge(), headers: { origin: SHOP } }),
      200,
    ],
    [
      'createCharge, 400 on bad JSON',
      () => callRoute(createChargeRoute, { apiKey: publishableKey, body: '{', headers: { origin: SHOP } }),
      400,
    ],
    [
      'createCharge, 403 toAddress with a publishable key',
      () =>
        callRoute(createChargeRoute, {
          apiKey: publishableKey,
          body: usdcCharge({ toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }),
          headers: { origin: SHOP },
        }),
      403,
    ],
    ['getCharge, 200', () => callRoute(getChargeRoute, { apiKey: publishableKey, params: { chargeId }, headers: { origin: SHOP } }), 200],
  ])('%s: an allowed origin reads the answer, with the request id exposed', async (_case, call, status) => {
    const response = await call();
    expect(response.status).toBe(status);
    expect(response.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(response.headers.get('access-control-expose-headers')).toContain('x-request-id');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.has('access-control-allow-credentials')).toBe(false);
  });

  it('another origin is refused with 403 origin_not_allowed, gets no CORS grant, and nothing is stored', async () => {
    const before = await storedCounts(merchantId);
    const refused = await callRoute(createChargeRoute, {
      apiKey: publishableKey,
      body: usdcCharge(),
      headers: { origin: 'https://evil.example' },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: 'origin_not_allowed' });
    expect(refused.json.error?.message).toContain('https://evil.example');
    expect(refused.headers.has('access-control-allow-origin')).toBe(false);
    expect(await storedCounts(merchantId)).toEqual(before);
    const read = await callRoute(getChargeRoute, {
      apiKey: publishableKey,
      params: { chargeId },
      headers: { origin: 'https://evil.example' },
    });
    expect(read.status).toBe(403);
  });

  it('a new publishable key allows no origin until the dashboard adds one', async () => {
    const fresh = (await createApiKey({ merchantId, mode: 'live', kind: 'publishable' })).plaintext;
    const refused = await callRoute(createChargeRoute, {
      apiKey: fresh,
      body: usdcCharge({ successUrl: undefined, cancelUrl: undefined }),
      headers: { origin: SHOP },
    });
    expect(refused.json.error?.code).toBe('origin_not_allowed');
  });

  it('errors before the key is known grant no origin', async () => {
    const refused = await callRoute(createChargeRoute, { body: usdcCharge(), headers: { origin: SHOP } });
    expect(refused.status).toBe(401);
    expect(refused.headers.has('access-control-allow-origin')).toBe(false);
  });

  it('routes for secret keys only answer without CORS, so a browser cannot read them', async () => {
    const refused = await callRoute(listChargesRoute, { apiKey: publishableKey, headers: { origin: SHOP } });
    expect(refused.status).toBe(403);
    expect(refused.json.error?.code).toBe('key_not_permitted');
    expect(refused.headers.has('access-control-allow-origin')).toBe(false);
    const listed = await callRoute(listChargesRoute, { apiKey: secretKey });
    expect(listed.status).toBe(200);
    expect(listed.headers.has('access-control-allow-origin')).toBe(false);
  });
});

describe('charges of publishable keys send buyers back only to allowed redirect origins', () => {
  it('successUrl / cancelUrl elsewhere → 403 redirect_not_allowed naming the field; nothing stored', async () => {
    const before = await storedCounts(merchantId);
    for (const [overrides, param] of [
      [{ successUrl: 'https://phish.example/ok' }, 'chargeData.successUrl'],
      [{ cancelUrl: 'https://phish.example/back' }, 'chargeData.cancelUrl'],
    ] as const) {
      const refused = await callRoute(createChargeRoute, {
        apiKey: publishableKey,
        body: usdcCharge(overrides),
        headers: { origin: SHOP },
      });
      expect(refused.status).toBe(403);
      expect(refused.json.error).toMatchObject({ code: 'redirect_not_allowed', param });
    }
    expect(await storedCounts(merchantId)).toEqual(before);
  });

  it('none allowed by default: any redirect URL is refused; without one the charge is created', async () => {
    const fresh = (await createApiKey({ merchantId, mode: 'live', kind: 'publishable', allowedOrigins: [SHOP] })).plaintext;
    const refused = await callRoute(createChargeRoute, { apiKey: fresh, body: usdcCharge(), headers: { origin: SHOP } });
    expect(refused.json.error).toMatchObject({ code: 'redirect_not_allowed', param: 'chargeData.successUrl' });
    const created = await callRoute(createChargeRoute, {
      apiKey: fresh,
      body: usdcCharge({ successUrl: undefined, cancelUrl: undefined }),
      headers: { origin: SHOP },
    });
    expect(created.status).toBe(200);
  });

  it('secret keys are not bound by them', async () => {
    const created = await callRoute(createChargeRoute, {
      apiKey: secretKey,
      body: usdcCharge({ successUrl: 'https://anywhere.example/ok' }),
    });
    expect(created.status).toBe(200);
  });
});

describe('publishable-key calls are limited per client IP', () => {
  afterEach(() => {
    delete process.env.PUBLISHABLE_KEY_RATE_LIMIT_PER_IP;
    delete process.env.CLIENT_IP_HEADER;
    resetEnvCache();
    resetPublishableIpLimiter();
  });

  it('past the limit one IP gets 429 with Retry-After; another IP still passes', async () => {
    process.env.PUBLISHABLE_KEY_RATE_LIMIT_PER_IP = '3';
    process.env.CLIENT_IP_HEADER = 'x-test-client-ip';
    resetEnvCache();
    resetPublishableIpLimiter();
    const read = (ip: string) =>
      callRoute(getChargeRoute, { apiKey: publishableKey, params: { chargeId }, headers: { origin: SHOP, 'x-test-client-ip': ip } });
    for (let i = 0; i < 3; i++) expect((await read('198.51.100.7')).status).toBe(200);
    const limited = await read('198.51.100.7');
    expect(limited.status).toBe(429);
    expect(limited.json.error?.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await read('198.51.100.8')).status).toBe(200);
  });
});

describe('withCorsHeaders', () => {
  it('grants the origin and keeps the answer; null grants nothing', async () => {
    const response = withCorsHeaders(new Response('{"data":1}', { status: 201, headers: { 'x-request-id': 'r1' } }), SHOP);
    expect(response.status).toBe(201);
    expect(await response.text()).toBe('{"data":1}');
    expect(response.headers.get('x-request-id')).toBe('r1');
    expect(response.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(withCorsHeaders(new Response(null), null).headers.has('access-control-allow-origin')).toBe(false);
  });
});
