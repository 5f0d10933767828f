// Spending allowances (ADR 0034) on real PostgreSQL and anvil: one tap within the budget, the PIN outside it,
// the transfer gate's lock against two purchases fitting in the last of the budget, the merchant's field.
import { and, eq } from 'drizzle-orm';
import { encodeFunctionData, erc20Abi, getAddress, type Hex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '@/lib/accounts/create-user';
import { setPin } from '@/lib/accounts/set-pin';
import { webhookEventSchemas } from '@/lib/api/webhook-event-schemas';
import { getDb } from '@/lib/db/client';
import { charges, outboundTransfers, spendingAllowances, webhookEvents } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { newId } from '@/lib/ids';
import { readOutbox } from '@/lib/notifications/outbox';
import { payFromBalance, signBalancePayment } from '@/lib/payments/pay-from-balance';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { allowanceAuthority, allowanceSpent } from '@/lib/transactions/allowance-spent';
import { authorizeTransfer } from '@/lib/transactions/transfer-policy';
import { listWallets } from '@/lib/wallets/list-wallets';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { appError, uniqueEmail } from '@/test/accounts';
import { createTestCharge, NATIVE_EVM, newMerchant, type TestMerchant } from '@/test/fixtures';
import { approveSpendingAllowance } from './approve-spending-allowance';
import { listSpendingAllowances } from './list-spending-allowances';
import { revokeSpendingAllowance } from './revoke-spending-allowance';
import { USDC, client, settle } from '@/test/polygon-usdc';

const PIN = '583920';
let merchant: TestMerchant;
let otherMerchant: TestMerchant;

async function fundedPlayer(): Promise<{ userId: string; email: string; address: Hex }> {
  const email = uniqueEmail('player');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  await setPin({ userId: user.id, pin: PIN, confirm: PIN });
  const evm = (await listWallets(user.id)).find((w) => w.family === 'evm')!;
  await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: evm.address as Hex });
  return { userId: user.id, email, address: evm.address as Hex };
}

async function usdcCharge(amount: string, of: TestMerchant = merchant) {
  return createTestCharge({
    apiKey: of.liveKey,
    body: { chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: USDC.address, amount } },
  });
}

/** The player approves `perDay` USDC a day for `merchant`, from one of its charges. */
async function approve(userId: string, perDay: string, days = 30) {
  const { chargeId } = await usdcCharge('1');
  return approveSpendingAllowance({ userId, chargeId, pin: PIN, allowance: { amountPerDay: perDay, days: String(days) } });
}

async function succeededPayload(chargeId: string) {
  const [event] = await getDb()
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.chargeId, chargeId), eq(webhookEvents.type, 'charge.succeeded')));
  return webhookEventSchemas['charge.succeeded'].parse(event!.payload);
}

beforeAll(async () => {
  merchant = await newMerchant({ name: 'Allowance Games' });
  otherMerchant = await newMerchant({ name: 'Other Games' });
});

describe('approving a spending allowance', () => {
  it('needs the PIN, checks the amount and the expiry (at most 90 days), and e-mails the account', async () => {
    const player = await fundedPlayer();
    const { chargeId } = await usdcCharge('1');
    const attempt = (pin: string, amountPerDay: string, days: string) =>
      appError(approveSpendingAllowance({ userId: player.userId, chargeId, pin, allowance: { amountPerDay, days } }));
    expect(await attempt('000001', '10', '30')).toMatchObject({ code: 'pin_incorrect' });
    expect(await attempt(PIN, '10', '91')).toMatchObject({ code: 'invalid_request', param: 'days' });
    expect(await attempt(PIN, '0', '30')).toMatchObject({ code: 'invalid_amount', param: 'amountPerDay' });
    expect(await attempt(PIN, '1.0000001', '30')).toMatchObject({ code: 'invalid_amount', param: 'amountPerDay' });
    expect(await getDb().select().from(spendingAllowances).where(eq(spendingAllowances.userId, player.userId))).toHaveLength(0);

    const created = await approveSpendingAllowance({
      userId: player.userId,
      chargeId,
      pin: PIN,
      allowance: { amountPerDay: '12.5', days: '90' },
    });
    expect(created).toMatchObject({ merchantId: merchant.id, chain: 'POLYGON', amountPerDayBaseUnits: 12_500_000n });
    expect(created.expiresAt.getTime() - created.createdAt.getTime()).toBeGreaterThan(89 * 24 * 3600_000);
    expect(
      readOutbox('email', player.email).some((m) => /spending allowance was approved/.test(m.text) && /Allowance Games/.test(m.text)),
    ).toBe(true);
    // A second approval for the same merchant and token replaces the first.
    await approve(player.userId, '20');
    const live = await listSpendingAllowances(player.userId);
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ merchantName: 'Allowance Games', tokenSymbol: 'USDC', amountPerDay: '20', spentToday: '0' });
  });
});

describe('paying under a spending allowance', () => {
  it('within the budget: no PIN; the transfer names the allowance; the charge and its charge.succeeded webhook say paidUnderAllowance', async () => {
    const player = await fundedPlayer();
    const allowance = await approve(player.userId, '10');
    const { chargeId } = await usdcCharge('4');
    const { txHash } = await payFromBalance({ userId: player.userId, chargeId });
    const [transfer] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId));
    expect(transfer!.authority).toBe(allowanceAuthority(allowance.id, player.userId));
    await client().waitForTransactionReceipt({ hash: txHash as Hex });
    expect(await settle(chargeId)).toBe('succeeded');
    expect((await succeededPayload(chargeId)).data.charge.paidUnderAllowance).toBe(true);
    expect((await listSpendingAllowances(player.userId))[0]).toMatchObject({ spentToday: '4' });

    // A PIN payment of the same merchant is not under the allowance, and does not count against it.
    const byPin = await usdcCharge('3');
    const paid = await payFromBalance({ userId: player.userId, chargeId: byPin.chargeId, pin: PIN });
    await client().waitForTransactionReceipt({ hash: paid.txHash as Hex });
    expect(await settle(byPin.chargeId)).toBe('succeeded');
    expect((await succeededPayload(byPin.chargeId)).data.charge.paidUnderAllowance).toBe(false);
    expect(await allowanceSpent(getDb(), { allowanceId: allowance.id, userId: player.userId })).toBe(4_000_000n);
  });

  it('above what is left today: the PIN is asked for, and with it the purchase goes through', async () => {
    const player = await fundedPlayer();
    await approve(player.userId, '5');
    const first = await usdcCharge('3');
    await payFromBalance({ userId: player.userId, chargeId: first.chargeId });
    const second = await usdcCharge('2.5');
    expect(await appError(payFromBalance({ userId: player.userId, chargeId: second.chargeId }))).toMatchObject({
      code: 'step_up_required',
      param: 'pin',
      message: expect.stringMatching(/above what is left of your spending allowance/),
    });
    expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, second.chargeId))).toHaveLength(0);
    await payFromBalance({ userId: player.userId, chargeId: second.chargeId, pin: PIN });
    const [charge] = await getDb().select().from(charges).where(eq(charges.id, second.chargeId));
    expect(charge!.allowanceId).toBeNull();
  });

  it('another merchant, or another token of the same merchant: the PIN is asked for', async () => {
    const player = await fundedPlayer();
    await approve(player.userId, '100');
    const elsewhere = await usdcCharge('1', otherMerchant);
    expect(await appError(payFromBalance({ userId: player.userId, chargeId: elsewhere.chargeId }))).toMatchObject({
      code: 'step_up_required',
    });
    const native = await createTestCharge({
      apiKey: merchant.liveKey,
      body: { chargeData: { symbol: 'POL', chain: 'POLYGON', tokenAddress: NATIVE_EVM, amount: '0.5' } },
    });
    expect(await appError(payFromBalance({ userId: player.userId, chargeId: native.chargeId }))).toMatchObject({
      code: 'step_up_required',
    });
  });

  it('expired or revoked: the PIN is asked for; a revocation reaches even a purchase already past the preview (the gate)', async () => {
    const player = await fundedPlayer();
    const expiring = await approve(player.userId, '100');
    await getDb()
      .update(spendingAllowances)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(spendingAllowances.id, expiring.id));
    const afterExpiry = await usdcCharge('1');
    expect(await appError(payFromBalance({ userId: player.userId, chargeId: afterExpiry.chargeId }))).toMatchObject({
      code: 'step_up_required',
    });

    const revoked = await approve(player.userId, '100');
    const charge = await usdcCharge('1');
    await revokeSpendingAllowance({ userId: player.userId, allowanceId: revoked.id });
    expect(await appError(payFromBalance({ userId: player.userId, chargeId: charge.chargeId }))).toMatchObject({
      code: 'step_up_required',
    });
    // Past the preview (allowanceForPayment), the gate itself refuses under the allowance's lock.
    expect(await appError(signBalancePayment({ userId: player.userId, chargeId: charge.chargeId, allowanceId: revoked.id }))).toMatchObject(
      {
        code: 'transfer_not_authorized',
        message: expect.stringMatching(/revoked/),
      },
    );
    // Another user's allowance is refused by the gate, whoever names it.
    const other = await fundedPlayer();
    const theirs = await approve(other.userId, '100');
    expect(await appError(signBalancePayment({ userId: player.userId, chargeId: charge.chargeId, allowanceId: theirs.id }))).toMatchObject({
      code: 'transfer_not_authorized',
    });
    expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, charge.chargeId))).toHaveLength(0);
  });

  it('list and revoke: only the owner revokes, once; a revoked allowance leaves the list', async () => {
    const player = await fundedPlayer();
    const allowance = await approve(player.userId, '7');
    expect(await listSpendingAllowances(player.userId)).toEqual([expect.objectContaining({ id: allowance.id, amountPerDay: '7' })]);
    const stranger = await fundedPlayer();
    expect(await appError(revokeSpendingAllowance({ userId: stranger.userId, allowanceId: allowance.id }))).toMatchObject({
      code: 'not_found',
    });
    await revokeSpendingAllowance({ userId: player.userId, allowanceId: allowance.id });
    expect(await listSpendingAllowances(player.userId)).toEqual([]);
    expect(await appError(revokeSpendingAllowance({ userId: player.userId, allowanceId: allowance.id }))).toMatchObject({
      code: 'not_found',
    });
  });
});

describe('a payment under an allowance that fails', () => {
  it('gives its amount back to the day and no longer marks the charge paid under the allowance', async () => {
    const player = await fundedPlayer();
    const allowance = await approve(player.userId, '5');
    const { chargeId } = await usdcCharge('4');
    const signed = await signBalancePayment({ userId: player.userId, chargeId, allowanceId: allowance.id });
    expect((await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.allowanceId).toBe(allowance.id);
    expect(await allowanceSpent(getDb(), { allowanceId: allowance.id, userId: player.userId })).toBe(4_000_000n);
    // Before it is broadcast, the wallet's nonce is used by another transaction: the payment can never land.
    const chain = client();
    await chain.request({ method: 'anvil_impersonateAccount' as never, params: [player.address] as never });
    const other = await chain.request({
      method: 'eth_sendTransaction' as never,
      params: [{ from: player.address, to: player.address, value: '0x0' }] as never,
    });
    await chain.waitForTransactionReceipt({ hash: other as Hex });
    await chain.request({ method: 'anvil_stopImpersonatingAccount' as never, params: [player.address] as never });
    await reconcileDueTransfers({ ignoreSchedule: true });
    await reconcileDueTransfers({ ignoreSchedule: true });
    const [transfer] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, signed.transferId));
    expect(transfer!.status).toBe('failed');
    expect((await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.allowanceId).toBeNull();
    expect(await allowanceSpent(getDb(), { allowanceId: allowance.id, userId: player.userId })).toBe(0n);
  });
});

describe('the last of the budget', () => {
  it('two concurrent purchases that each fit but not together: exactly one is paid without the PIN', async () => {
    const player = await fundedPlayer();
    const allowance = await approve(player.userId, '5');
    const [a, b] = await Promise.all([usdcCharge('3'), usdcCharge('3')]);
    const results = await Promise.allSettled([
      payFromBalance({ userId: player.userId, chargeId: a.chargeId }),
      payFromBalance({ userId: player.userId, chargeId: b.chargeId }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    expect(refused.reason).toMatchObject({ code: 'step_up_required' });
    expect(await allowanceSpent(getDb(), { allowanceId: allowance.id, userId: player.userId })).toBe(3_000_000n);
  });

  it('the gate holds the allowance row: a second recording waits for the first and counts it (no sender lock involved)', async () => {
    const player = await fundedPlayer();
    const allowance = await approve(player.userId, '5');
    const [a, b] = await Promise.all([usdcCharge('3'), usdcCharge('3')]);
    const movement = (deposit: string) => ({
      chain: 'POLYGON' as const,
      from: getAddress(player.address),
      spend: { token: { address: USDC.address, isNative: false }, amount: 3_000_000n, recipient: deposit },
      call: {
        to: USDC.address as Hex,
        value: 0n,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [deposit as Hex, 3_000_000n] }),
      },
    });
    const authorization = {
      authority: { kind: 'payer_allowance' as const, userId: player.userId, allowanceId: allowance.id },
      destination: { class: 'charge_deposit' as const },
    };
    let firstAuthorized!: () => void;
    const authorized = new Promise<void>((resolve) => (firstAuthorized = resolve));
    // The first recording: authorised, then its transfer row written, committed only a while later.
    const fakeId = newId('outboundTransfer');
    const first = getDb().transaction(async (tx) => {
      await authorizeTransfer(tx, {
        prepared: movement(a.deposit.address),
        purpose: 'balance_payment',
        chargeId: a.chargeId,
        authorization,
      });
      await tx.insert(outboundTransfers).values({
        id: fakeId,
        chargeId: a.chargeId,
        purpose: 'balance_payment',
        chain: 'POLYGON',
        fromAddress: getAddress(player.address),
        toAddress: a.deposit.address,
        tokenAddress: USDC.address,
        amountBaseUnits: 3_000_000n,
        nonce: 1_000_000,
        txHash: `0x${newId('outboundTransfer').slice(4).padEnd(64, '0')}`,
        rawTransaction: '0x',
        // Never broadcast or reconciled (deleted below): only counted.
        status: 'confirmed',
        authority: allowanceAuthority(allowance.id, player.userId),
      });
      firstAuthorized();
      await new Promise((resolve) => setTimeout(resolve, 400));
    });
    await authorized;
    const started = Date.now();
    const second = await appError(
      getDb().transaction((tx) =>
        authorizeTransfer(tx, { prepared: movement(b.deposit.address), purpose: 'balance_payment', chargeId: b.chargeId, authorization }),
      ),
    );
    await first;
    expect(second).toMatchObject({ code: 'transfer_not_authorized', message: expect.stringMatching(/above what is left/) });
    // It waited for the first transaction's lock rather than reading before it committed.
    expect(Date.now() - started).toBeGreaterThan(250);
    await getDb().delete(outboundTransfers).where(eq(outboundTransfers.id, fakeId));
  });
});
