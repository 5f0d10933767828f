import { and, eq } from 'drizzle-orm';
import { createPublicClient, erc20Abi, http, parseUnits, type Hex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { setPin } from '@/lib/accounts/set-pin';
import { createUser } from '@/lib/accounts/create-user';
import { getDb } from '@/lib/db/client';
import { chargeEvents, charges, outboundTransfers, webhookEvents } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { uniqueEmail } from '@/test/accounts';
import { createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { listWallets } from '@/lib/wallets/list-wallets';
import { TEST_SECRETS } from '@/test/test-secrets';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { payFromBalance, signBalancePayment } from './pay-from-balance';
import { USDC, settle } from '@/test/polygon-usdc';

const PIN = '583920';
let merchant: TestMerchant;

async function fundedConsumer(): Promise<{ userId: string; address: Hex }> {
  const email = uniqueEmail('payer');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  await setPin({ userId: user.id, pin: PIN, confirm: PIN });
  const evm = (await listWallets(user.id)).find((w) => w.family === 'evm')!;
  await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: evm.address as Hex });
  return { userId: user.id, address: evm.address as Hex };
}

async function usdcCharge(amount = '4.99'): Promise<string> {
  const { chargeId } = await createTestCharge({
    apiKey: merchant.liveKey,
    body: { chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: USDC.address, amount } },
  });
  return chargeId;
}

beforeAll(async () => {
  merchant = await newMerchant();
});

describe('pay from balance', () => {
  it("sends the exact amount from the consumer's wallet to the charge and the watcher settles it", async () => {
    const consumer = await fundedConsumer();
    const chargeId = await usdcCharge('4.99');
    const client = createPublicClient({ transport: http(rpcUrl('POLYGON')!) });
    const before = await client.readContract({
      address: USDC.address as Hex,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [consumer.address],
    });
    const { txHash } = await payFromBalance({ userId: consumer.userId, chargeId, pin: PIN });
    await client.waitForTransactionReceipt({ hash: txHash as Hex });
    expect(await settle(chargeId)).toBe('succeeded');
    const after = await client.readContract({
      address: USDC.address as Hex,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [consumer.address],
    });
    expect(before - after).toBe(parseUnits('4.99', 6));
  });

  it('a consumer holding the token but no native coin still pays: the gas tank tops up the exact shortfall (platform cost)', async () => {
    const consumer = await fundedConsumer();
    const client = createPublicClient({ transport: http(rpcUrl('POLYGON')!) });
    await client.request({ method: 'anvil_setBalance' as never, params: [consumer.address, '0x0'] as never });
    const chargeId = await usdcCharge('3.5');
    const { txHash } = await payFromBalance({ userId: consumer.userId, chargeId, pin: PIN });
    expect((await client.waitForTransactionReceipt({ hash: txHash as Hex })).status).toBe('success');
    expect(await settle(chargeId)).toBe('succeeded');
    const transfers = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId));
    const topUp = transfers.find((t) => t.purpose === 'gas_topup')!;
    expect(topUp).toMatchObject({ fromAddress: gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address, toAddress: consumer.address });
    expect(topUp.amountBaseUnits).toBeGreaterThan(0n);
    // The consumer paid no fee of their own: whatever is left of the top-up is all they hold.
    expect(await client.getBalance({ address: consumer.address })).toBeLessThan(topUp.amountBaseUnits);
  });

  it('20 concurrent pays make one transfer and one succeeded event', async () => {
    const consumer = await fundedConsumer();
    const chargeId = await usdcCharge('1.25');
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => payFromBalance({ userId: consumer.userId, chargeId, pin: PIN })),
    );
    const fulfilled = results.filter((r): r is PromiseFulfilledResult<{ transferId: string; txHash: string }> => r.status === 'fulfilled');
    expect(fulfilled.length).toBeGreaterThan(0);
    expect(new Set(fulfilled.map((r) => r.value.txHash)).size).toBe(1);
    const transfers = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'balance_payment')));
    expect(transfers).toHaveLength(1);
    const client = createPublicClient({ transport: http(rpcUrl('POLYGON')!) });
    await client.waitForTransactionReceipt({ hash: transfers[0]!.txHash as Hex });
    expect(await settle(chargeId)).toBe('succeeded');
    const succeeded = (await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId))).filter(
      (e) => e.type === 'charge.succeeded',
    );
    expect(succeeded).toHaveLength(1);
  });

  it('a crash between signing and broadcasting sends nothing twice: the reconciler broadcasts the recorded bytes', async () => {
    const consumer = await fundedConsumer();
    const chargeId = await usdcCharge('2');
    const signed = await signBalancePayment({ userId: consumer.userId, chargeId }); // …and the process "dies" here
    const client = createPublicClient({ transport: http(rpcUrl('POLYGON')!) });
    expect(await client.getTransaction({ hash: signed.txHash as Hex }).catch(() => null)).toBeNull();
    await reconcileDueTransfers({ ignoreSchedule: true });
    await reconcileDueTransfers({ ignoreSchedule: true });
    await client.waitForTransactionReceipt({ hash: signed.txHash as Hex });
    expect(await settle(chargeId)).toBe('succeeded');
    // A retried pay after the "restart" returns the same transfer instead of signing another.
    const again = await signBalancePayment({ userId: consumer.userId, chargeId }).catch((e) => e);
    expect(again).toMatchObject({ txHash: signed.txHash, isNew: false });
    expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId))).toHaveLength(1);
  });

  it('refuses without the right PIN, with too little balance, and for a charge that is not payable', async () => {
    const consumer = await fundedConsumer();
    const chargeId = await usdcCharge('1');
    await expect(payFromBalance({ userId: consumer.userId, chargeId, pin: '000001' })).rejects.toMatchObject({ code: 'pin_incorrect' });
    const big = await usdcCharge('99999999');
    await expect(payFromBalance({ userId: consumer.userId, chargeId: big, pin: PIN })).rejects.toMatchObject({
      code: 'insufficient_balance',
      message: expect.stringMatching(/Top up/),
    });
    await getDb().update(charges).set({ status: 'canceled' }).where(eq(charges.id, chargeId));
    await expect(payFromBalance({ userId: consumer.userId, chargeId, pin: PIN })).rejects.toMatchObject({ code: 'charge_not_payable' });
    expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId))).toHaveLength(0);
  });

  it('a consumer without a PIN cannot pay (spec rule 5)', async () => {
    const email = uniqueEmail('nopin');
    const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
    const chargeId = await usdcCharge('1');
    await expect(payFromBalance({ userId: user.id, chargeId, pin: '583920' })).rejects.toMatchObject({ code: 'pin_not_set' });
  });
});

describe('a balance payment that can never land', () => {
  it('is marked failed once, reported as payment.failed, and the charge stays payable', async () => {
    const consumer = await fundedConsumer();
    const chargeId = await usdcCharge('2.5');
    const signed = await signBalancePayment({ userId: consumer.userId, chargeId });
    // Before it is broadcast, the wallet's nonce is used by another transaction (e.g. the same key used elsewhere).
    const client = createPublicClient({ transport: http(rpcUrl('POLYGON')!) });
    await client.request({ method: 'anvil_impersonateAccount' as never, params: [consumer.address] as never });
    const other = await client.request({
      method: 'eth_sendTransaction' as never,
      params: [{ from: consumer.address, to: consumer.address, value: '0x0' }] as never,
    });
    await client.waitForTransactionReceipt({ hash: other as Hex });
    await client.request({ method: 'anvil_stopImpersonatingAccount' as never, params: [consumer.address] as never });

    await reconcileDueTransfers({ ignoreSchedule: true });
    await reconcileDueTransfers({ ignoreSchedule: true });
    const [transfer] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, signed.transferId));
    expect(transfer).toMatchObject({ status: 'failed', error: expect.stringMatching(/nonce was used by another transaction/) });
    const failures = await getDb()
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.chargeId, chargeId), eq(webhookEvents.type, 'payment.failed')));
    expect(failures).toHaveLength(1);
    const [charge] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
    expect(charge!.status).toBe('pending');
    // Payable again: a new payment is signed (the failed one no longer blocks it).
    const again = await payFromBalance({ userId: consumer.userId, chargeId, pin: PIN });
    expect(again.transferId).not.toBe(signed.transferId);
    await client.waitForTransactionReceipt({ hash: again.txHash as Hex });
    expect(await settle(chargeId)).toBe('succeeded');
  });
});
