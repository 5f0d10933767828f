import { eq, inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { expireDueCharges } from '@/lib/charges/expire-charges';
import { transitionCharge } from '@/lib/charges/transition-charge';
import { IllegalTransitionError } from '@/lib/state-machine';
import { getDb } from '@/lib/db/client';
import { chargeEvents, charges } from '@/lib/db/schema';
import { callRoute, newMerchant, newPublishableKey, testCharge, usdcCharge, type TestMerchant } from '@/test/fixtures';
import { scanChargesToHead } from '@/test/scanner';
import { POST as createChargeRoute } from '../createCharge/route';
import { POST as cancelRoute } from './[chargeId]/cancel/route';
import { GET as getRoute } from './[chargeId]/route';
import { GET as listRoute } from './route';

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await newMerchant();
});

async function create(apiKey: string, body: unknown = usdcCharge()): Promise<string> {
  const res = await callRoute(createChargeRoute, { apiKey, body });
  expect(res.status).toBe(200);
  return res.json.data.chargeId;
}

async function pastExpiry(chargeId: string): Promise<void> {
  await getDb()
    .update(charges)
    .set({ expiresAt: new Date(Date.now() - 10_000) })
    .where(eq(charges.id, chargeId));
  // Expiry waits until the chain's watcher has scanned past expiresAt.
  await scanChargesToHead('POLYGON');
}

describe('GET /api/charges/{chargeId}', () => {
  it('returns the charge as created, with exact amounts and its timeline', async () => {
    const chargeId = await create(
      merchant.liveKey!,
      usdcCharge({
        items: [{ name: 'Dragon skin', image: 'https://g.example/d.png', amount: 0.1, quantity: 3 }],
        metadata: { orderId: '42' },
      }),
    );
    const res = await callRoute(getRoute, { apiKey: merchant.liveKey, params: { chargeId } });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      id: chargeId,
      object: 'charge',
      mode: 'live',
      status: 'pending',
      chain: 'POLYGON',
      token: { symbol: 'USDC', decimals: 6 },
      amount: '0.3',
      amountBaseUnits: '300000',
      items: [{ name: 'Dragon skin', image: 'https://g.example/d.png', amount: '0.1', quantity: 3, lineTotal: '0.3' }],
      destination: 'merchant_wallet',
      metadata: { orderId: '42' },
      paymentUrl: `http://localhost:3999/checkout/${chargeId}`,
    });
    expect(res.json.data.timeline).toEqual([{ status: 'pending', type: 'charge.pending', at: expect.any(String) }]);
  });

  it("a test key does not see live charges (404), and a publishable key may read its merchant's charges", async () => {
    const chargeId = await create(merchant.liveKey!);
    expect((await callRoute(getRoute, { apiKey: merchant.testKey, params: { chargeId } })).status).toBe(404);
    const publishable = await newPublishableKey(merchant.id, 'live');
    expect((await callRoute(getRoute, { apiKey: publishable, params: { chargeId } })).status).toBe(200);
  });

  it('an unknown id is 404 not_found', async () => {
    const res = await callRoute(getRoute, { apiKey: merchant.liveKey, params: { chargeId: 'ch_nope' } });
    expect(res.status).toBe(404);
    expect(res.json.error?.code).toBe('not_found');
  });
});

describe('GET /api/charges', () => {
  it('pages newest first with limit / starting_after / has_more, without gaps or repeats', async () => {
    const own = await newMerchant();
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push(await create(own.liveKey!));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const res = await callRoute(listRoute, {
        apiKey: own.liveKey,
        path: `/api/charges?limit=2${cursor ? `&starting_after=${cursor}` : ''}`,
      });
      expect(res.status).toBe(200);
      expect(res.json.data.object).toBe('list');
      pages++;
      seen.push(...res.json.data.data.map((c: { id: string }) => c.id));
      if (!res.json.data.has_more) break;
      cursor = seen.at(-1);
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it('pages charges created within the same millisecond (PostgreSQL keeps microseconds) without skipping any', async () => {
    const own = await newMerchant();
    const ids = [await create(own.liveKey!), await create(own.liveKey!), await create(own.liveKey!)];
    const stamps = ['2026-01-01 00:00:00.000300+00', '2026-01-01 00:00:00.000200+00', '2026-01-01 00:00:00.000100+00'];
    for (const [index, id] of ids.entries()) {
      await getDb().execute(sql`update charges set created_at = ${stamps[index]}::timestamptz where id = ${id}`);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await callRoute(listRoute, {
        apiKey: own.liveKey,
        path: `/api/charges?limit=1${cursor ? `&starting_after=${cursor}` : ''}`,
      });
      seen.push(...res.json.data.data.map((c: { id: string }) => c.id));
      if (!res.json.data.has_more) break;
      cursor = seen.at(-1);
    }
    expect(seen).toEqual(ids);
  });

  it("filters by status and created range, and only ever lists the key's own merchant and mode", async () => {
    const own = await newMerchant();
    const other = await newMerchant();
    const a = await create(own.liveKey!);
    const b = await create(own.liveKey!);
    await create(other.liveKey!);
    await create(own.testKey, testCharge());
    await callRoute(cancelRoute, { apiKey: own.liveKey, params: { chargeId: a } });

    const canceled = await callRoute(listRoute, { apiKey: own.liveKey, path: '/api/charges?status=canceled' });
    expect(canceled.json.data.data.map((c: { id: string }) => c.id)).toEqual([a]);
    const all = await callRoute(listRoute, { apiKey: own.liveKey, path: '/api/charges' });
    expect(all.json.data.data.map((c: { id: string }) => c.id).sort()).toEqual([a, b].sort());
    const future = await callRoute(listRoute, {
      apiKey: own.liveKey,
      path: `/api/charges?created_gte=${new Date(Date.now() + 60_000).toISOString()}`,
    });
    expect(future.json.data.data).toEqual([]);
    const past = await callRoute(listRoute, {
      apiKey: own.liveKey,
      path: `/api/charges?created_lt=${new Date(Date.now() + 60_000).toISOString()}`,
    });
    expect(past.json.data.data).toHaveLength(2);
    // A date is midnight UTC; a date-time may carry its offset (encoded: a bare + reads as a space).
    const sinceYesterday = await callRoute(listRoute, {
      apiKey: own.liveKey,
      path: `/api/charges?created_gte=${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}`,
    });
    expect(sinceYesterday.json.data.data).toHaveLength(2);
    const inAnHourThere = new Date(Date.now() + 3_600_000 + 2 * 3_600_000).toISOString().slice(0, 19);
    const withOffset = await callRoute(listRoute, { apiKey: own.liveKey, path: `/api/charges?created_lt=${inAnHourThere}%2B02:00` });
    expect(withOffset.json.data.data).toHaveLength(2);
    const beforeThem = await callRoute(listRoute, {
      apiKey: own.liveKey,
      path: `/api/charges?created_lt=${new Date(Date.now() - 3_600_000 + 2 * 3_600_000).toISOString().slice(0, 19)}%2B02:00`,
    });
    expect(beforeThem.json.data.data).toEqual([]);
    const testList = await callRoute(listRoute, { apiKey: own.testKey, path: '/api/charges' });
    expect(testList.json.data.data.every((c: { mode: string }) => c.mode === 'test')).toBe(true);
  });

  it('refuses bad queries clearly', async () => {
    const cases: [string, number, string, string][] = [
      ['/api/charges?limit=0', 400, 'invalid_request', 'limit'],
      ['/api/charges?limit=101', 400, 'invalid_request', 'limit'],
      ['/api/charges?status=paid', 400, 'invalid_request', 'status'],
      ['/api/charges?starting_after=ch_unknown', 400, 'invalid_request', 'starting_after'],
      ['/api/charges?mode=test', 403, 'test_key_required', 'mode'],
      ['/api/charges?colour=red', 400, 'invalid_request', 'colour'],
      // Time bounds are ISO 8601, never guessed: Date alone reads "1" as 2001 and 2026-02-31 as March 3.
      ['/api/charges?created_gte=1', 400, 'invalid_request', 'created_gte'],
      ['/api/charges?created_lt=2026-02-31', 400, 'invalid_request', 'created_lt'],
      ['/api/charges?created_gte=March%201%2C%202026', 400, 'invalid_request', 'created_gte'],
      ['/api/charges?created_gte=2026-01-31T12:00:00', 400, 'invalid_request', 'created_gte'],
    ];
    for (const [path, status, code, param] of cases) {
      const res = await callRoute(listRoute, { apiKey: merchant.liveKey, path });
      expect([path, res.status, res.json.error?.code, res.json.error?.param]).toEqual([path, status, code, param]);
    }
  });

  it('is not open to publishable keys', async () => {
    const publishable = await newPublishableKey(merchant.id);
    const res = await callRoute(listRoute, { apiKey: publishable, path: '/api/charges' });
    expect(res.status).toBe(403);
    expect(res.json.error?.code).toBe('key_not_permitted');
  });
});

describe('POST /api/charges/{chargeId}/cancel', () => {
  it('cancels a pending charge and records it; a second cancel is 409', async () => {
    const chargeId = await create(merchant.liveKey!);
    const res = await callRoute(cancelRoute, { apiKey: merchant.liveKey, params: { chargeId } });
    expect(res.status).toBe(200);
    expect(res.json.data.status).toBe('canceled');
    expect(res.json.data.timeline.map((t: { status: string }) => t.status)).toEqual(['pending', 'canceled']);
    const again = await callRoute(cancelRoute, { apiKey: merchant.liveKey, params: { chargeId } });
    expect(again.status).toBe(409);
    expect(again.json.error?.code).toBe('charge_not_cancelable');
  });

  it('another merchant cannot cancel it (404) and it stays pending', async () => {
    const chargeId = await create(merchant.liveKey!);
    const stranger = await newMerchant();
    const res = await callRoute(cancelRoute, { apiKey: stranger.liveKey, params: { chargeId } });
    expect(res.status).toBe(404);
    const [row] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
    expect(row!.status).toBe('pending');
  });
});

describe('expiry and the state machine', () => {
  it('the background sweep expires lapsed pending charges and records the event', async () => {
    const chargeId = await create(merchant.liveKey!);
    const fresh = await create(merchant.liveKey!);
    await pastExpiry(chargeId);
    await expireDueCharges();
    const rows = await getDb()
      .select()
      .from(charges)
      .where(inArray(charges.id, [chargeId, fresh]));
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({ [chargeId]: 'expired', [fresh]: 'pending' });
    const events = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
    expect(events.map((e) => [e.fromStatus, e.toStatus, e.actor])).toContainEqual(['pending', 'expired', 'system:expiry']);
  });

  it('two sweeps running at once expire each charge exactly once', async () => {
    const ids = [await create(merchant.liveKey!), await create(merchant.liveKey!), await create(merchant.liveKey!)];
    for (const id of ids) await pastExpiry(id);
    await Promise.all([expireDueCharges(), expireDueCharges(), expireDueCharges()]);
    const events = await getDb().select().from(chargeEvents).where(inArray(chargeEvents.chargeId, ids));
    expect(events.filter((e) => e.toStatus === 'expired')).toHaveLength(3);
  });

  it('an expired charge cannot be canceled, and illegal transitions are refused in one place', async () => {
    const chargeId = await create(merchant.liveKey!);
    await pastExpiry(chargeId);
    await expireDueCharges();
    const res = await callRoute(cancelRoute, { apiKey: merchant.liveKey, params: { chargeId } });
    expect(res.status).toBe(409);
    await expect(getDb().transaction((tx) => transitionCharge(tx, { chargeId, to: 'succeeded', actor: 'test' }))).rejects.toBeInstanceOf(
      IllegalTransitionError,
    );
  });

  it('concurrent cancel and expiry: exactly one wins', async () => {
    const chargeId = await create(merchant.liveKey!);
    await pastExpiry(chargeId);
    const results = await Promise.allSettled([
      callRoute(cancelRoute, { apiKey: merchant.liveKey, params: { chargeId } }),
      expireDueCharges(),
    ]);
    const events = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
    const finals = events.filter((e) => e.toStatus === 'canceled' || e.toStatus === 'expired');
    expect(finals).toHaveLength(1);
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
  });
});
