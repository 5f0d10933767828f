import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { charges, usdPrices } from '@/lib/db/schema';
import { GET as getChargeRoute } from '@/app/api/charges/[chargeId]/route';
import { loadCheckoutView } from '@/lib/charges/checkout-view';
import { NATIVE_EVM, POLYGON_USDC, callRoute, newMerchant, storedCounts, type TestMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { POST } from './route';

// usd_prices is one row per token for the whole database: a private one keeps other files' prices out.
let merchant: TestMerchant;
beforeAll(async () => {
  await switchToPrivateDatabase('pricing');
  merchant = await newMerchant({ verified: true });
});

async function setPolPrice(usd: string, ageMs = 0) {
  const fetchedAt = new Date(Date.now() - ageMs);
  await getDb()
    .insert(usdPrices)
    .values({ priceId: 'polygon-ecosystem-token', usd, fetchedAt })
    .onConflictDoUpdate({ target: usdPrices.priceId, set: { usd, fetchedAt } });
}

const usdcPriced = (pricing: unknown, extra: Record<string, unknown> = {}) => ({
  chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: POLYGON_USDC, pricing, ...extra },
});
const polPriced = (pricing: unknown, extra: Record<string, unknown> = {}) => ({
  chargeData: { symbol: 'POL', chain: 'POLYGON', tokenAddress: NATIVE_EVM, pricing, ...extra },
  isTest: true,
});

async function readCharge(chargeId: string, apiKey: string) {
  return (await callRoute(getChargeRoute, { apiKey, params: { chargeId } })).json.data;
}

describe('createCharge with chargeData.pricing in USD', () => {
  it('a stablecoin is at par: $4.99 is 4.99 USDC, rate "1" recorded as par', async () => {
    const res = await callRoute(POST, { apiKey: merchant.liveKey, body: usdcPriced({ currency: 'USD', amount: '4.99' }) });
    expect(res.status).toBe(200);
    const charge = await readCharge(res.json.data.chargeId, merchant.liveKey!);
    expect(charge).toMatchObject({ amount: '4.99', amountBaseUnits: '4990000', items: [] });
    expect(charge.pricing).toMatchObject({ currency: 'USD', amount: '4.99', rate: '1', rateSource: 'par' });
  });

  it('converts at the fresh feed rate, rounded up to the token decimals, and records the rate', async () => {
    await setPolPrice('0.2345');
    const res = await callRoute(POST, { apiKey: merchant.testKey, body: polPriced({ currency: 'USD', amount: 4.99 }) });
    expect(res.status).toBe(200);
    const charge = await readCharge(res.json.data.chargeId, merchant.testKey);
    // 4.99 / 0.2345 = 21.279317697228144989…, rounded up at 18 decimals.
    expect(charge.amount).toBe('21.27931769722814499');
    expect(charge.amountBaseUnits).toBe('21279317697228144990');
    expect(charge.pricing).toMatchObject({ currency: 'USD', amount: '4.99', rate: '0.2345', rateSource: 'price_feed' });
    expect(Date.parse(charge.pricing.rateAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('locks the rate for the charge: a later price changes nothing on it (API and checkout)', async () => {
    await setPolPrice('0.5');
    const res = await callRoute(POST, { apiKey: merchant.testKey, body: polPriced({ currency: 'USD', amount: '1.00' }) });
    const chargeId = res.json.data.chargeId;
    await setPolPrice('0.25');
    const charge = await readCharge(chargeId, merchant.testKey);
    expect(charge.amount).toBe('2');
    expect(charge.pricing.rate).toBe('0.5');
    const view = await loadCheckoutView(chargeId);
    expect(view).toMatchObject({ total: '2', pricing: { usd: '1', rate: '0.5', rateSource: 'price_feed' } });
  });

  it('with items, their amounts are USD unit prices: each converted (rounded up) and the total is the sum of the lines', async () => {
    await setPolPrice('3');
    const items = [
      { name: 'Sword', amount: '1', quantity: 2 },
      { name: 'Shield', amount: '0.5', quantity: 1 },
    ];
    const res = await callRoute(POST, { apiKey: merchant.testKey, body: polPriced({ currency: 'USD', amount: '2.50' }, { items }) });
    expect(res.status).toBe(200);
    const charge = await readCharge(res.json.data.chargeId, merchant.testKey);
    expect(charge.items).toMatchObject([
      { name: 'Sword', amount: '0.333333333333333334', quantity: 2, lineTotal: '0.666666666666666668' },
      { name: 'Shield', amount: '0.166666666666666667', quantity: 1, lineTotal: '0.166666666666666667' },
    ]);
    expect(charge.amount).toBe('0.833333333333333335');
  });

  const refusals: [string, () => Promise<{ body: unknown; apiKey: string }>, number, string, string, RegExp][] = [
    [
      'no rate at all (the feed never priced it)',
      async () => {
        await getDb().delete(usdPrices).where(eq(usdPrices.priceId, 'polygon-ecosystem-token'));
        return { body: polPriced({ currency: 'USD', amount: '1' }), apiKey: merchant.testKey };
      },
      422,
      'price_unavailable',
      'chargeData.pricing',
      /No fresh USD rate for POL on POLYGON_AMOY/,
    ],
    [
      'a stale rate (older than 15 minutes)',
      async () => {
        await setPolPrice('0.3', 16 * 60_000);
        return { body: polPriced({ currency: 'USD', amount: '1' }), apiKey: merchant.testKey };
      },
      422,
      'price_unavailable',
      'chargeData.pricing',
      /retry later/,
    ],
    [
      'more than cents',
      async () => ({ body: usdcPriced({ currency: 'USD', amount: '4.999' }), apiKey: merchant.liveKey! }),
      422,
      'invalid_amount',
      'chargeData.pricing.amount',
      /more than 2 fractional digits/,
    ],
    [
      'pricing and amount together',
      async () => ({ body: usdcPriced({ currency: 'USD', amount: '1' }, { amount: '1' }), apiKey: merchant.liveKey! }),
      400,
      'invalid_request',
      'chargeData.amount',
      /not both/,
    ],
    [
      'items whose USD prices do not add up to pricing.amount',
      async () => ({
        body: usdcPriced({ currency: 'USD', amount: '5' }, { items: [{ name: 'Gem', amount: '4.99', quantity: 1 }] }),
        apiKey: merchant.liveKey!,
      }),
      422,
      'amount_mismatch',
      'chargeData.pricing.amount',
      /items' total 4.99 USD/,
    ],
    [
      'a currency other than USD',
      async () => ({ body: usdcPriced({ currency: 'EUR', amount: '1' }), apiKey: merchant.liveKey! }),
      400,
      'invalid_request',
      'chargeData.pricing.currency',
      /./,
    ],
  ];

  it.each(refusals)('refuses %s with %i %s and stores nothing', async (_name, setup, status, code, param, message) => {
    const before = await storedCounts(merchant.id);
    const { body, apiKey } = await setup();
    const res = await callRoute(POST, { apiKey, body });
    expect(res.status).toBe(status);
    expect(res.json.error).toMatchObject({ code, param });
    expect(res.json.error!.message).toMatch(message);
    expect(await storedCounts(merchant.id)).toEqual(before);
  });

  it('a USD price below the token’s smallest charge is refused like a token-priced one, and stores nothing (dust)', async () => {
    const before = await storedCounts(merchant.id);
    const usdc = await callRoute(POST, { apiKey: merchant.liveKey, body: usdcPriced({ currency: 'USD', amount: '0.09' }) });
    expect(usdc.status).toBe(422);
    expect(usdc.json.error).toMatchObject({ code: 'amount_below_minimum', param: 'chargeData.pricing.amount' });
    expect(usdc.json.error?.message).toMatch(/smallest charge in USDC is 0\.1 USDC \(this one totals 0\.09, \$0\.09 at 1 USD per USDC\)/);
    await setPolPrice('2');
    // $0.10 at $2 a POL is 0.05 POL, below POL's 0.1.
    const pol = await callRoute(POST, { apiKey: merchant.testKey, body: polPriced({ currency: 'USD', amount: '0.10' }) });
    expect(pol.status).toBe(422);
    expect(pol.json.error?.code).toBe('amount_below_minimum');
    expect(await storedCounts(merchant.id)).toEqual(before);
    // At the minimum it is a charge.
    const enough = await callRoute(POST, { apiKey: merchant.testKey, body: polPriced({ currency: 'USD', amount: '0.20' }) });
    expect(enough.status).toBe(200);
  });

  it('charges priced in tokens carry pricing: null', async () => {
    const res = await callRoute(POST, {
      apiKey: merchant.liveKey,
      body: { chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: POLYGON_USDC, amount: '1' } },
    });
    const [row] = await getDb().select().from(charges).where(eq(charges.id, res.json.data.chargeId));
    expect(row!.pricing).toBeNull();
    expect((await readCharge(res.json.data.chargeId, merchant.liveKey!)).pricing).toBeNull();
  });
});
