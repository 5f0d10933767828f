/**
 * Card payments below the provider's minimum (ADR 0019), against the real database and the local Polygon
 * node: the checkout's order buys the minimum into the buyer's own wallet; once the delivery is confirmed
 * on chain, the charge is paid from it exactly once through the transaction engine, and the rest stays in
 * the buyer's balance. A charge that can no longer be paid leaves the tokens where they are.
 */
import { and, eq } from 'drizzle-orm';
import { createWalletClient, erc20Abi, http, parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createUser } from '@/lib/accounts/create-user';
import { findPaymentsInFlight } from '@/lib/charges/payment-in-flight';
import { transitionCharge } from '@/lib/charges/transition-charge';
import { getDb } from '@/lib/db/client';
import { onrampOrders, outboundTransfers, webhookEvents } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { listWallets } from '@/lib/wallets/list-wallets';
import { pollIncomingTransfers } from '@/lib/wallets/poll-incoming-transfers';
import { uniqueEmail } from '@/test/accounts';
import { createTestCharge, newMerchant, type TestMerchant, usdcCharge } from '@/test/fixtures';
import { stubSandboxProvider } from '@/test/sandbox-provider-stub';
import { fiatPaymentOptions } from './fiat-payment-options';
import { payChargeFromOrder, payChargesFromDeliveredOrders } from './pay-charge-from-order';
import { payChargeWithFiat } from './pay-charge-with-fiat';
import { USDC, client, settle, usdcOf } from '@/test/polygon-usdc';

let merchant: TestMerchant;

async function buyer(): Promise<{ userId: string; wallet: Address }> {
  const email = uniqueEmail('minimum');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  const wallet = (await listWallets(user.id)).find((w) => w.family === 'evm')!.address as Address;
  return { userId: user.id, wallet };
}

async function charge(amount = '4.99'): Promise<string> {
  const { chargeId } = await createTestCharge({
    apiKey: merchant.liveKey,
    body: usdcCharge({ items: [{ name: 'Gem pack', amount, quantity: 1 }] }),
  });
  return chargeId;
}

/** Plays the provider: the order's tokens sent to its wallet, the order completed with the delivery's hash. */
async function deliver(orderId: string): Promise<void> {
  const [order] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, orderId));
  const provider = privateKeyToAccount(generatePrivateKey());
  await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: provider.address });
  const hash = await createWalletClient({ account: provider, transport: http(rpcUrl('POLYGON')!) }).writeContract({
    address: USDC.address as Address,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [order!.walletAddress as Address, order!.cryptoBaseUnits],
    chain: null,
  });
  await client().waitForTransactionReceipt({ hash });
  await getDb()
    .update(onrampOrders)
    .set({ status: 'completed', deliveryTxHash: hash, deliveredBaseUnits: order!.cryptoBaseUnits })
    .where(eq(onrampOrders.id, orderId));
}

/** The wallet indexer until the delivery is recorded and confirmed. */
async function indexDelivery(): Promise<void> {
  for (let i = 0; i < 5; i++) await pollIncomingTransfers('POLYGON');
}

beforeAll(async () => {
  merchant = await newMerchant();
});
beforeEach(() => {
  stubSandboxProvider();
});
afterEach(() => vi.restoreAllMocks());

describe('a card payment below the provider’s minimum', () => {
  it('the checkout offers the minimum on EVM chains, and says why not elsewhere', async () => {
    const offered = await fiatPaymentOptions({
      country: 'US',
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
      dueUsdCents: 499n,
      canBuyMinimum: true,
    });
    expect(offered.find((o) => o.providerId === 'moonpay')).toMatchObject({
      available: true,
      buyMinimum: { minimumUsd: '20' },
      methods: expect.arrayContaining(['card']),
    });
    const notOffered = await fiatPaymentOptions({ country: 'US', chain: 'POLYGON', tokenSymbol: 'USDC', dueUsdCents: 499n });
    expect(notOffered.find((o) => o.providerId === 'moonpay')).toMatchObject({ available: false, reason: expect.stringContaining('$20') });
  });

  it('orders the minimum into the buyer’s wallet, pays the charge from it once, and the rest stays there', async () => {
    const { userId, wallet } = await buyer();
    const chargeId = await charge('4.99');
    const anonymous = await payChargeWithFiat({
      chargeId,
      providerId: 'moonpay',
      paymentMethod: 'card',
      country: 'US',
      buyMinimum: true,
    }).catch((error: unknown) => error);
    expect(anonymous).toMatchObject({ code: 'unauthenticated', status: 401 });
    const belowWithoutConsent = await payChargeWithFiat({
      chargeId,
      providerId: 'moonpay',
      paymentMethod: 'card',
      country: 'US',
      userId,
    }).catch((error: unknown) => error);
    expect(belowWithoutConsent).toMatchObject({ code: 'below_minimum' });

    const placed = await payChargeWithFiat({
      chargeId,
      providerId: 'moonpay',
      paymentMethod: 'card',
      country: 'US',
      userId,
      buyMinimum: true,
    });
    expect(placed.raisedToMinimum).toBe(true);
    const [order] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, placed.orderId));
    expect(order).toMatchObject({
      purpose: 'charge_minimum',
      chargeId,
      userId,
      walletAddress: wallet,
      cryptoBaseUnits: parseUnits('20', 6),
    });
    // One payment method at a time: the order is in flight for the charge.
    expect((await findPaymentsInFlight(getDb(), chargeId)).map((p) => p.method)).toEqual(['fiat']);

    await deliver(placed.orderId);
    // Not before the delivery is confirmed on chain by the wallet indexer.
    expect(await payChargeFromOrder(placed.orderId)).toBe('not_delivered');
    await indexDelivery();

    // Two workers at once: one payment.
    const outcomes = await Promise.all([payChargeFromOrder(placed.orderId), payChargeFromOrder(placed.orderId)]);
    expect(outcomes.filter((o) => o === 'submitted')).toHaveLength(1);
    expect(await payChargesFromDeliveredOrders()).toBe(0);
    expect(await settle(chargeId, { rounds: 40, reconcile: true })).toBe('succeeded');

    const payments = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'balance_payment')));
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ fromAddress: wallet, amountBaseUnits: parseUnits('4.99', 6) });
    const [after] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, placed.orderId));
    expect(after!.chargeTransferId).toBe(payments[0]!.id);
    expect(await usdcOf(wallet)).toBe(parseUnits('15.01', 6));
    expect(await findPaymentsInFlight(getDb(), chargeId)).toEqual([]);
  });

  it('a charge that can no longer be paid: nothing is sent, the tokens stay in the balance, no payment.failed for a charge that ended', async () => {
    const { userId, wallet } = await buyer();
    const chargeId = await charge('4.99');
    const placed = await payChargeWithFiat({
      chargeId,
      providerId: 'moonpay',
      paymentMethod: 'card',
      country: 'US',
      userId,
      buyMinimum: true,
    });
    await deliver(placed.orderId);
    await indexDelivery();
    // The merchant's system marks it paid another way meanwhile (a direct update stands in for that).
    await getDb().transaction((tx) => transitionCharge(tx, { chargeId, to: 'canceled', actor: 'test' }));

    expect(await payChargeFromOrder(placed.orderId)).toBe('not_payable');
    expect(await payChargeFromOrder(placed.orderId)).toBe('busy');
    const [order] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, placed.orderId));
    expect(order!.chargePaymentError).toBe('The charge is canceled.');
    expect(order!.chargeTransferId).toBeNull();
    expect(await usdcOf(wallet)).toBe(parseUnits('20', 6));
    expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId))).toEqual([]);
    // A final charge gets no payment.failed (nothing could pay it any more).
    const failed = await getDb()
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.chargeId, chargeId), eq(webhookEvents.type, 'payment.failed')));
    expect(failed).toHaveLength(0);
  });
});
