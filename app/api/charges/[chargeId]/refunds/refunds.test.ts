/**
 * POST/GET /api/charges/{chargeId}/refunds against real PostgreSQL and the local Polygon node: refunds
 * from the deposit address and from the merchant wallet, the payer as default destination (never an address
 * a key alone chose, N2), claim links when the sender may not be the payer, no refunds on open charges (N8),
 * late funds refunded without shrinking the sweep (N11), clear refusals that send nothing, idempotency,
 * races, and the webhooks.
 */
import { and, eq } from 'drizzle-orm';
import { createWalletClient, erc20Abi, http, parseEther, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { setPin } from '@/lib/accounts/set-pin';
import { createUser } from '@/lib/accounts/create-user';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, outboundTransfers, payments, refunds, webhookEvents } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { sweepCharge } from '@/lib/payments/sweep-charges';
import { pollChain } from '@/lib/payments/poll-chain';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { listWallets } from '@/lib/wallets/list-wallets';
import { POST as createChargeRoute } from '@/app/api/createCharge/route';
import { uniqueEmail } from '@/test/accounts';
import { callRoute, newMerchant, type TestMerchant } from '@/test/fixtures';
import { GET, POST } from './route';
import { POST as cancelRoute } from '../cancel/route';
import { listStrandedFunds } from '@/lib/refunds/stranded-funds';
import { expireRefundClaims } from '@/lib/refunds/expire-refund-claims';
import { USDC, client, sendUsdcFromOutside, settled, usdcOf } from '@/test/polygon-usdc';

const PIN = '583920';
let merchant: TestMerchant;

beforeAll(async () => {
  merchant = await newMerchant({ verified: true });
});

async function fundedConsumer(): Promise<{ userId: string; address: Address }> {
  const email = uniqueEmail('refund');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  await setPin({ userId: user.id, pin: PIN, confirm: PIN });
  const evm = (await listWallets(user.id)).find((w) => w.family === 'evm')!;
  await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: evm.address as Address });
  return { userId: user.id, address: evm.address as Address };
}

async function createCharge(chargeData: Record<string, unknown>, key = merchant.liveKey!): Promise<string> {
  const res = await callRoute(createChargeRoute, { apiKey: key, body: { chargeData } });
  expect(res.status).toBe(200);
  return res.json.data.chargeId as string;
}

/** A USDC charge paid from a consumer's balance and settled (its funds still at the deposit address). */
async function paidByBalance(amount: string): Promise<{ chargeId: string; consumer: { userId: string; address: Address } }> {
  const consumer = await fundedConsumer();
  const chargeId = await createCharge({ symbol: 'USDC', chain: 'POLYGON', tokenAddress: USDC.address, amount });
  const { txHash } = await payFromBalance({ userId: consumer.userId, chargeId, pin: PIN });
  await client().waitForTransactionReceipt({ hash: txHash as Hex });
  await settled(chargeId);
  return { chargeId, consumer };
}

const refund = (chargeId: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  callRoute(POST, { apiKey: merchant.liveKey!, params: { chargeId }, body, headers });

async function untilFinal(chargeId: string, refundId: string): Promise<string> {
  for (let i = 0; i < 20; i++) {
    await reconcileDueTransfers({ ignoreSchedule: true });
    const list = await callRoute(GET, { apiKey: merchant.liveKey!, params: { chargeId } });
    const found = list.json.data.data.find((r: { id: string }) => r.id === refundId);
    if (found.status === 'succeeded' || found.status === 'failed') return found.status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return 'timeout';
}

const eventsOf = async (chargeId: string, type: string) =>
  getDb()
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.chargeId, chargeId), eq(webhookEvents.type, type)));

describe('refunds', () => {
  it('before the sweep: from the deposit address back to the payer, exact, with refund.created then refund.succeeded', async () => {
    const { chargeId, consumer } = await paidByBalance('4.99');
    const before = await usdcOf(consumer.address);
    const res = await refund(chargeId, { amount: '1.5', reason: 'item out of stock' });
    expect(res.status).toBe(200);
    expect(res.json.error).toBeNull();
    const created = res.json.data;
    expect(created).toMatchObject({
      object: 'refund',
      chargeId,
      amount: '1.5',
      amountBaseUnits: '1500000',
      destination: consumer.address,
      source: 'deposit_address',
      reason: 'item out of stock',
    });
    expect(created.id).toMatch(/^rf_/);
    expect(['pending', 'submitted']).toContain(created.status);

    expect(await untilFinal(chargeId, created.id)).toBe('succeeded');
    expect((await usdcOf(consumer.address)) - before).toBe(parseUnits('1.5', 6));
    expect(await eventsOf(chargeId, 'refund.created')).toHaveLength(1);
    const succeeded = await eventsOf(chargeId, 'refund.succeeded');
    expect(succeeded).toHaveLength(1);
    expect((succeeded[0]!.payload as { data: { refund: { status: string } } }).data.refund.status).toBe('succeeded');

    const list = await callRoute(GET, { apiKey: merchant.liveKey!, params: { chargeId } });
    expect(list.json.data.refundable).toEqual({ amount: '3.49', amountBaseUnits: '3490000' });
    expect(list.json.data.data[0].timeline.map((t: { status: string }) => t.status)).toEqual(['pending', 'submitted', 'succeeded']);
  });

  it('the sweep leaves what was refunded: it sends only the rest to the merchant', async () => {
    const { chargeId } = await paidByBalance('2');
    const res = await refund(chargeId, { amount: '0.5' });
    expect(await untilFinal(chargeId, res.json.data.id)).toBe('succeeded');
    for (let i = 0; i < 6 && (await sweepCharge(chargeId)) !== 'nothing_owed'; i++) await reconcileDueTransfers({ ignoreSchedule: true });
    const [sweep] = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'sweep')));
    expect(sweep!.amountBaseUnits).toBe(parseUnits('1.5', 6));
  });

  it('after the sweep: paid from the merchant wallet; the default amount is everything still refundable', async () => {
    const { chargeId, consumer } = await paidByBalance('3.25');
    for (let i = 0; i < 6 && (await sweepCharge(chargeId)) !== 'nothing_owed'; i++) await reconcileDueTransfers({ ignoreSchedule: true });
    const before = await usdcOf(consumer.address);
    const res = await refund(chargeId);
    expect(res.json.data).toMatchObject({ amount: '3.25', source: 'merchant_wallet', destination: consumer.address });
    expect(await untilFinal(chargeId, res.json.data.id)).toBe('succeeded');
    expect((await usdcOf(consumer.address)) - before).toBe(parseUnits('3.25', 6));
  });

  it('refuses more than is refundable (422) and a second full refund, writing nothing', async () => {
    const { chargeId } = await paidByBalance('1');
    const tooMuch = await refund(chargeId, { amount: '1.000001' });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.json.error).toMatchObject({ code: 'refund_exceeds_refundable', param: 'amount' });
    expect(tooMuch.json.error!.message).toMatch(/At most 1 USDC/);
    expect(await getDb().select().from(refunds).where(eq(refunds.chargeId, chargeId))).toHaveLength(0);

    // Two full refunds at once: exactly one is made.
    const both = await Promise.all([refund(chargeId), refund(chargeId)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 422]);
    expect(await getDb().select().from(refunds).where(eq(refunds.chargeId, chargeId))).toHaveLength(1);
  });

  it('a retried request with the same Idempotency-Key is the same refund; another body with it is 409', async () => {
    const { chargeId } = await paidByBalance('2');
    const headers = { 'Idempotency-Key': `refund-${chargeId}` };
    const first = await refund(chargeId, { amount: '0.25' }, headers);
    const again = await refund(chargeId, { amount: '0.25' }, headers);
    expect(again.status).toBe(200);
    expect(again.json.data.id).toBe(first.json.data.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await refund(chargeId, { amount: '0.5' }, headers);
    expect(other.status).toBe(409);
    expect(other.json.error!.code).toBe('idempotency_conflict');
    expect(await getDb().select().from(refunds).where(eq(refunds.chargeId, chargeId))).toHaveLength(1);
  });

  it('the same refund asked twice at once (two instances) is one refund: both answers carry it', async () => {
    const { chargeId } = await paidByBalance('2');
    const headers = { 'Idempotency-Key': `refund-race-${chargeId}` };
    const answers = await Promise.all([refund(chargeId, {}, headers), refund(chargeId, {}, headers)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers[0]!.json.data.id).toBe(answers[1]!.json.data.id);
    expect(await getDb().select().from(refunds).where(eq(refunds.chargeId, chargeId))).toHaveLength(1);
  });

  it('funds that went to a toAddress have left Chargeport: 409 refund_not_possible', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const consumer = await fundedConsumer();
    const chargeId = await createCharge({
      symbol: 'USDC',
      chain: 'POLYGON',
      tokenAddress: USDC.address,
      amount: '1',
      toAddress: recipient,
    });
    const { txHash } = await payFromBalance({ userId: consumer.userId, chargeId, pin: PIN });
    await client().waitForTransactionReceipt({ hash: txHash as Hex });
    await settled(chargeId);
    for (let i = 0; i < 6 && (await sweepCharge(chargeId)) !== 'nothing_owed'; i++) await reconcileDueTransfers({ ignoreSchedule: true });
    const res = await refund(chargeId);
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'refund_not_possible' });
    expect(res.json.error!.message).toMatch(/toAddress/);
  });

  it('a payment from a contract becomes a claim link; once it expires, a refund to that payer that reverts fails, says so, and is refundable again', async () => {
    const chargeId = await createCharge({
      symbol: 'POL',
      chain: 'POLYGON',
      tokenAddress: '0x0000000000000000000000000000000000000000',
      amount: '0.5',
    });
    const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
    // The payer is a contract (a smart-contract wallet): here, an address with code that reverts on any call.
    const payerKey = generatePrivateKey();
    const payer = privateKeyToAccount(payerKey);
    await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: payer.address });
    const wallet = createWalletClient({ account: payer, transport: http(rpcUrl('POLYGON')!) });
    await client().waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: deposit!.address as Address, value: parseEther('0.5'), chain: null }),
    });
    await settled(chargeId);
    await client().request({ method: 'anvil_setCode' as never, params: [payer.address, '0x60006000fd'] as never });

    // No toAddress: the contract may not hand the money to the person who paid, so the payer claims it.
    const implicit = await refund(chargeId);
    expect(implicit.status).toBe(200);
    expect(implicit.json.data).toMatchObject({ status: 'awaiting_claim', destination: null, source: null, amount: '0.5' });
    expect(implicit.json.data.claimUrl).toMatch(/\/refunds\/claim\/[0-9A-Za-z]{32}$/);
    const reserved = await callRoute(GET, { apiKey: merchant.liveKey!, params: { chargeId } });
    expect(reserved.json.data.refundable.amount).toBe('0');
    expect(reserved.json.data.data[0].claimUrl).toBeUndefined();
    await expireRefundClaims(new Date(Date.now() + 31 * 24 * 3600_000));

    // Sent to the contract explicitly (it paid the charge), it reverts: the refund fails and nothing is lost.
    const explicit = await refund(chargeId, { toAddress: payer.address });
    expect(explicit.status).toBe(200);
    expect(await untilFinal(chargeId, explicit.json.data.id)).toBe('failed');
    expect(await eventsOf(chargeId, 'refund.failed')).toHaveLength(1);
    const list = await callRoute(GET, { apiKey: merchant.liveKey!, params: { chargeId } });
    expect(list.json.data.refundable.amount).toBe('0.5');
    expect(list.json.data.data.map((r: { status: string }) => r.status)).toEqual(['expired', 'failed']);
    expect(list.json.data.data[1].failureReason).toMatch(/reverted/);
  });

  it('a secret key cannot send a refund to an address that never paid (403, nothing recorded); the payer’s own address is accepted', async () => {
    const { chargeId, consumer } = await paidByBalance('1');
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const refused = await refund(chargeId, { toAddress: stranger, amount: '0.1' });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: 'refund_destination_not_payer', param: 'toAddress' });
    expect(refused.json.error!.message).toMatch(/owner/);
    expect(await getDb().select().from(refunds).where(eq(refunds.chargeId, chargeId))).toHaveLength(0);
    expect(
      await getDb()
        .select()
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'refund'))),
    ).toHaveLength(0);

    const toPayer = await refund(chargeId, { toAddress: consumer.address.toLowerCase(), amount: '0.1' });
    expect(toPayer.status).toBe(200);
    expect(toPayer.json.data).toMatchObject({ destination: consumer.address, status: expect.stringMatching(/pending|submitted/) });
  });

  it('a charge still processing (partly paid) cannot be refunded: 409 charge_not_settled, nothing recorded', async () => {
    const chargeId = await createCharge({ symbol: 'USDC', chain: 'POLYGON', tokenAddress: USDC.address, amount: '2' });
    const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
    await sendUsdcFromOutside(deposit!.address as Address, '1.2');
    for (let i = 0; i < 10; i++) await pollChain('POLYGON');
    const [row] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
    expect(row!.status).toBe('processing');

    const res = await refund(chargeId);
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'charge_not_settled' });
    expect(res.json.error!.message).toMatch(/succeeds, fails or expires/);
    expect(await getDb().select().from(refunds).where(eq(refunds.chargeId, chargeId))).toHaveLength(0);
  });

  it('a refund of a late payment from the deposit does not shrink the sweep, and the late funds cannot be refunded twice (N11)', async () => {
    const chargeId = await createCharge({ symbol: 'USDC', chain: 'POLYGON', tokenAddress: USDC.address, amount: '1' });
    const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
    const sender = privateKeyToAccount(generatePrivateKey());
    await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: sender.address });
    const wallet = createWalletClient({ account: sender, transport: http(rpcUrl('POLYGON')!) });
    const pay = async (amount: string) =>
      client().waitForTransactionReceipt({
        hash: await wallet.writeContract({
          address: USDC.address as Address,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [deposit!.address as Address, parseUnits(amount, 6)],
          chain: null,
        }),
      });
    // The price on time; then 0.4 mined after the charge's expiry, both seen in one pass: 0.4 is late.
    const onTime = await pay('1');
    const { timestamp } = await client().getBlock({ blockNumber: onTime.blockNumber });
    await getDb()
      .update(charges)
      .set({ expiresAt: new Date(Number(timestamp) * 1000) })
      .where(eq(charges.id, chargeId));
    await client().request({ method: 'evm_increaseTime' as never, params: [5] as never });
    await pay('0.4');
    await settled(chargeId);
    const late = await getDb()
      .select()
      .from(payments)
      .where(and(eq(payments.chargeId, chargeId), eq(payments.isLate, true)));
    expect(late.map((p) => p.amountBaseUnits)).toEqual([parseUnits('0.4', 6)]);
    expect((await listStrandedFunds({ merchantId: merchant.id, mode: 'live' })).find((r) => r.chargeId === chargeId)).toMatchObject({
      amount: '0.4',
      reason: 'late_payment',
    });

    // The merchant refunds the late 0.4 from the deposit before the sweep.
    const first = await refund(chargeId, { amount: '0.4' });
    expect(first.json.data).toMatchObject({ source: 'deposit_address', destination: sender.address });
    expect(await untilFinal(chargeId, first.json.data.id)).toBe('succeeded');
    expect((await listStrandedFunds({ merchantId: merchant.id, mode: 'live' })).find((r) => r.chargeId === chargeId)).toBeUndefined();

    // The sweep still pays the merchant the full price; nothing is left at the deposit to refund again.
    for (let i = 0; i < 6 && (await sweepCharge(chargeId)) !== 'nothing_owed'; i++) await reconcileDueTransfers({ ignoreSchedule: true });
    const sweeps = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'sweep')));
    expect(sweeps.map((s) => s.amountBaseUnits)).toEqual([parseUnits('1', 6)]);
    expect(await usdcOf(deposit!.address as Address)).toBe(0n);
    const list = await callRoute(GET, { apiKey: merchant.liveKey!, params: { chargeId } });
    expect(list.json.data.refundable.amount).toBe('1');
    // A second refund of those 0.4 is the merchant's own money now (from its wallet), never the deposit's again.
    const again = await refund(chargeId, { amount: '0.4' });
    expect(again.json.data).toMatchObject({ source: 'merchant_wallet' });
    const tooMuch = await refund(chargeId, { amount: '0.600001' });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.json.error).toMatchObject({ code: 'refund_exceeds_refundable' });
  });

  it('only the key’s own merchant and mode: another merchant’s charge and a test key are 404', async () => {
    const { chargeId } = await paidByBalance('1');
    const other = await newMerchant();
    const foreign = await callRoute(POST, { apiKey: other.liveKey!, params: { chargeId }, body: {} });
    expect(foreign.status).toBe(404);
    const testKey = await callRoute(POST, { apiKey: merchant.testKey, params: { chargeId }, body: {} });
    expect(testKey.status).toBe(404);
    const bad = await refund(chargeId, { amount: 'ten' });
    expect(bad.status).toBe(400);
    expect(await getDb().select().from(refunds).where(eq(refunds.chargeId, chargeId))).toHaveLength(0);
  });

  it('funds sent to a canceled charge are listed as awaiting refund until refunded to the sender', async () => {
    const chargeId = await createCharge({ symbol: 'USDC', chain: 'POLYGON', tokenAddress: USDC.address, amount: '2' });
    expect((await callRoute(cancelRoute, { apiKey: merchant.liveKey!, params: { chargeId }, method: 'POST' })).status).toBe(200);
    const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
    const { sender } = await sendUsdcFromOutside(deposit!.address as Address, '2');
    for (let i = 0; i < 10; i++) await pollChain('POLYGON');
    const stranded = await listStrandedFunds({ merchantId: merchant.id, mode: 'live' });
    expect(stranded.find((row) => row.chargeId === chargeId)).toMatchObject({
      amount: '2',
      symbol: 'USDC',
      reason: 'charge_not_succeeded',
    });

    const res = await refund(chargeId);
    expect(res.json.data).toMatchObject({ amount: '2', destination: sender, source: 'deposit_address' });
    expect(await untilFinal(chargeId, res.json.data.id)).toBe('succeeded');
    expect((await listStrandedFunds({ merchantId: merchant.id, mode: 'live' })).find((row) => row.chargeId === chargeId)).toBeUndefined();
    expect(await usdcOf(sender)).toBeGreaterThanOrEqual(parseUnits('2', 6));
  });
});
