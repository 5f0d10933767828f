import { beforeAll, describe, expect, it } from 'vitest';
import { GET as getChargeRoute, OPTIONS as getChargePreflight } from '@/app/api/charges/[chargeId]/route';
import { GET as listChargesRoute } from '@/app/api/charges/route';
import { POST as createChargeRoute, OPTIONS as createChargePreflight } from '@/app/api/createCharge/route';
import { callRoute, newMerchant, newPublishableKey, usdcCharge } from '@/test/fixtures';
import { CORS_HEADERS, corsPreflight, withCorsHeaders } from './cors';

let publishableKey: string;
let secretKey: string;
let chargeId: string;
beforeAll(async () => {
  const merchant = await newMerchant({ verified: true });
  secretKey = merchant.liveKey!;
  publishableKey = await newPublishableKey(merchant.id, 'live');
  const created = await callRoute(createChargeRoute, { apiKey: publishableKey, body: usdcCharge() });
  chargeId = created.json.data.chargeId;
});

describe('CORS preflight', () => {
  it.each([
    ['POST /api/createCharge', createChargePreflight],
    ['GET /api/charges/{chargeId}', getChargePreflight],
  ])('%s: 204, any origin, the headers the SDK sends, cached, no body', async (_route, preflight) => {
    const response = preflight();
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const allowedHeaders = response.headers.get('access-control-allow-headers')!.split(/,\s*/);
    expect(allowedHeaders).toEqual(expect.arrayContaining(['content-type', 'x-api-key', 'idempotency-key']));
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });

  it('never allows credentials: the API key header is the only credential, cookies play no part', () => {
    expect(corsPreflight().headers.has('access-control-allow-credentials')).toBe(false);
    expect(Object.keys(CORS_HEADERS)).not.toContain('access-control-allow-credentials');
  });
});

describe('CORS headers on the answers of publishable-key routes', () => {
  it.each([
    ['createCharge, 200', () => callRoute(createChargeRoute, { apiKey: publishableKey, body: usdcCharge() }), 200],
    ['createCharge, 401 without a key', () => callRoute(createChargeRoute, { body: usdcCharge() }), 401],
    ['createCharge, 400 on bad JSON', () => callRoute(createChargeRoute, { apiKey: publishableKey, body: '{' }), 400],
    [
      'createCharge, 403 toAddress with a publishable key',
      () =>
        callRoute(createChargeRoute, {
          apiKey: publishableKey,
          body: usdcCharge({ toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }),
        }),
      403,
    ],
    ['getCharge, 200', () => callRoute(getChargeRoute, { apiKey: publishableKey, params: { chargeId } }), 200],
    [
      'getCharge, 404 for an unknown charge',
      () => callRoute(getChargeRoute, { apiKey: publishableKey, params: { chargeId: 'ch_0000000000000000000000' } }),
      404,
    ],
  ])('%s: readable from any origin, with the request id exposed', async (_case, call, status) => {
    const response = await call();
    expect(response.status).toBe(status);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toContain('x-request-id');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.has('access-control-allow-credentials')).toBe(false);
  });

  it('routes for secret keys only answer without CORS, so a browser cannot read them', async () => {
    const refused = await callRoute(listChargesRoute, { apiKey: publishableKey });
    expect(refused.status).toBe(403);
    expect(refused.json.error?.code).toBe('key_not_permitted');
    expect(refused.headers.has('access-control-allow-origin')).toBe(false);
    const listed = await callRoute(listChargesRoute, { apiKey: secretKey });
    expect(listed.status).toBe(200);
    expect(listed.headers.has('access-control-allow-origin')).toBe(false);
  });
});

describe('withCorsHeaders', () => {
  it('adds the headers and keeps the answer', async () => {
    const response = withCorsHeaders(new Response('{"data":1}', { status: 201, headers: { 'x-request-id': 'r1' } }));
    expect(response.status).toBe(201);
    expect(await response.text()).toBe('{"data":1}');
    expect(response.headers.get('x-request-id')).toBe('r1');
    for (const [name, value] of Object.entries(CORS_HEADERS)) expect(response.headers.get(name)).toBe(value);
  });
});
