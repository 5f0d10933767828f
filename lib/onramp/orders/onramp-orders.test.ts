/**
 * On-ramp orders against the real database: provider filtering by country/chain/token, quotes, the
 * minimum rule, and provider webhooks (signature, duplicates, out-of-order, mismatches, charge payments).
 * Providers run as the sandbox provider plays them here (no credentials configured); its session API is
 * answered by a stand-in at APP_URL, since no web server runs under vitest.
 */
import { count, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/lib/db/client';
import { charges, onrampOrderEvents, onrampOrders, webhookEvents } from '@/lib/db/schema';
import { signSandboxWebhook } from '@/lib/onramp/providers/sandbox';
import { createTestCharge, newMerchant, usdcCharge } from '@/test/fixtures';
import { isAppError, type AppError } from '@/lib/errors';
import { payChargeWithFiat } from '../pay-charge-with-fiat';
import { quoteOnramp } from '../quote-onramp';
import { offeredProviders } from '../registry/offered-providers';
import { applyProviderWebhook } from './apply-provider-webhook';
import { expireDueOnrampOrders } from './expire-orders';
import { placeOnrampOrder } from './place-order';

const SECRET = process.env.SANDBOX_PROVIDER_SECRET!;
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
let sessionRequests: Record<string, unknown>[] = [];
let sessionStatus = 201;

beforeEach(() => {
  sessionRequests = [];
  sessionStatus = 201;
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith(`${process.env.APP_URL}/sandbox-provider/api/quote`)) {
      const query = new URL(url).searchParams;
      const amount = query.get('cryptoAmount')!;
      return Response.json({
        data: {
          cryptoAmount: amount,
          fiatCurrency: 'USD',
          rate: '1',
          providerFee: '0',
          networkFee: '0',
          total: amount,
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
        },
      });
    }
    if (!url.startsWith(`${process.env.APP_URL}/sandbox-provider/api/sessions`)) return realFetch(input, init);
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    sessionRequests.push({ ...body, authorization: new Headers(init?.headers).get('authorization') });
    if (sessionStatus !== 201) return Response.json({ error: { code: 'unavailable', message: 'down' } }, { status: sessionStatus });
    return Response.json(
      {
        data: {
          sessionId: `ses_${sessionRequests.length}`,
          url: `${process.env.APP_URL}/sandbox-provider/pay/ses_${sessionRequests.length}`,
          expiresAt: new Date(Date.now() + 1_800_000).toISOString(),
        },
      },
      { status: 201 },
    );
  });
});
afterEach(() => vi.restoreAllMocks());

async function expectAppError(promise: Promise<unknown>, code: string): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isAppError(error), String(error)).toBe(true);
  expect((error as AppError).code).toBe(code);
  return error as AppError;
}

function sandboxWebhook(data: Record<string, unknown>, options: { secret?: string; at?: number } = {}) {
  const rawBody = JSON.stringify({
    id: `evt_${Math.random()}`,
    type: 'order.updated',
    createdAt: new Date().toISOString(),
    data: { updatedAt: new Date().toISOString(), ...data },
  });
  const at = options.at ?? Math.floor(Date.now() / 1000);
  return { rawBody, headers: { 'sandbox-signature': signSandboxWebhook(options.secret ?? SECRET, rawBody, at) } };
}

async function orderRow(orderId: string) {
  const [row] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, orderId));
  return row!;
}

async function eventCount(orderId: string): Promise<number> {
  const [row] = await getDb().select({ n: count() }).from(onrampOrderEvents).where(eq(onrampOrderEvents.orderId, orderId));
  return row!.n;
}

describe('providers offered by location, chain and token', () => {
  it('shows every provider, unavailable ones with the reason, available first', async () => {
    const us = await offeredProviders({ country: 'US', chain: 'POLYGON', tokenSymbol: 'POL' });
    expect(us.map((p) => [p.providerId, p.available])).toEqual([
      ['moonpay', true],
      ['transak', false],
    ]);
    expect(us[1]!.reason).toBe('Transak does not sell POL on Polygon');
    expect(us[0]!.methods[0]).toBe('card');
    expect(us[0]!.minimumUsd).toBe('20');
  });

  it('offers BNB Smart Chain USDC only outside the United States, and only through Transak', async () => {
    const us = await offeredProviders({ country: 'US', chain: 'BSC', tokenSymbol: 'USDC' });
    expect(us.every((p) => !p.available)).toBe(true);
    expect(us.find((p) => p.providerId === 'transak')!.reason).toBe('Transak does not sell USDC on BNB Smart Chain in United States');
    const de = await offeredProviders({ country: 'DE', chain: 'BSC', tokenSymbol: 'USDC' });
    expect(de.filter((p) => p.available).map((p) => p.providerId)).toEqual(['transak']);
    expect(de.find((p) => p.providerId === 'transak')!.methods).toContain('bank_transfer');
  });

  it('says when a provider does not serve the country at all', async () => {
    const cuba = await offeredProviders({ country: 'CU', chain: 'POLYGON', tokenSymbol: 'USDC' });
    expect(cuba.map((p) => p.reason).sort()).toEqual(['MoonPay does not serve Cuba', 'Transak does not serve Cuba']);
  });
});

describe('quotes', () => {
  it('prices a token amount exactly: subtotal, provider fee (minimum fee applies), network fee, total', async () => {
    const quote = await quoteOnramp({
      providerId: 'moonpay',
      country: 'US',
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
      paymentMethod: 'card',
      amount: { kind: 'crypto', value: '25' },
    });
    expect(quote).toMatchObject({
      cryptoAmount: '25',
      fiatCurrency: 'USD',
      rate: '1',
      subtotal: '25.00',
      providerFee: '3.99',
      networkFee: '0.01',
      total: '29.00',
      belowMinimum: false,
      minimum: { fiat: '20.00', crypto: '20' },
    });
    const large = await quoteOnramp({
      providerId: 'moonpay',
      country: 'US',
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
      paymentMethod: 'card',
      amount: { kind: 'crypto', value: '1000.5' },
    });
    expect(large.providerFee).toBe('45.02'); // 4.5% of 1000.50 = 45.0225
    expect(large.total).toBe('1045.53');
  });

  it('takes a USD amount and says what arrives', async () => {
    const quote = await quoteOnramp({
      providerId: 'moonpay',
      country: 'US',
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
      paymentMethod: 'card',
      amount: { kind: 'usd', value: '25.50' },
    });
    expect(quote.cryptoAmount).toBe('25.5');
  });

  it('flags an amount below the method’s minimum, with the minimum in USD and tokens', async () => {
    const quote = await quoteOnramp({
      providerId: 'transak',
      country: 'DE',
      chain: 'BSC',
      tokenSymbol: 'USDC',
      paymentMethod: 'card',
      amount: { kind: 'crypto', value: '5' },
    });
    expect(quote).toMatchObject({ belowMinimum: true, minimum: { fiat: '30.00', crypto: '30' } });
    const bank = await quoteOnramp({
      providerId: 'transak',
      country: 'DE',
      chain: 'BSC',
      tokenSymbol: 'USDC',
      paymentMethod: 'bank_transfer',
      amount: { kind: 'crypto', value: '20' },
    });
    expect(bank.belowMinimum).toBe(false);
  });

  it('refuses a provider that cannot serve the request, a bad amount, and a token without a price', async () => {
    await expectAppError(
      quoteOnramp({
        providerId: 'transak',
        country: 'US',
        chain: 'POLYGON',
        tokenSymbol: 'POL',
        paymentMethod: 'card',
        amount: { kind: 'crypto', value: '5' },
      }),
      'provider_unavailable',
    );
    await expectAppError(
      quoteOnramp({
        providerId: 'moonpay',
        country: 'US',
        chain: 'POLYGON',
        tokenSymbol: 'USDC',
        paymentMethod: 'card',
        amount: { kind: 'crypto', value: '1.1234567' },
      }),
      'invalid_amount',
    );
    await expectAppError(
      quoteOnramp({
        providerId: 'moonpay',
        country: 'US',
        chain: 'POLYGON',
        tokenSymbol: 'POL',
        paymentMethod: 'card',
        amount: { kind: 'crypto', value: '50' },
      }),
      'quote_unavailable',
    );
  });
});

describe('placing an order', () => {
  it('below the minimum: refused with the minimum and nothing stored; accepted: an order for the minimum', async () => {
    const wallet = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
    const input = {
      providerId: 'moonpay',
      paymentMethod: 'card' as const,
      country: 'US',
      chain: 'POLYGON' as const,
      tokenSymbol: 'USDC',
      walletAddress: wallet.toLowerCase(),
      walletLabel: 'Acme Games',
      cryptoAmount: '5',
    };
    const refused = await expectAppError(placeOnrampOrder(input), 'below_minimum');
    expect(refused.details).toEqual({ minimumFiat: '20.00', minimumCrypto: '20' });
    expect(refused.message).toContain('$20.00 (20 USDC)');
    expect(await getDb().select().from(onrampOrders).where(eq(onrampOrders.walletAddress, wallet))).toHaveLength(0);

    const placed = await placeOnrampOrder({ ...input, acceptMinimum: true });
    expect(placed.raisedToMinimum).toBe(true);
    const order = await orderRow(placed.orderId);
    expect(order).toMatchObject({
      status: 'created',
      cryptoBaseUnits: 20_000_000n,
      requestedBaseUnits: 5_000_000n,
      raisedToMinimum: true,
      walletAddress: wallet,
      walletLabel: 'Acme Games',
      fiatTotal: '24.00000000',
    });
    expect(order.checkoutUrl).toBe(placed.checkoutUrl);
    // The provider was asked for the minimum, for our order id, to the wallet in its checksum form.
    expect(sessionRequests[0]).toMatchObject({
      partnerOrderId: placed.orderId,
      cryptoAmount: '20',
      walletAddress: wallet,
      tokenSymbol: 'USDC',
      chain: 'POLYGON',
      paymentMethod: 'card',
      standingInFor: 'MoonPay',
      authorization: `Bearer ${SECRET}`,
    });
    expect(await eventCount(placed.orderId)).toBe(1);
  });

  it('refuses an address that is not one of the chain', async () => {
    await expectAppError(
      placeOnrampOrder({
        providerId: 'moonpay',
        paymentMethod: 'card',
        country: 'US',
        chain: 'POLYGON',
        tokenSymbol: 'USDC',
        walletAddress: 'So11111111111111111111111111111111111111112',
        cryptoAmount: '25',
      }),
      'invalid_wallet',
    );
  });

  it('a provider that refuses the order leaves it failed with the reason', async () => {
    sessionStatus = 503;
    await expectAppError(
      placeOnrampOrder({
        providerId: 'moonpay',
        paymentMethod: 'card',
        country: 'US',
        chain: 'POLYGON',
        tokenSymbol: 'USDC',
        walletAddress: WALLET,
        cryptoAmount: '25',
      }),
      'provider_error',
    );
    const [order] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.walletAddress, WALLET)).orderBy(onrampOrders.createdAt);
    expect(order!.status).toBe('failed');
    expect(order!.failureReason).toBeTruthy();
  });
});

describe('provider webhooks', () => {
  async function newOrder() {
    const placed = await placeOnrampOrder({
      providerId: 'moonpay',
      paymentMethod: 'card',
      country: 'US',
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
      walletAddress: WALLET,
      cryptoAmount: '25',
    });
    return placed.orderId;
  }

  it('rejects a forged or stale signature and changes nothing', async () => {
    const orderId = await newOrder();
    const forged = sandboxWebhook(
      { orderId: 'ses_x', partnerOrderId: orderId, status: 'COMPLETED', cryptoAmount: '25', walletAddress: WALLET },
      { secret: 'x'.repeat(40) },
    );
    expect(await applyProviderWebhook('sandbox', forged)).toMatchObject({ status: 401, outcome: 'rejected' });
    const stale = sandboxWebhook(
      { orderId: 'ses_x', partnerOrderId: orderId, status: 'COMPLETED' },
      { at: Math.floor(Date.now() / 1000) - 3600 },
    );
    expect(await applyProviderWebhook('sandbox', stale)).toMatchObject({ status: 401, outcome: 'rejected' });
    expect(await applyProviderWebhook('sandbox', { rawBody: '{}', headers: {} })).toMatchObject({ status: 400 });
    expect((await orderRow(orderId)).status).toBe('created');
    // Real providers' paths do not accept sandbox-signed bodies, and unknown paths are 404.
    expect(
      (await applyProviderWebhook('moonpay', sandboxWebhook({ orderId: 'ses_x', partnerOrderId: orderId, status: 'COMPLETED' }))).status,
    ).toBe(404);
    expect((await applyProviderWebhook('nope', sandboxWebhook({}))).status).toBe(404);
  });

  it('applies updates forward only: completed before processing stays completed; a redelivery is a duplicate', async () => {
    const orderId = await newOrder();
    const completed = sandboxWebhook({
      orderId: 'ses_out',
      partnerOrderId: orderId,
      status: 'COMPLETED',
      cryptoAmount: '25',
      walletAddress: WALLET.toLowerCase(),
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
      txHash: '0xabc',
    });
    expect(await applyProviderWebhook('sandbox', completed)).toMatchObject({ status: 200, outcome: 'applied', orderId });
    const processing = sandboxWebhook({ orderId: 'ses_out', partnerOrderId: orderId, status: 'PROCESSING', walletAddress: WALLET });
    expect(await applyProviderWebhook('sandbox', processing)).toMatchObject({ status: 200, outcome: 'unchanged' });
    expect(await applyProviderWebhook('sandbox', completed)).toMatchObject({ status: 200, outcome: 'duplicate' });
    const order = await orderRow(orderId);
    expect(order).toMatchObject({
      status: 'completed',
      providerOrderId: 'ses_out',
      deliveredBaseUnits: 25_000_000n,
      deliveryTxHash: '0xabc',
      providerStatus: 'COMPLETED',
    });
    expect(await eventCount(orderId)).toBe(2); // created, completed
    const failedLate = sandboxWebhook({ orderId: 'ses_out', partnerOrderId: orderId, status: 'FAILED', failureReason: 'card_declined' });
    expect((await applyProviderWebhook('sandbox', failedLate)).outcome).toBe('unchanged');
    expect((await orderRow(orderId)).status).toBe('completed');
  });

  it('applies one of two simultaneous deliveries of the same update', async () => {
    const orderId = await newOrder();
    const processing = sandboxWebhook({ orderId: 'ses_twice', partnerOrderId: orderId, status: 'PROCESSING' });
    const results = await Promise.all([applyProviderWebhook('sandbox', processing), applyProviderWebhook('sandbox', processing)]);
    expect(results.map((r) => r.outcome).sort()).toEqual(['applied', 'duplicate']);
    expect(await eventCount(orderId)).toBe(2);
  });

  it('does not apply an update for another wallet or token', async () => {
    const orderId = await newOrder();
    const otherWallet = sandboxWebhook({
      orderId: 'ses_m',
      partnerOrderId: orderId,
      status: 'COMPLETED',
      walletAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    });
    expect((await applyProviderWebhook('sandbox', otherWallet)).outcome).toBe('mismatch');
    const otherToken = sandboxWebhook({
      orderId: 'ses_m',
      partnerOrderId: orderId,
      status: 'COMPLETED',
      chain: 'POLYGON',
      tokenSymbol: 'USDT',
    });
    expect((await applyProviderWebhook('sandbox', otherToken)).outcome).toBe('mismatch');
    expect((await orderRow(orderId)).status).toBe('created');
  });

  it('a failed card payment of a charge emits payment.failed and leaves the charge payable', async () => {
    const merchant = await newMerchant();
    const { chargeId, deposit } = await createTestCharge({
      apiKey: merchant.liveKey,
      body: usdcCharge({ items: [{ name: 'Chest', image: 'https://game.example/c.png', amount: '24.5', quantity: 1 }] }),
    });
    const placed = await payChargeWithFiat({ chargeId, providerId: 'moonpay', paymentMethod: 'card', country: 'US' });
    const order = await orderRow(placed.orderId);
    expect(order).toMatchObject({ purpose: 'charge_payment', chargeId, walletAddress: deposit.address, cryptoBaseUnits: 24_500_000n });
    expect(sessionRequests.at(-1)).toMatchObject({ redirectUrl: `${process.env.APP_URL}/checkout/${chargeId}` });

    const failed = sandboxWebhook({ orderId: 'ses_c', partnerOrderId: placed.orderId, status: 'FAILED', failureReason: 'card_declined' });
    expect((await applyProviderWebhook('sandbox', failed)).outcome).toBe('applied');
    const events = await getDb().select().from(webhookEvents).where(eq(webhookEvents.chargeId, chargeId));
    const paymentFailed = events.filter((e) => e.type === 'payment.failed');
    expect(paymentFailed).toHaveLength(1);
    expect((paymentFailed[0]!.payload as { data: { paymentAttempt: unknown } }).data.paymentAttempt).toMatchObject({
      id: placed.orderId,
      method: 'fiat',
      reason: 'card_declined',
    });
    const [charge] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
    expect(charge!.status).toBe('pending');
    // A charge below every minimum cannot be paid by card: the provider says so instead of overcharging.
    const small = await createTestCharge({ apiKey: merchant.liveKey, body: usdcCharge() });
    await expectAppError(
      payChargeWithFiat({ chargeId: small.chargeId, providerId: 'moonpay', paymentMethod: 'card', country: 'US' }),
      'below_minimum',
    );
  });
});

describe('expiry', () => {
  it('expires created orders nobody started in time, once', async () => {
    const placed = await placeOnrampOrder({
      providerId: 'moonpay',
      paymentMethod: 'card',
      country: 'US',
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
      walletAddress: WALLET,
      cryptoAmount: '25',
    });
    const later = new Date(Date.now() + 31 * 60_000);
    expect(await expireDueOnrampOrders(later)).toBeGreaterThanOrEqual(1);
    expect((await orderRow(placed.orderId)).status).toBe('expired');
    const events = await getDb().select().from(onrampOrderEvents).where(eq(onrampOrderEvents.orderId, placed.orderId));
    expect(events.map((e) => e.toStatus)).toEqual(['created', 'expired']);
    // A provider update after expiry changes nothing.
    const late = sandboxWebhook({ orderId: 'ses_late', partnerOrderId: placed.orderId, status: 'COMPLETED' });
    expect((await applyProviderWebhook('sandbox', late)).outcome).toBe('unchanged');
  });

  it('leaves an order the provider already moved (pending) to the provider: pending → expired is not a transition', async () => {
    const placed = await placeOnrampOrder({
      providerId: 'moonpay',
      paymentMethod: 'card',
      country: 'US',
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
      walletAddress: WALLET,
      cryptoAmount: '25',
    });
    const started = sandboxWebhook({ orderId: 'ses_started', partnerOrderId: placed.orderId, status: 'PROCESSING', walletAddress: WALLET });
    expect((await applyProviderWebhook('sandbox', started)).outcome).toBe('applied');
    expect((await orderRow(placed.orderId)).status).toBe('pending');
    await expireDueOnrampOrders(new Date(Date.now() + 31 * 60_000));
    expect((await orderRow(placed.orderId)).status).toBe('pending');
  });
});
