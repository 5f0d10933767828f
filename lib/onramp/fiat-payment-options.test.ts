/**
 * Fiat methods that cannot deliver before the charge expires are not offered (ADR 0014), and refused
 * if asked for anyway: the registry's settlementMinutes per method, against the real database.
 */
import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/lib/db/client';
import { charges, onrampOrders } from '@/lib/db/schema';
import { createTestCharge, newMerchant, type TestMerchant, usdcCharge } from '@/test/fixtures';
import { stubSandboxProvider } from '@/test/sandbox-provider-stub';
import { fiatPaymentOptions } from './fiat-payment-options';
import { payChargeWithFiat } from './pay-charge-with-fiat';
import { reviewedRegistry } from './registry/facts';

const NOW = new Date('2026-11-24T12:00:00Z');
const inMinutes = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const options = (expiresAt: Date) =>
  fiatPaymentOptions({ country: 'DE', chain: 'POLYGON', tokenSymbol: 'USDC', dueUsdCents: 5000n, expiresAt, now: NOW });
const byProvider = async (expiresAt: Date) => Object.fromEntries((await options(expiresAt)).map((option) => [option.providerId, option]));

describe('fiat methods and the charge’s expiry', () => {
  it('every registry method states how long it takes to deliver; bank transfers take days, cards minutes', () => {
    for (const provider of reviewedRegistry().providers) {
      for (const method of provider.methods) {
        expect(method.settlementMinutes, `${provider.id} ${method.method}`).toBeGreaterThan(0);
        if (method.method === 'bank_transfer') expect(method.settlementMinutes).toBeGreaterThanOrEqual(24 * 60);
        else expect(method.settlementMinutes).toBeLessThanOrEqual(60);
      }
    }
  });

  it('a charge expiring in an hour offers cards and wallets, not bank transfer; one open for days offers bank transfer too', async () => {
    const hour = await byProvider(inMinutes(60));
    expect(hour.moonpay).toMatchObject({ available: true, methods: ['card', 'apple_pay', 'google_pay'] });
    expect(hour.transak).toMatchObject({ available: true, methods: ['card', 'apple_pay', 'google_pay'] });
    const week = await byProvider(inMinutes(7 * 24 * 60));
    expect(week.moonpay!.methods).toContain('bank_transfer');
    expect(week.transak!.methods).toContain('bank_transfer');
  });

  it('a charge about to expire offers no provider, and says why', async () => {
    const soon = await byProvider(inMinutes(5));
    expect(soon.moonpay).toMatchObject({
      available: false,
      methods: [],
      reason: 'Card, Apple Pay, Google Pay, Bank transfer through MoonPay cannot deliver before this charge expires',
    });
  });
});

describe('placing a fiat order for a charge', () => {
  let merchant: TestMerchant;
  beforeAll(async () => {
    merchant = await newMerchant();
  });
  beforeEach(() => {
    stubSandboxProvider();
  });
  afterEach(() => vi.restoreAllMocks());

  it('refuses a bank transfer that would arrive after the charge expired (422 settles_after_expiry), and writes nothing', async () => {
    const { chargeId } = await createTestCharge({
      apiKey: merchant.liveKey,
      body: usdcCharge({ items: [{ name: 'Chest', amount: '50', quantity: 1 }] }),
    });
    const refused = await payChargeWithFiat({ chargeId, providerId: 'moonpay', paymentMethod: 'bank_transfer', country: 'DE' }).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      code: 'settles_after_expiry',
      status: 422,
      message: expect.stringMatching(
        /^Bank transfer through MoonPay can take up to 3 days to deliver, and this charge expires in \d+ minutes\. Choose a faster method/,
      ),
    });
    expect(await getDb().select().from(onrampOrders).where(eq(onrampOrders.chargeId, chargeId))).toHaveLength(0);

    // Given four days, the same bank transfer is placed.
    await getDb()
      .update(charges)
      .set({ expiresAt: new Date(Date.now() + 4 * 24 * 60 * 60_000) })
      .where(eq(charges.id, chargeId));
    const placed = await payChargeWithFiat({ chargeId, providerId: 'moonpay', paymentMethod: 'bank_transfer', country: 'DE' });
    const [order] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, placed.orderId));
    expect(order).toMatchObject({ paymentMethod: 'bank_transfer', chargeId });
  });
});
