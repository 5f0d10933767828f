/**
 * Payments in flight at expiry and cancel, and one payment method at a time, against the real database
 * and the shared local POLYGON node: balance payments signed by the real verb, fiat orders placed through
 * the sandbox provider, swap executions as the swap verbs record them.
 */
import { and, eq } from 'drizzle-orm';
import { createPublicClient, http, type Hex } from 'viem';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import { setPin } from '@/lib/accounts/set-pin';
import { createUser } from '@/lib/accounts/create-user';
import { getDb } from '@/lib/db/client';
import { chargeEvents, charges, onrampOrders, outboundTransfers, swapExecutions } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { payChargeWithFiat } from '@/lib/onramp/pay-charge-with-fiat';
import { loadCheckoutStatus } from '@/lib/payments/checkout-status';
import { broadcastTransfer } from '@/lib/transactions/broadcast-transfer';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { signBalancePayment } from '@/lib/payments/pay-from-balance';
import { scanChargesToHead } from '@/test/scanner';
import { pollChain } from '@/lib/payments/poll-chain';
import { listWallets } from '@/lib/wallets/list-wallets';
import { POST as cancelRoute } from '@/app/api/charges/[chargeId]/cancel/route';
import { appError, uniqueEmail } from '@/test/accounts';
import { callRoute, createTestCharge, newMerchant, type TestMerchant, usdcCharge } from '@/test/fixtures';
import { stubSandboxProvider } from '@/test/sandbox-provider-stub';
import { cancelChargeByConsumer } from './cancel-charge';
import { expireDueCharges } from './expire-charges';
import { IN_FLIGHT_HOLD_MS } from './payment-in-flight';

let merchant: TestMerchant;

beforeAll(async () => {
  merchant = await newMerchant();
});
beforeEach(() => {
  stubSandboxProvider();
});
afterEach(() => vi.restoreAllMocks());

/** A live USDC charge on POLYGON, large enough for the providers' card minimums. */
async function newCharge(amount = '25'): Promise<string> {
  const { chargeId } = await createTestCharge({
    apiKey: merchant.liveKey,
    body: usdcCharge({ items: [{ name: 'Chest', amount, quantity: 1 }] }),
  });
  return chargeId;
}

async function payer(): Promise<string> {
  const email = uniqueEmail('payer');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  await setPin({ userId: user.id, pin: '583920', confirm: '583920' });
  const evm = (await listWallets(user.id)).find((w) => w.family === 'evm')!;
  await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: evm.address as Hex });
  return user.id;
}

/** Moves expiresAt into the past (10 s: beyond the local watcher's slack) and lets the watcher scan past it, as expiry requires. */
async function overdue(chargeId: string, ms = 10_000): Promise<void> {
  await getDb()
    .update(charges)
    .set({ expiresAt: new Date(Date.now() - ms) })
    .where(eq(charges.id, chargeId));
  await scanChargesToHead('POLYGON');
}
const statusOf = async (chargeId: string) => (await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status;
const cancel = (chargeId: string) => callRoute(cancelRoute, { apiKey: merchant.liveKey, params: { chargeId }, method: 'POST' });
const placeCardOrder = (chargeId: string) => payChargeWithFiat({ chargeId, providerId: 'moonpay', paymentMethod: 'card', country: 'US' });
const ordersOf = (chargeId: string) => getDb().select().from(onrampOrders).where(eq(onrampOrders.chargeId, chargeId));
const balancePaymentsOf = (chargeId: string) =>
  getDb()
    .select()
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'balance_payment')));

/** A swap recorded as swap-held-funds.ts records it (signed, before broadcast). */
async function recordSwap(chargeId: string): Promise<string> {
  const id = `swx_test${Math.random().toString(36).slice(2, 12)}`;
  const [row] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  await getDb()
    .insert(swapExecutions)
    .values({
      id,
      chargeId,
      branch: 'held_funds',
      chain: 'POLYGON',
      router: '0x10ED43C718714eb63d5aA57B78B54704E256024E',
      fromAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      recipient: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      tokenIn: '0x0000000000000000000000000000000000000001',
      tokenOut: row!.tokenAddress,
      amountOut: row!.totalBaseUnits,
      quotedAmountIn: 1n,
      amountInMax: 2n,
      slippageBps: 100,
      deadline: new Date(Date.now() + 600_000),
      swapTxHash: `0x${'ab'.repeat(31)}${Math.floor(Math.random() * 256)
        .toString(16)
        .padStart(2, '0')}`,
      status: 'signed',
    });
  return id;
}

describe('expiry and cancel wait for a payment in flight', () => {
  it('a balance payment in flight holds an overdue charge open, refuses cancel, and the charge succeeds when it lands', async () => {
    const userId = await payer();
    const chargeId = await newCharge();
    const signed = await signBalancePayment({ userId, chargeId });
    await overdue(chargeId);

    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('pending');
    const refused = await cancel(chargeId);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ code: 'payment_in_progress', param: 'chargeId' });
    expect(refused.json.error!.message).toContain(
      `A payment from a Chargeport balance is being processed for this charge (transaction ${signed.txHash})`,
    );
    expect(refused.json.error!.message).toMatch(
      /cannot be canceled now\. It completes when that payment arrives; if the payment fails, cancel again\./,
    );
    expect((await appError(cancelChargeByConsumer(chargeId))).code).toBe('payment_in_progress');
    // The checkout says so, and offers no way to pay meanwhile.
    const checkout = await loadCheckoutStatus(chargeId);
    expect(checkout).toMatchObject({ status: 'pending', payable: false, inFlight: { method: 'balance' } });

    // Sent and mined, the reconciler marks it confirmed — but until the watcher has counted it, expiry still waits.
    await broadcastTransfer(signed.transferId);
    const client = createPublicClient({ transport: http(rpcUrl('POLYGON')!) });
    await client.waitForTransactionReceipt({ hash: signed.txHash as Hex });
    await reconcileDueTransfers({ ignoreSchedule: true });
    expect((await balancePaymentsOf(chargeId))[0]!.status).toBe('confirmed');
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('pending');

    for (let i = 0; i < 30 && (await statusOf(chargeId)) !== 'succeeded'; i++) {
      await pollChain('POLYGON');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await statusOf(chargeId)).toBe('succeeded');
    const types = (await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId))).map((e) => e.type);
    expect(types).not.toContain('charge.expired');
    expect(types).not.toContain('charge.late_payment');
  });

  it('when the balance payment fails, the overdue charge expires on the next pass', async () => {
    const userId = await payer();
    const chargeId = await newCharge();
    const signed = await signBalancePayment({ userId, chargeId });
    await overdue(chargeId);
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('pending');
    // The transaction engine's verdict (its nonce consumed by another transaction): failed.
    await getDb().update(outboundTransfers).set({ status: 'failed' }).where(eq(outboundTransfers.id, signed.transferId));
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('expired');
  });

  it('a fiat order holds the charge while it is started or pending, and no longer once it failed or its start window lapsed', async () => {
    const chargeId = await newCharge();
    const placed = await placeCardOrder(chargeId);
    await overdue(chargeId);
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('pending');
    const refused = await cancel(chargeId);
    expect(refused.json.error).toMatchObject({ code: 'payment_in_progress' });
    expect(refused.json.error!.message).toMatch(/^A card or bank payment through MoonPay was started for this charge at \d\d:\d\d UTC/);
    expect((await loadCheckoutStatus(chargeId))!.inFlight).toMatchObject({
      method: 'fiat',
      resumeUrl: `${process.env.APP_URL}/sandbox-provider/pay/ses_1`,
      message: expect.stringMatching(/if it is not paid by \d\d:\d\d UTC, it lapses and the charge can be paid another way\.$/),
    });

    await getDb().update(onrampOrders).set({ status: 'pending' }).where(eq(onrampOrders.id, placed.orderId));
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('pending');
    await getDb().update(onrampOrders).set({ status: 'failed' }).where(eq(onrampOrders.id, placed.orderId));
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('expired');

    // An order nobody started holds only until its start window closes (30 minutes).
    const other = await newCharge();
    const lapsed = await placeCardOrder(other);
    await overdue(other);
    await getDb()
      .update(onrampOrders)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(onrampOrders.id, lapsed.orderId));
    await expireDueCharges();
    expect(await statusOf(other)).toBe('expired');
  });

  it('a swap in flight holds the charge; a failed one does not', async () => {
    const chargeId = await newCharge();
    const swapId = await recordSwap(chargeId);
    await overdue(chargeId);
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('pending');
    expect((await cancel(chargeId)).json.error).toMatchObject({
      code: 'payment_in_progress',
      message: expect.stringContaining('A swap paying this charge'),
    });
    await getDb().update(swapExecutions).set({ status: 'failed' }).where(eq(swapExecutions.id, swapId));
    expect((await cancel(chargeId)).status).toBe(200);
    expect(await statusOf(chargeId)).toBe('canceled');
  });

  it('holds at most IN_FLIGHT_HOLD_MS past expiresAt, then expires with the payment named on the timeline', async () => {
    const chargeId = await newCharge();
    const swapId = await recordSwap(chargeId);
    await overdue(chargeId, IN_FLIGHT_HOLD_MS + 60_000);
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('expired');
    const [event] = await getDb()
      .select()
      .from(chargeEvents)
      .where(and(eq(chargeEvents.chargeId, chargeId), eq(chargeEvents.type, 'charge.expired')));
    expect(event!.data).toEqual({ paymentsInFlight: [swapId] });
  });

  it('held charges never fill the batch ahead of charges that can expire', async () => {
    const held = [await newCharge(), await newCharge()];
    for (const chargeId of held) {
      await recordSwap(chargeId);
      await overdue(chargeId, 120_000);
    }
    const free = await newCharge();
    await overdue(free, 60_000);
    for (let i = 0; i < 50 && (await statusOf(free)) === 'pending'; i++) await expireDueCharges({ batchSize: 1 });
    expect(await statusOf(free)).toBe('expired');
    for (const chargeId of held) expect(await statusOf(chargeId)).toBe('pending');
  });
});

describe('one payment method at a time', () => {
  it('a balance payment in flight refuses a card order, and writes no order', async () => {
    const userId = await payer();
    const chargeId = await newCharge();
    await signBalancePayment({ userId, chargeId });
    const error = await appError(placeCardOrder(chargeId));
    expect(error).toMatchObject({ code: 'payment_in_progress', status: 409 });
    expect(error.message).toMatch(
      /^A payment from a Chargeport balance is being processed for this charge .*if this payment fails, the charge can be paid another way\.$/,
    );
    expect(await ordersOf(chargeId)).toHaveLength(0);
  });

  it('a card order refuses a balance payment, and signs nothing; an order the provider already holds money for refuses a second order', async () => {
    const userId = await payer();
    const chargeId = await newCharge();
    const placed = await placeCardOrder(chargeId);
    const error = await appError(signBalancePayment({ userId, chargeId }));
    expect(error).toMatchObject({ code: 'payment_in_progress', message: expect.stringContaining('through MoonPay') });
    expect(await balancePaymentsOf(chargeId)).toHaveLength(0);

    // Another card order may replace one nobody started (a retry)…
    await placeCardOrder(chargeId);
    // …but not one the provider is processing.
    await getDb().update(onrampOrders).set({ status: 'pending' }).where(eq(onrampOrders.id, placed.orderId));
    expect((await appError(placeCardOrder(chargeId))).code).toBe('payment_in_progress');
    expect(await ordersOf(chargeId)).toHaveLength(2);
  });

  it('a balance payment and a card order started at the same moment: exactly one wins, each time', async () => {
    const userId = await payer();
    for (let round = 0; round < 4; round++) {
      const chargeId = await newCharge();
      const attempts =
        round % 2
          ? [placeCardOrder(chargeId), signBalancePayment({ userId, chargeId })]
          : [signBalancePayment({ userId, chargeId }), placeCardOrder(chargeId)];
      const results = await Promise.allSettled(attempts);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const [rejected] = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(rejected!.reason).toMatchObject({ code: 'payment_in_progress' });
      expect((await ordersOf(chargeId)).length + (await balancePaymentsOf(chargeId)).length).toBe(1);
    }
  });
});
