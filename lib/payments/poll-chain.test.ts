import { eq } from 'drizzle-orm';
import { privateKeyToAddress, generatePrivateKey } from 'viem/accounts';
import { createPublicClient, createWalletClient, erc20Abi, http, parseEther, parseUnits, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDueCharges } from '@/lib/charges/expire-charges';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { chargeEvents, charges, depositAddresses, payments } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { localDemoPayerAccount, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { failUnderpaidCharges } from './settle-charge';
import { pollChain, watchedAddresses } from './poll-chain';
import { outsideTransactions } from '@/lib/chains/clients';

// A private BSC node for this file: re-organisations made here cannot disturb other test files.
let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;
const USDT = CHAINS.BSC.tokens.find((t) => t.symbol === 'USDT')!;
const payer = () => createWalletClient({ account: localDemoPayerAccount, transport: http(node.url) });

beforeAll(async () => {
  node = await startLocalChain({ chain: 'BSC' });
  await provisionLocalChain({ chain: 'BSC', url: node.url });
  client = createPublicClient({ transport: outsideTransactions(http(node.url)) });
  process.env.RPC_URL_BSC = node.url;
  process.env.LOCAL_CHAINS = 'BSC,POLYGON,POLYGON_AMOY';
  resetEnvCache();
  merchant = await newMerchant();
  // Start the watcher's cursor at the current head.
  await pollChain('BSC', { client });
});

afterAll(async () => {
  await node.stop();
});

async function usdtCharge(amount: string): Promise<{ chargeId: string; deposit: `0x${string}` }> {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.liveKey,
    body: { chargeData: { symbol: 'USDT', chain: 'BSC', tokenAddress: USDT.address, amount } },
  });
  return { chargeId, deposit: deposit.address as `0x${string}` };
}

async function sendUsdt(to: `0x${string}`, amount: string): Promise<`0x${string}`> {
  const hash = await payer().writeContract({
    address: USDT.address as `0x${string}`,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to, parseUnits(amount, USDT.decimals)],
    chain: null,
  });
  await client.waitForTransactionReceipt({ hash });
  return hash;
}

async function status(chargeId: string) {
  const [row] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  return row!.status;
}

async function eventsOf(chargeId: string) {
  return getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
}

describe('chain watcher', () => {
  it('finds watched deposit addresses among thousands of recipients, in batches, and only while watched', async () => {
    const watched = await usdtCharge('1');
    const strangers = Array.from({ length: 2_400 }, () => privateKeyToAddress(generatePrivateKey()));
    const recipients = [...strangers.slice(0, 2_200), watched.deposit, ...strangers.slice(2_200)];
    const found = await watchedAddresses(getDb(), 'BSC', new Date(), recipients);
    expect([...found.entries()]).toEqual([
      [watched.deposit.toLowerCase(), { chargeId: watched.chargeId, token: USDT.address.toLowerCase() }],
    ]);
    // Past its watch window (24 h after expiry) the address is no longer matched.
    const [row] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, watched.chargeId));
    expect((await watchedAddresses(getDb(), 'BSC', new Date(row!.watchUntil.getTime() + 1), recipients)).size).toBe(0);
  });

  it('gives every EVM charge its own deposit address', async () => {
    const a = await usdtCharge('1');
    const b = await usdtCharge('1');
    expect(a.deposit).not.toBe(b.deposit);
    expect(a.deposit).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('an exact ERC-20 payment takes the charge through processing to succeeded, counted once', async () => {
    const { chargeId, deposit } = await usdtCharge('12.5');
    const hash = await sendUsdt(deposit, '12.5');
    await pollChain('BSC', { client });
    await pollChain('BSC', { client });
    expect(await status(chargeId)).toBe('succeeded');
    const rows = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ txHash: hash, status: 'confirmed', amountBaseUnits: parseUnits('12.5', USDT.decimals) });
    expect((await eventsOf(chargeId)).map((e) => e.type)).toEqual(['charge.pending', 'charge.processing', 'charge.succeeded']);
  });

  it('a native payment works the same way', async () => {
    const { chargeId, deposit } = await createTestCharge({
      apiKey: merchant.liveKey,
      body: { chargeData: { symbol: 'BNB', chain: 'BSC', tokenAddress: '0x0000000000000000000000000000000000000000', amount: '0.25' } },
    });
    const hash = await payer().sendTransaction({ to: deposit.address as `0x${string}`, value: parseEther('0.25'), chain: null });
    await client.waitForTransactionReceipt({ hash });
    await pollChain('BSC', { client });
    expect(await status(chargeId)).toBe('succeeded');
  });

  it("only the charge's own token pays it: another token or the native coin sent to its address does not count", async () => {
    const { chargeId, deposit } = await usdtCharge('3');
    const USDC = CHAINS.BSC.tokens.find((t) => t.symbol === 'USDC')!;
    const usdc = await payer().writeContract({
      address: USDC.address as `0x${string}`,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [deposit, parseUnits('3', USDC.decimals)],
      chain: null,
    });
    await client.waitForTransactionReceipt({ hash: usdc });
    // 3 USDT is 3e18 base units: the same number of wei of BNB must not pass for it.
    const bnb = await payer().sendTransaction({ to: deposit, value: parseUnits('3', USDT.decimals), chain: null });
    await client.waitForTransactionReceipt({ hash: bnb });
    await pollChain('BSC', { client });
    expect(await status(chargeId)).toBe('pending');
    expect(await getDb().select().from(payments).where(eq(payments.chargeId, chargeId))).toHaveLength(0);
  });

  it('underpaid stays processing with the amount due; a top-up completes it', async () => {
    const { chargeId, deposit } = await usdtCharge('10');
    await sendUsdt(deposit, '4');
    await pollChain('BSC', { client });
    expect(await status(chargeId)).toBe('processing');
    await sendUsdt(deposit, '6');
    await pollChain('BSC', { client });
    expect(await status(chargeId)).toBe('succeeded');
  });

  it('still underpaid at expiry → failed', async () => {
    const { chargeId, deposit } = await usdtCharge('10');
    await sendUsdt(deposit, '1');
    await pollChain('BSC', { client });
    await getDb()
      .update(charges)
      .set({ expiresAt: new Date(Date.now() - 10_000) })
      .where(eq(charges.id, chargeId));
    // Failure waits until the watcher has scanned every block up to expiresAt.
    await pollChain('BSC', { client });
    await getDb().transaction((tx) => failUnderpaidCharges(tx));
    expect(await status(chargeId)).toBe('failed');
    const failedEvent = (await eventsOf(chargeId)).find((e) => e.toStatus === 'failed');
    expect(failedEvent?.data).toMatchObject({ reason: 'underpaid', dueBaseUnits: parseUnits('9', USDT.decimals).toString() });
  });

  it('overpaid → succeeded with the excess recorded for refund', async () => {
    const { chargeId, deposit } = await usdtCharge('5');
    await sendUsdt(deposit, '7');
    await pollChain('BSC', { client });
    expect(await status(chargeId)).toBe('succeeded');
    const succeeded = (await eventsOf(chargeId)).find((e) => e.toStatus === 'succeeded' && e.type === 'charge.succeeded');
    expect(succeeded?.data).toMatchObject({ excessBaseUnits: parseUnits('2', USDT.decimals).toString() });
  });

  it('a payment after expiry is recorded as late and reported, not lost', async () => {
    const { chargeId, deposit } = await usdtCharge('3');
    await getDb()
      .update(charges)
      .set({ expiresAt: new Date(Date.now() - 10_000) })
      .where(eq(charges.id, chargeId));
    // Expiry waits until the watcher has scanned every block up to expiresAt.
    await pollChain('BSC', { client });
    await expireDueCharges();
    await sendUsdt(deposit, '3');
    await pollChain('BSC', { client });
    expect(await status(chargeId)).toBe('expired');
    const [payment] = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
    expect(payment).toMatchObject({ isLate: true });
    expect((await eventsOf(chargeId)).map((e) => e.type)).toContain('charge.late_payment');
  });

  it('resumes from its cursor after a restart: nothing missed while it was down, nothing counted twice', async () => {
    const first = await usdtCharge('1');
    const second = await usdtCharge('1');
    // "Down": two payments arrive while nobody polls.
    await sendUsdt(first.deposit, '1');
    await sendUsdt(second.deposit, '1');
    await pollChain('BSC', { client });
    await pollChain('BSC', { client });
    for (const { chargeId } of [first, second]) {
      expect(await status(chargeId)).toBe('succeeded');
      expect(await getDb().select().from(payments).where(eq(payments.chargeId, chargeId))).toHaveLength(1);
    }
  });

  it('a re-organisation that removes the block for good: unconfirmed, then dropped after re-checks (not on the first miss)', async () => {
    const { chargeId, deposit } = await usdtCharge('2');
    const snapshot = await client.request({ method: 'evm_snapshot' as never });
    await sendUsdt(deposit, '2');
    // A real depth (15 on BSC), so the payment waits in `pending`.
    await pollChain('BSC', { client, confirmations: 15 });
    expect(await status(chargeId)).toBe('processing');
    const [seen] = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
    expect(seen!.status).toBe('pending');

    await client.request({ method: 'evm_revert' as never, params: [snapshot] as never });
    await client.request({ method: 'anvil_mine' as never, params: ['0x3'] as never });
    const result = await pollChain('BSC', { client, confirmations: 15 });
    expect(result?.reorg).toBe(true);
    const [missing] = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
    expect(missing).toMatchObject({ status: 'pending', missingSinceBlock: expect.any(BigInt) });
    expect(await status(chargeId)).toBe('processing');

    // Still out of the chain a confirmation depth later: dropped.
    await client.request({ method: 'anvil_mine' as never, params: ['0xf'] as never });
    await pollChain('BSC', { client, confirmations: 15 });
    const [dropped] = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
    expect(dropped!.status).toBe('dropped');
    expect(await status(chargeId)).toBe('processing');
  });
});
