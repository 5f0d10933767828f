import { beforeAll, describe, expect, it } from 'vitest';
import {
  NATIVE_EVM,
  POLYGON_USDC,
  newMerchant,
  newPublishableKey,
  serveChainsWithoutNode,
  storedCounts,
  type TestMerchant,
} from '@/test/fixtures';
import { Chain, Chargeport, type FetchLike, type FlatCreateChargeParams } from '../src/index';
import { TEST_BASE_URL, routeFetch } from './route-fetch';

let merchant: TestMerchant;
beforeAll(async () => {
  serveChainsWithoutNode('SOLANA');
  merchant = await newMerchant({ verified: true });
});

function client(apiKey: string) {
  const backend = routeFetch();
  return { sdk: new Chargeport({ apiKey, baseUrl: TEST_BASE_URL, fetch: backend.fetch }), requests: backend.requests };
}

const gemPack: FlatCreateChargeParams = {
  chain: Chain.POLYGON,
  symbol: 'USDC',
  tokenAddress: POLYGON_USDC,
  successUrl: 'https://game.example/success',
  cancelUrl: 'https://game.example/cancel',
  items: [
    { name: 'Gem pack', image: 'https://game.example/gem.png', amount: '4.99', quantity: 2 },
    { name: 'Booster', amount: 0.5, quantity: 1 },
  ],
};

describe('createCharge + getCharge against the real API', () => {
  it('flat form: creates a live charge and returns { chargeId, paymentUrl } without the envelope', async () => {
    const { sdk, requests } = client(merchant.liveKey!);
    const result = await sdk.createCharge(gemPack);

    expect(Object.keys(result).sort()).toEqual(['chargeId', 'paymentUrl']);
    expect(result.chargeId).toMatch(/^ch_[0-9A-Za-z]{22}$/);
    expect(result.paymentUrl).toBe(`${TEST_BASE_URL}/checkout/${result.chargeId}`);
    // The flat form travels as the spec's body: the fields under chargeData.
    expect(JSON.parse(requests[0]!.body)).toEqual({ chargeData: gemPack });
    expect(requests[0]!.headers.get('x-api-key')).toBe(merchant.liveKey);

    const charge = await sdk.getCharge(result.chargeId);
    expect(charge).toMatchObject({
      id: result.chargeId,
      object: 'charge',
      mode: 'live',
      status: 'pending',
      chain: 'POLYGON',
      token: { symbol: 'USDC', address: POLYGON_USDC, decimals: 6 },
      amount: '10.48',
      amountBaseUnits: '10480000',
      destination: 'merchant_wallet',
      isDirectTransfer: false,
      successUrl: 'https://game.example/success',
      paymentUrl: result.paymentUrl,
    });
    expect(charge.items).toEqual([
      { name: 'Gem pack', image: 'https://game.example/gem.png', amount: '4.99', quantity: 2, lineTotal: '9.98' },
      { name: 'Booster', amount: '0.5', quantity: 1, lineTotal: '0.5' },
    ]);
    expect(charge.timeline?.[0]?.status).toBe('pending');
  });

  it('nested form: chargeData with an amount and metadata, sent as is', async () => {
    const { sdk, requests } = client(merchant.liveKey!);
    const body = {
      chargeData: {
        chain: 'SOLANA' as const,
        symbol: 'USDC',
        tokenAddress: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        amount: '12.000001',
        metadata: { orderId: 'A-17' },
      },
    };
    const { chargeId } = await sdk.createCharge(body);
    expect(JSON.parse(requests[0]!.body)).toEqual(body);

    const charge = await sdk.getCharge(chargeId);
    expect(charge).toMatchObject({
      mode: 'live',
      chain: 'SOLANA',
      amount: '12.000001',
      amountBaseUnits: '12000001',
      metadata: { orderId: 'A-17' },
    });
    expect(charge.items).toEqual([]);
  });

  it('nested form with isTest: a test charge on the test network, read back with the test key', async () => {
    const { sdk } = client(merchant.testKey);
    const { chargeId } = await sdk.createCharge({
      chargeData: { chain: Chain.POLYGON, symbol: 'POL', tokenAddress: NATIVE_EVM, items: [{ name: 'Sword', amount: '0.1', quantity: 3 }] },
      isTest: true,
    });
    const charge = await sdk.getCharge(chargeId);
    expect(charge).toMatchObject({ mode: 'test', chain: 'POLYGON_AMOY', amount: '0.3', amountBaseUnits: '300000000000000000' });
  });

  it('nested form with isDirectTransfer: tokens go to toAddress (verified merchant, production key)', async () => {
    const { sdk } = client(merchant.liveKey!);
    const to = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const { chargeId } = await sdk.createCharge({
      chargeData: { chain: Chain.POLYGON, symbol: 'USDC', tokenAddress: POLYGON_USDC, amount: '10', toAddress: to },
      isDirectTransfer: true,
    });
    expect(await sdk.getCharge(chargeId)).toMatchObject({ destination: 'direct_transfer', isDirectTransfer: true, toAddress: to });
  });

  it('idempotencyKey: a retry returns the same charge instead of creating a second one', async () => {
    const { sdk, requests } = client(merchant.liveKey!);
    const key = `order-${crypto.randomUUID()}`;
    const first = await sdk.createCharge(gemPack, { idempotencyKey: key });
    const retry = await sdk.createCharge(gemPack, { idempotencyKey: key });
    const other = await sdk.createCharge(gemPack);

    expect(retry).toEqual(first);
    expect(other.chargeId).not.toBe(first.chargeId);
    expect(requests[0]!.headers.get('idempotency-key')).toBe(key);
    // Without a key of your own the client makes one per call, for its own retries.
    expect(requests[2]!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('the answer is lost (network error, then a 503 from a proxy): retried with one key, one charge is made', async () => {
    const { fetch: real, requests } = routeFetch();
    let calls = 0;
    const flaky: FetchLike = async (url, init) => {
      calls++;
      if (calls === 1) throw new TypeError('fetch failed');
      const response = await real(url, init);
      // The server made the charge; its answer is lost on the way back.
      if (calls === 2)
        return new Response('<html>503 Service Unavailable</html>', { status: 503, headers: { 'content-type': 'text/html' } });
      return response;
    };
    const before = await storedCounts(merchant.id);
    const sdk = new Chargeport({ apiKey: merchant.liveKey!, baseUrl: TEST_BASE_URL, fetch: flaky, maxRetries: 3 });
    const { chargeId } = await sdk.createCharge(gemPack);
    expect(calls).toBe(3);
    expect(new Set(requests.map((request) => request.headers.get('idempotency-key'))).size).toBe(1);
    expect((await storedCounts(merchant.id)).charges).toBe(before.charges + 1);
    expect(chargeId).toMatch(/^ch_/);
  });

  it('a publishable key (browser) can create and read a charge', async () => {
    const publishable = await newPublishableKey(merchant.id, 'test');
    expect(publishable).toMatch(/^cp_pub_test_/);
    const { sdk } = client(publishable);
    const { chargeId } = await sdk.createCharge({ chain: Chain.POLYGON, symbol: 'POL', tokenAddress: NATIVE_EVM, amount: '1.5' });
    expect(await sdk.getCharge(chargeId)).toMatchObject({ id: chargeId, mode: 'test', amount: '1.5' });
  });
});
