/**
 * createTestCharge (test/fixtures.ts) stands in for this route in every other domain's tests: it must make
 * the charge the route makes and refuse what the route refuses, with the same code. These cases hold the two
 * alike, so a change to the route's call of createCharge that the fixture misses fails here.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { chargeEvents, charges, depositAddresses, webhookEvents } from '@/lib/db/schema';
import { appError } from '@/test/accounts';
import { callRoute, createTestCharge, newMerchant, newPublishableKey, testCharge, usdcCharge, type TestMerchant } from '@/test/fixtures';
import { POST } from './route';

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await newMerchant({ verified: true });
});

/** What createCharge stored for a charge, without what differs between any two charges (ids, instants). */
async function stored(chargeId: string) {
  const db = getDb();
  const [charge] = await db.select().from(charges).where(eq(charges.id, chargeId));
  const [deposit] = await db.select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
  const events = await db.select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
  const outbox = await db.select().from(webhookEvents).where(eq(webhookEvents.chargeId, chargeId));
  const { id: _id, createdAt: _c, updatedAt: _u, expiresAt: _e, ...rest } = charge!;
  return {
    charge: rest,
    deposit: { chain: deposit!.chain, family: deposit!.family, hasReference: deposit!.reference !== null },
    events: events.map((e) => ({ type: e.type, actor: e.actor, hasRequestId: typeof e.data.requestId === 'string' })),
    outbox: outbox.map((e) => e.type),
  };
}

describe('createTestCharge makes what POST /api/createCharge makes', () => {
  it.each([
    ['a live USDC charge with items', () => merchant.liveKey!, () => usdcCharge()],
    ['a test charge whose JSON amounts a float would round (0.1 × 3)', () => merchant.testKey, () => testCharge()],
    [
      'a direct transfer',
      () => merchant.liveKey!,
      () => usdcCharge({ toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }, { isDirectTransfer: true }),
    ],
  ])('%s: the same rows, event, outbox entry and answer', async (_case, key, body) => {
    const viaRoute = await callRoute(POST, { apiKey: key(), body: body() });
    expect(viaRoute.status, JSON.stringify(viaRoute.json.error)).toBe(200);
    const viaFixture = await createTestCharge({ apiKey: key(), body: body() });

    expect(await stored(viaFixture.chargeId)).toEqual(await stored(viaRoute.json.data.chargeId));
    expect(viaFixture.paymentUrl).toBe(viaRoute.json.data.paymentUrl.replace(viaRoute.json.data.chargeId, viaFixture.chargeId));
    const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, viaFixture.chargeId));
    expect(viaFixture.deposit).toEqual({ address: deposit!.address, reference: deposit!.reference });
  });

  it('a publishable key: the charge is marked as made with one', async () => {
    const publishable = await newPublishableKey(merchant.id);
    const viaRoute = await callRoute(POST, { apiKey: publishable, body: testCharge() });
    const viaFixture = await createTestCharge({ apiKey: publishable, body: testCharge() });
    expect(viaFixture.charge.viaPublishableKey).toBe(true);
    expect(await stored(viaFixture.chargeId)).toEqual(await stored(viaRoute.json.data.chargeId));
  });

  it.each([
    ['no key', () => undefined, () => usdcCharge()],
    ['a key that is not one', () => 'cp_live_nope', () => usdcCharge()],
    ['isTest with a live key', () => merchant.liveKey!, () => usdcCharge({}, { isTest: true })],
    ['a field the schema does not know', () => merchant.liveKey!, () => usdcCharge({}, { extra: 1 })],
    ['more decimals than the token has', () => merchant.liveKey!, () => usdcCharge({ items: undefined, amount: '1.0000001' })],
    [
      'a direct transfer with a test key',
      () => merchant.testKey,
      () => testCharge({ toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }, { isDirectTransfer: true }),
    ],
  ])('%s: the same refusal (code, param, status)', async (_case, key, body) => {
    const viaRoute = await callRoute(POST, { apiKey: key(), body: body() });
    const refused = await appError(createTestCharge({ apiKey: key(), body: body() }));
    expect(viaRoute.json.error).not.toBeNull();
    expect({ code: refused.code, param: refused.param, status: refused.status }).toEqual({
      code: viaRoute.json.error!.code,
      param: viaRoute.json.error!.param,
      status: viaRoute.status,
    });
  });
});
