import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { chargeEvents, charges } from '@/lib/db/schema';
import {
  NATIVE_EVM,
  POLYGON_USDC,
  callRoute,
  newMerchant,
  serveChainsWithoutNode,
  testCharge,
  usdcCharge,
  type TestMerchant,
} from '@/test/fixtures';
import { POST } from './route';

let merchant: TestMerchant;
beforeAll(async () => {
  serveChainsWithoutNode('SOLANA');
  merchant = await newMerchant({ verified: true });
});

async function storedCharge(chargeId: string) {
  const [row] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  return row!;
}

describe('POST /api/createCharge — happy paths', () => {
  it('answers 200 { data: { paymentUrl, chargeId }, error: null } with a checkout URL for the charge', async () => {
    const res = await callRoute(POST, { apiKey: merchant.liveKey, body: usdcCharge() });
    expect(res.status).toBe(200);
    expect(res.json.error).toBeNull();
    expect(Object.keys(res.json.data).sort()).toEqual(['chargeId', 'paymentUrl']);
    expect(res.json.data.chargeId).toMatch(/^ch_[0-9A-Za-z]{22}$/);
    expect(res.json.data.paymentUrl).toBe(`http://localhost:3999/checkout/${res.json.data.chargeId}`);
    const row = await storedCharge(res.json.data.chargeId);
    expect(row.merchantId).toBe(merchant.id);
    expect(row.mode).toBe('live');
    expect(row.status).toBe('pending');
    expect(row.totalBaseUnits).toBe(4_990_000n);
    expect(row.tokenDecimals).toBe(6);
  });

  it('computes Σ amount × quantity exactly: 0.1 × 3 is 0.3, not 0.30000000000000004', async () => {
    const res = await callRoute(POST, { apiKey: merchant.testKey, body: testCharge() });
    expect(res.status).toBe(200);
    const row = await storedCharge(res.json.data.chargeId);
    expect(row.totalBaseUnits).toBe(300_000_000_000_000_000n);
    expect(row.items[0]).toMatchObject({ amount: '0.1', quantity: 3, lineTotalBaseUnits: '300000000000000000' });
  });

  it('keeps JSON numbers exact: digits a float would lose are stored as sent', async () => {
    const body = `{"chargeData":{"symbol":"POL","chain":"POLYGON","tokenAddress":"${NATIVE_EVM}","amount":12345678901234567.123456789012345678},"isTest":true}`;
    const res = await callRoute(POST, { apiKey: merchant.testKey, body });
    expect(res.status).toBe(200);
    expect((await storedCharge(res.json.data.chargeId)).totalBaseUnits).toBe(12345678901234567123456789012345678n);
  });

  it('accepts amounts as strings and in exponent form', async () => {
    const asString = await callRoute(POST, { apiKey: merchant.liveKey, body: usdcCharge({ items: undefined, amount: '2.5' }) });
    const asExponent = await callRoute(POST, {
      apiKey: merchant.liveKey,
      body: `{"chargeData":{"symbol":"USDC","chain":"POLYGON","tokenAddress":"${POLYGON_USDC}","amount":2.5e-1}}`,
    });
    expect((await storedCharge(asString.json.data.chargeId)).totalBaseUnits).toBe(2_500_000n);
    expect((await storedCharge(asExponent.json.data.chargeId)).totalBaseUnits).toBe(250_000n);
  });

  it('accepts amount together with items when they agree', async () => {
    const res = await callRoute(POST, {
      apiKey: merchant.liveKey,
      body: usdcCharge({
        items: [
          { name: 'A', amount: '1.25', quantity: 2 },
          { name: 'B', amount: 0.5, quantity: 1 },
        ],
        amount: 3,
      }),
    });
    expect(res.status).toBe(200);
    expect((await storedCharge(res.json.data.chargeId)).totalBaseUnits).toBe(3_000_000n);
  });

  it('runs test charges on the test network of the named chain, with a test key', async () => {
    for (const top of [{ isTest: true }, {}]) {
      const res = await callRoute(POST, { apiKey: merchant.testKey, body: { ...testCharge(), isTest: undefined, ...top } });
      expect(res.status).toBe(200);
      const row = await storedCharge(res.json.data.chargeId);
      expect(row.mode).toBe('test');
      expect(row.chain).toBe('POLYGON_AMOY');
    }
  });

  it('accepts the test network by name, and MATIC as the old symbol of POL', async () => {
    const res = await callRoute(POST, { apiKey: merchant.testKey, body: testCharge({ chain: 'POLYGON_AMOY', symbol: 'MATIC' }) });
    expect(res.status).toBe(200);
    expect((await storedCharge(res.json.data.chargeId)).tokenSymbol).toBe('POL');
  });

  it('makes a deliver-to-wallet charge when toAddress is given without isDirectTransfer', async () => {
    const to = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
    const res = await callRoute(POST, { apiKey: merchant.liveKey, body: usdcCharge({ toAddress: to }) });
    const row = await storedCharge(res.json.data.chargeId);
    expect(row.destination).toBe('to_address');
    expect(row.isDirectTransfer).toBe(false);
    expect(row.toAddress).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
  });

  it("makes a direct transfer with a verified merchant's production key", async () => {
    const res = await callRoute(POST, {
      apiKey: merchant.liveKey,
      body: usdcCharge(
        { toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', items: undefined, amount: 10 },
        { isDirectTransfer: true },
      ),
    });
    expect(res.status).toBe(200);
    const row = await storedCharge(res.json.data.chargeId);
    expect(row.destination).toBe('direct_transfer');
    expect(row.isDirectTransfer).toBe(true);
  });

  it('accepts Solana charges: wrapped-SOL mint for SOL, USDC mint, base58 toAddress', async () => {
    const sol = await callRoute(POST, {
      apiKey: merchant.liveKey,
      body: {
        chargeData: { symbol: 'SOL', chain: 'SOLANA', tokenAddress: 'So11111111111111111111111111111111111111112', amount: 0.000500001 },
      },
    });
    expect(sol.status).toBe(200);
    expect((await storedCharge(sol.json.data.chargeId)).totalBaseUnits).toBe(500_001n);
    const usdc = await callRoute(POST, {
      apiKey: merchant.liveKey,
      body: {
        chargeData: {
          symbol: 'USDC',
          chain: 'SOLANA',
          tokenAddress: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          amount: 1,
          toAddress: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
        },
      },
    });
    expect(usdc.status).toBe(200);
    expect((await storedCharge(usdc.json.data.chargeId)).toAddress).toBe('9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM');
  });

  it('stores metadata and records the creation as the first timeline event', async () => {
    const res = await callRoute(POST, { apiKey: merchant.liveKey, body: usdcCharge({ metadata: { orderId: 'A-1001' } }) });
    const row = await storedCharge(res.json.data.chargeId);
    expect(row.metadata).toEqual({ orderId: 'A-1001' });
    const events = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, row.id));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'charge.pending', fromStatus: null, toStatus: 'pending' });
    expect(events[0]!.actor).toMatch(/^api_key:key_/);
  });

  it('sets expiresAt 60 minutes ahead by default', async () => {
    const before = Date.now();
    const res = await callRoute(POST, { apiKey: merchant.liveKey, body: usdcCharge() });
    const row = await storedCharge(res.json.data.chargeId);
    const minutes = (row.expiresAt.getTime() - before) / 60_000;
    expect(minutes).toBeGreaterThan(59.9);
    expect(minutes).toBeLessThan(60.1);
  });
});
