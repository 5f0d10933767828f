import { and, eq, inArray } from 'drizzle-orm';
import { createWalletClient, encodeFunctionData, erc20Abi, http, keccak256, parseEther, parseUnits, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDueCharges } from '@/lib/charges/expire-charges';
import { EVM_NATIVE_TOKEN_ADDRESS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import {
  chargeEvents,
  charges,
  merchantMembers,
  outboundTransferAttempts,
  outboundTransfers,
  payments,
  webhookEvents,
} from '@/lib/db/schema';
import { webhookEventSchemas } from '@/lib/api/webhook-event-schemas';
import { listChargesForDashboard } from '@/lib/charges/list-dashboard-charges';
import { resetEnvCache } from '@/lib/env';
import { newId } from '@/lib/ids';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { TEST_SECRETS } from '@/test/test-secrets';
import {
  fundLocalWallet,
  localDemoPayerAccount,
  localMinterAccount,
  provisionLocalChain,
  startLocalChain,
  type LocalChainNode,
} from '@/scripts/stack/local-chain';
import { addCustomToken } from '@/lib/merchants/tokens';
import { setTraceMode, type TraceMode } from '@/lib/scanner/internal-transfers';
import { newUser } from '@/test/accounts';
import { anvilFor, nativeForwarderAbi, type Anvil } from '@/test/anvil';
import { createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { failUnderpaidCharges, settleCharges } from './settle-charge';
import { sweepCharge } from './sweep-charges';
import { createRefund } from '@/lib/refunds/create-refund';
import { reconcileTransfer } from '@/lib/transactions/reconcile-transfers';
import { TRANSFER_OUTCOME_HOOKS } from '@/lib/jobs/transfer-outcome-hooks';
import { recordTransferReversed } from '@/lib/charges/record-transfer-reversed';
import { expectedBalances } from '@/lib/ledger/expected-balances';
import { pollChain } from './poll-chain';

// A private DFK node: no other test file watches DFK, so its re-organisations and cursor are this file's
// alone. Payments need 3 confirmations here, so they wait in `pending` while blocks are re-organised.
const CONFIRMATIONS = 3;
let node: LocalChainNode;
let anvil: Anvil;
let merchant: TestMerchant;
let developer: string;
/** A merchant's custom ERC-20 on DFK (DFK's registry has only its native coin, JEWEL). */
let GEM: Hex;
const payer = localDemoPayerAccount;

beforeAll(async () => {
  node = await startLocalChain({ chain: 'DFK' });
  await provisionLocalChain({ chain: 'DFK', url: node.url });
  process.env.RPC_URL_DFK = node.url;
  process.env.LOCAL_CHAINS = 'DFK,POLYGON,POLYGON_AMOY';
  resetEnvCache();
  anvil = anvilFor(node, 'DFK');
  setTraceMode(anvil.client, 'trace_block');
  GEM = await anvil.plantToken('GEM', 18);
  await anvil.mintToken(GEM, payer.address, parseUnits('1000000', 18));
  await anvil.mintToken(GEM, localMinterAccount.address, parseUnits('1000000', 18));
  merchant = await newMerchant();
  developer = await newUser();
  await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: developer, role: 'developer' });
  await addCustomToken({ userId: developer, merchantId: merchant.id, chain: 'DFK', address: GEM });
  await poll();
});

afterAll(async () => {
  await node.stop();
});

const poll = () => pollChain('DFK', { client: anvil.client, confirmations: CONFIRMATIONS });

async function newCharge(symbol: 'GEM' | 'JEWEL', amount: string): Promise<{ chargeId: string; deposit: Hex }> {
  const tokenAddress = symbol === 'GEM' ? GEM : EVM_NATIVE_TOKEN_ADDRESS;
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.liveKey,
    body: { chargeData: { symbol, chain: 'DFK', tokenAddress, amount } },
  });
  return { chargeId, deposit: deposit.address as Hex };
}

const reversalEventsOf = (chargeId: string) =>
  getDb()
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.chargeId, chargeId), eq(webhookEvents.type, 'charge.payment_reversed')));
const paymentsOf = (chargeId: string) => getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
const statusOf = async (chargeId: string) => (await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status;
const blockTimeOf = async (hash: Hex) =>
  Number((await anvil.client.getBlock({ blockHash: (await anvil.client.getTransactionReceipt({ hash })).blockHash })).timestamp) * 1000;
const sleepUntil = (time: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, time - Date.now())));

describe('re-organisations with re-inclusion (confirmation depth 3)', () => {
  const kinds = {
    'an ERC-20': { symbol: 'GEM' as const, send: (to: Hex) => anvil.transferToken(payer, GEM, to, parseUnits('5', 18)) },
    'a native-coin': { symbol: 'JEWEL' as const, send: (to: Hex) => anvil.sendNative(payer, to, parseUnits('5', 18)) },
  };
  for (const [kind, { symbol, send }] of Object.entries(kinds)) {
    it(`${kind} payment re-organised out and re-included in another block ends confirmed there, never dropped`, async () => {
      const { chargeId, deposit } = await newCharge(symbol, '5');
      const { raw, hash } = await send(deposit);
      await poll();
      const [seen] = await paymentsOf(chargeId);
      expect(seen).toMatchObject({ txHash: hash, status: 'pending' });
      expect(await statusOf(chargeId)).toBe('processing');
      await anvil.mine(1);
      await poll(); // 2 of 3 confirmations

      // Both blocks are replaced; the same transaction lands in the second new block.
      await anvil.reorg(2, [[raw, 1]]);
      const receipt = await anvil.client.getTransactionReceipt({ hash });
      expect(receipt.blockHash).not.toBe(seen!.blockHash);
      expect(receipt.blockNumber).toBe(seen!.blockNumber + 1n);
      expect((await poll())?.reorg).toBe(true);
      expect(await paymentsOf(chargeId)).toEqual([
        expect.objectContaining({
          id: seen!.id,
          status: 'pending',
          blockNumber: receipt.blockNumber,
          blockHash: receipt.blockHash,
          missingSinceBlock: null,
        }),
      ]);
      expect(await statusOf(chargeId)).toBe('processing');

      await anvil.mine(1);
      await poll(); // 2 confirmations in the new block: not yet
      expect((await paymentsOf(chargeId))[0]!.status).toBe('pending');
      await anvil.mine(1);
      await poll();
      expect(await paymentsOf(chargeId)).toEqual([
        expect.objectContaining({ id: seen!.id, status: 'confirmed', blockHash: receipt.blockHash }),
      ]);
      expect(await statusOf(chargeId)).toBe('succeeded');
    });
  }

  it('a token transfer re-included at another log index is the same payment, moved there (counted once)', async () => {
    const { chargeId, deposit } = await newCharge('GEM', '2');
    const { raw, hash } = await anvil.transferToken(payer, GEM, deposit, parseUnits('2', 18));
    await poll();
    const [seen] = await paymentsOf(chargeId);
    // Another holder's transfer goes first in the new block: the payment's log moves one place.
    const other = await anvil.sign(localMinterAccount, {
      to: GEM,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [privateKeyToAddress(generatePrivateKey()), 1n] }),
    });
    await anvil.reorg(1, [
      [other, 0],
      [raw, 0],
    ]);
    const receipt = await anvil.client.getTransactionReceipt({ hash });
    expect(receipt.logs[0]!.logIndex).toBe(seen!.logIndex + 1);
    await poll();
    expect(await paymentsOf(chargeId)).toEqual([
      expect.objectContaining({ id: seen!.id, logIndex: seen!.logIndex + 1, blockHash: receipt.blockHash, status: 'pending' }),
    ]);
    await anvil.mine(2);
    await poll();
    expect((await paymentsOf(chargeId)).map((p) => p.status)).toEqual(['confirmed']);
    expect(await statusOf(chargeId)).toBe('succeeded');
  });

  it('a payment whose transaction is really gone ends dropped — after re-checks, not on the first miss', async () => {
    const { chargeId, deposit } = await newCharge('GEM', '3');
    const { hash } = await anvil.transferToken(payer, GEM, deposit, parseUnits('3', 18));
    await poll();
    // Its block is replaced by an empty one, and nobody sends it again.
    await anvil.reorg(1);
    await expect(anvil.client.getTransaction({ hash })).rejects.toThrow();
    await poll();
    const head = await anvil.client.getBlockNumber({ cacheTime: 0 });
    expect(await paymentsOf(chargeId)).toEqual([expect.objectContaining({ status: 'pending', missingSinceBlock: head })]);
    await anvil.mine(1);
    await poll();
    expect((await paymentsOf(chargeId)).map((p) => p.status)).toEqual(['pending']);
    await anvil.mine(2); // a confirmation depth since it went missing
    await poll();
    expect((await paymentsOf(chargeId)).map((p) => p.status)).toEqual(['dropped']);
    expect(await statusOf(chargeId)).toBe('processing');
  });
});

describe('re-organisations deeper than the confirmation depth (docs/adr/0036)', () => {
  it('a payment gone after its charge succeeded: followed again, dropped after re-checks, the charge stays succeeded and its timeline says so once', async () => {
    const { chargeId, deposit } = await newCharge('GEM', '4');
    const { hash } = await anvil.transferToken(payer, GEM, deposit, parseUnits('4', 18));
    await poll();
    await anvil.mine(CONFIRMATIONS);
    await poll();
    expect(await statusOf(chargeId)).toBe('succeeded');
    expect((await paymentsOf(chargeId)).map((p) => p.status)).toEqual(['confirmed']);

    // Five blocks replaced (deeper than 3), and nobody sends it again (the payer spent the nonce elsewhere).
    await anvil.reorg(CONFIRMATIONS + 2);
    await expect(anvil.client.getTransaction({ hash })).rejects.toThrow();
    expect((await poll())?.reorg).toBe(true);
    expect((await paymentsOf(chargeId)).map((p) => p.status)).toEqual(['pending']); // followed again, not yet judged
    for (let i = 0; i < 4; i++) {
      await poll();
      await anvil.mine(2);
    }
    await poll();
    expect((await paymentsOf(chargeId)).map((p) => p.status)).toEqual(['dropped']);
    expect(await statusOf(chargeId)).toBe('succeeded');
    await poll(); // settled again: reported once, not per poll
    await getDb().transaction((tx) => settleCharges(tx, [chargeId])); // and once more, whoever settles it
    const timeline = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
    expect(timeline.filter((e) => e.type === 'charge.payment_reversed').map((e) => e.data)).toEqual([
      expect.objectContaining({ txHash: hash, amountBaseUnits: parseUnits('4', 18).toString(), chain: 'DFK' }),
    ]);
    // The merchant's server is told once too, by a public event valid for its documented schema.
    const events = await reversalEventsOf(chargeId);
    expect(events).toHaveLength(1);
    const event = webhookEventSchemas['charge.payment_reversed'].parse(events[0]!.payload);
    expect(event.data.reversedPayment).toEqual({
      txHash: hash,
      amountBaseUnits: parseUnits('4', 18).toString(),
      chain: 'DFK',
      blockNumber: (timeline.find((e) => e.type === 'charge.payment_reversed')!.data as { blockNumber: string }).blockNumber,
    });
    expect(event.data.charge).toMatchObject({
      id: chargeId,
      status: 'succeeded',
      payments: [expect.objectContaining({ status: 'dropped' })],
    });
    // Flagged for review on the dashboard's list.
    const [listed] = (
      await listChargesForDashboard({ userId: developer, merchantId: merchant.id, mode: 'live', filters: {} })
    ).charges.filter((c) => c.id === chargeId);
    expect(listed?.needsReview).toBe(true);
  });

  it('a payment re-included after a deep re-organisation is confirmed again in its new block, with no reversal reported', async () => {
    const { chargeId, deposit } = await newCharge('GEM', '2');
    const { raw, hash } = await anvil.transferToken(payer, GEM, deposit, parseUnits('2', 18));
    await poll();
    await anvil.mine(CONFIRMATIONS);
    await poll();
    expect(await statusOf(chargeId)).toBe('succeeded');
    await anvil.reorg(CONFIRMATIONS + 2, [[raw, 2]]);
    for (let i = 0; i < 3; i++) {
      await poll();
      await anvil.mine(2);
    }
    await poll();
    const receipt = await anvil.client.getTransactionReceipt({ hash });
    expect(await paymentsOf(chargeId)).toEqual([expect.objectContaining({ status: 'confirmed', blockHash: receipt.blockHash })]);
    const timeline = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
    expect(timeline.filter((e) => e.type === 'charge.payment_reversed')).toEqual([]);
    expect(await reversalEventsOf(chargeId)).toEqual([]);
    expect((await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.needsReviewSince).toBeNull();
    expect(await statusOf(chargeId)).toBe('succeeded');
  });
});

describe('our transfers confirmed in the blocks of a deep re-organisation are checked again by the engine (docs/adr/0036)', () => {
  const tank = gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED);
  const transfersOf = (chargeId: string) => getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId));
  /** The engine's pass over this charge's open transfers only (others' are not this file's to move). */
  async function reconcileOurs(chargeId: string) {
    for (const transfer of (await transfersOf(chargeId)).filter((t) => t.status !== 'confirmed' && t.status !== 'failed')) {
      await reconcileTransfer(transfer, { hooks: TRANSFER_OUTCOME_HOOKS, onReversed: recordTransferReversed });
    }
  }
  /** A GEM charge paid, succeeded at depth 3 and swept (the tank's top-up, then the sweep), both confirmed. */
  async function paidAndSwept(amount: string) {
    await fundLocalWallet({ chain: 'DFK', url: node.url, address: tank.address });
    const { chargeId, deposit } = await newCharge('GEM', amount);
    const payment = await anvil.transferToken(payer, GEM, deposit, parseUnits(amount, 18));
    await poll();
    await anvil.mine(CONFIRMATIONS);
    await poll();
    expect(await statusOf(chargeId)).toBe('succeeded');
    expect(await sweepCharge(chargeId)).toBe('swept');
    for (let i = 0; i < 6 && (await transfersOf(chargeId)).some((t) => t.status !== 'confirmed'); i++) await reconcileOurs(chargeId);
    const swept = await transfersOf(chargeId);
    expect(swept.map((t) => [t.purpose, t.status]).sort()).toEqual([
      ['gas_topup', 'confirmed'],
      ['sweep', 'confirmed'],
    ]);
    expect(await gemOf(deposit)).toBe(0n);
    const raw = (purpose: string) => swept.find((t) => t.purpose === purpose)!.rawTransaction as Hex;
    const head = await anvil.client.getBlockNumber({ cacheTime: 0 });
    const paidAt = (await anvil.client.getTransactionReceipt({ hash: payment.hash })).blockNumber;
    return { chargeId, deposit, payment, topup: raw('gas_topup'), sweep: raw('sweep'), depth: Number(head - paidAt) + 1 };
  }
  const gemOf = (address: Hex) => anvil.client.readContract({ address: GEM, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
  /** The deposit's GEM as the ledger has it at the head, and on chain. */
  async function depositBooks(deposit: Hex) {
    const head = await anvil.client.getBlockNumber({ cacheTime: 0 });
    const [entry] = await expectedBalances(getDb(), { chain: 'DFK', atBlock: head, addresses: [deposit.toLowerCase()] }).then((rows) =>
      rows.filter((row) => row.token === GEM.toLowerCase()),
    );
    return { expected: entry?.expected ?? 0n, onChain: await gemOf(deposit) };
  }

  it('the payment double-spent and our sweep re-sent: the sweep reverts, ends failed once (a reversal on the timeline), and the books no longer count it', async () => {
    const { chargeId, deposit, payment, topup, sweep, depth } = await paidAndSwept('6');
    // A branch deeper than everything since the payment: the payer's transaction is not in it (spent
    // elsewhere); ours come back as nodes re-send a dropped branch's, the sweep now from an empty deposit.
    await anvil.reorg(depth, [
      [topup, 0],
      [sweep, 1],
    ]);
    const resent = await anvil.client.getTransactionReceipt({ hash: keccak256(sweep) });
    expect(resent.status).toBe('reverted');
    expect((await poll())?.reorg).toBe(true);
    // Re-opened, not judged on one look; still counted as moved until the engine has seen the chain.
    expect((await transfersOf(chargeId)).map((t) => t.status)).toEqual(['included', 'included']);
    for (let i = 0; i < 5; i++) {
      await reconcileOurs(chargeId);
      await poll();
      await anvil.mine(2);
    }
    await reconcileOurs(chargeId);
    await poll();
    const after = await transfersOf(chargeId);
    const byPurpose = Object.fromEntries(after.map((t) => [t.purpose, t]));
    expect(after).toHaveLength(2); // nothing new signed: the same bytes, the same nonces
    expect(byPurpose.sweep).toMatchObject({ status: 'failed', includedBlockHash: resent.blockHash });
    expect(byPurpose.sweep!.error).toMatch(/^reversed by a re-organisation after it was confirmed: reverted on chain/);
    expect(byPurpose.gas_topup).toMatchObject({ status: 'confirmed' }); // mined again in another block: confirmed there
    expect(byPurpose.gas_topup!.includedBlockHash).toBe((await anvil.client.getTransactionReceipt({ hash: keccak256(topup) })).blockHash);
    expect((await paymentsOf(chargeId)).map((p) => p.status)).toEqual(['dropped']);
    // Told once: the sweep's reversal and the payment's, each once on the timeline; flagged for review.
    const timeline = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
    expect(timeline.filter((e) => e.type === 'charge.transfer_reversed').map((e) => e.data)).toEqual([
      expect.objectContaining({ purpose: 'sweep', txHash: keccak256(sweep), amountBaseUnits: parseUnits('6', 18).toString() }),
    ]);
    expect(timeline.filter((e) => e.type === 'charge.payment_reversed').map((e) => e.data)).toEqual([
      expect.objectContaining({ txHash: payment.hash }),
    ]);
    expect((await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.needsReviewSince).not.toBeNull();
    // The ledger: neither the dropped payment nor the reverted sweep moves the deposit's GEM: it matches the chain.
    expect(await depositBooks(deposit)).toEqual({ expected: 0n, onChain: 0n });
  });

  it('our transfers gone with the branch: the engine sends the same signed bytes again (same nonce, no new attempt); the sweep reverts and ends failed', async () => {
    const { chargeId, deposit, topup, sweep, depth } = await paidAndSwept('5');
    await anvil.reorg(depth); // nothing of ours comes back by itself
    await expect(anvil.client.getTransaction({ hash: keccak256(sweep) })).rejects.toThrow();
    expect((await poll())?.reorg).toBe(true);
    for (let i = 0; i < 6; i++) {
      await reconcileOurs(chargeId);
      await poll(); // the payment, gone for good, is dropped after its re-checks
      await anvil.mine(2);
    }
    await poll();
    expect((await paymentsOf(chargeId)).map((p) => p.status)).toEqual(['dropped']);
    const after = Object.fromEntries((await transfersOf(chargeId)).map((t) => [t.purpose, t]));
    expect(after.gas_topup).toMatchObject({ status: 'confirmed', rawTransaction: topup });
    expect(after.sweep).toMatchObject({ status: 'failed', rawTransaction: sweep, txHash: keccak256(sweep) });
    expect((await anvil.client.getTransactionReceipt({ hash: keccak256(sweep) })).status).toBe('reverted');
    const attempts = await getDb()
      .select()
      .from(outboundTransferAttempts)
      .where(inArray(outboundTransferAttempts.transferId, [after.gas_topup!.id, after.sweep!.id]));
    expect(attempts).toHaveLength(2);
    expect(await depositBooks(deposit)).toEqual({ expected: 0n, onChain: 0n });
  });

  it('a refund confirmed, then re-organised and mined again: confirmed again without telling its owner twice (one refund.succeeded, one charge.refunded)', async () => {
    await fundLocalWallet({ chain: 'DFK', url: node.url, address: tank.address });
    const { chargeId, deposit } = await newCharge('GEM', '4');
    const payment = await anvil.transferToken(payer, GEM, deposit, parseUnits('4', 18));
    await poll();
    await anvil.mine(CONFIRMATIONS);
    await poll();
    expect(await statusOf(chargeId)).toBe('succeeded');
    await createRefund({
      ctx: { merchantId: merchant.id, mode: 'live', actor: 'api_key:key_reorg_test' },
      chargeId,
      body: { amount: '1' },
    });
    for (let i = 0; i < 6 && (await transfersOf(chargeId)).some((t) => t.status !== 'confirmed'); i++) await reconcileOurs(chargeId);
    const told = async () => ({
      events: (
        await getDb()
          .select({ type: webhookEvents.type })
          .from(webhookEvents)
          .where(and(eq(webhookEvents.chargeId, chargeId), eq(webhookEvents.type, 'refund.succeeded')))
      ).length,
      timeline: (await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId))).filter(
        (e) => e.type === 'charge.refunded',
      ).length,
    });
    expect(await told()).toEqual({ events: 1, timeline: 1 });
    const before = await transfersOf(chargeId);
    expect(before.map((t) => [t.purpose, t.status]).sort()).toEqual([
      ['gas_topup', 'confirmed'],
      ['refund', 'confirmed'],
    ]);
    const raw = (purpose: string) => before.find((t) => t.purpose === purpose)!.rawTransaction as Hex;
    const paidAt = (await anvil.client.getTransactionReceipt({ hash: payment.hash })).blockNumber;
    const head = await anvil.client.getBlockNumber({ cacheTime: 0 });
    await anvil.reorg(Number(head - paidAt) + 1, [
      [payment.raw, 0],
      [raw('gas_topup'), 1],
      [raw('refund'), 2],
    ]);
    expect((await poll())?.reorg).toBe(true);
    expect((await transfersOf(chargeId)).map((t) => t.status)).toEqual(['included', 'included']);
    for (let i = 0; i < 4; i++) {
      await reconcileOurs(chargeId);
      await poll();
      await anvil.mine(2);
    }
    await reconcileOurs(chargeId);
    const after = await transfersOf(chargeId);
    for (const t of after) {
      const receipt = await anvil.client.getTransactionReceipt({ hash: t.txHash as Hex });
      expect(t).toMatchObject({ status: 'confirmed', includedBlockHash: receipt.blockHash });
    }
    expect(await told()).toEqual({ events: 1, timeline: 1 });
    expect(await depositBooks(deposit)).toEqual({ expected: parseUnits('3', 18), onChain: parseUnits('3', 18) });
  });

  it('the payment and our transfers re-included in other blocks: confirmed again there, once, with nothing reversed', async () => {
    const { chargeId, deposit, payment, topup, sweep, depth } = await paidAndSwept('7');
    const before = await transfersOf(chargeId);
    await anvil.reorg(depth, [
      [payment.raw, 0],
      [topup, 1],
      [sweep, 2],
    ]);
    expect((await anvil.client.getTransactionReceipt({ hash: keccak256(sweep) })).status).toBe('success');
    expect((await poll())?.reorg).toBe(true);
    for (let i = 0; i < 4; i++) {
      await reconcileOurs(chargeId);
      await poll();
      await anvil.mine(2);
    }
    await reconcileOurs(chargeId);
    const after = await transfersOf(chargeId);
    expect(after.map((t) => t.id).sort()).toEqual(before.map((t) => t.id).sort());
    for (const t of after) {
      const receipt = await anvil.client.getTransactionReceipt({ hash: t.txHash as Hex });
      expect(t).toMatchObject({ status: 'confirmed', includedBlockHash: receipt.blockHash, error: null });
      expect(t.reopenedAt).not.toBeNull();
    }
    expect((await paymentsOf(chargeId)).map((p) => p.status)).toEqual(['confirmed']);
    const timeline = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
    expect(timeline.filter((e) => e.type === 'charge.transfer_reversed' || e.type === 'charge.payment_reversed')).toEqual([]);
    expect((await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.needsReviewSince).toBeNull();
    expect(await depositBooks(deposit)).toEqual({ expected: 0n, onChain: 0n });
  });
});

describe('native coin paid through a contract (internal calls)', () => {
  async function payThroughForwarder() {
    const forwarder = await anvil.plantForwarder();
    const single = await newCharge('JEWEL', '1');
    const batchA = await newCharge('JEWEL', '2');
    const batchB = await newCharge('JEWEL', '1.5');
    const undone = await newCharge('JEWEL', '1');
    // A smart-contract wallet paying one charge, an exchange's batch withdrawal paying two, and a call
    // that reverts inside a transaction that succeeds (nothing arrives).
    const forward = await anvil.sendNative(
      payer,
      forwarder,
      parseEther('1'),
      encodeFunctionData({ abi: nativeForwarderAbi, functionName: 'forward', args: [single.deposit] }),
    );
    const batch = await anvil.sendNative(
      payer,
      forwarder,
      parseEther('3.5'),
      encodeFunctionData({
        abi: nativeForwarderAbi,
        functionName: 'forwardMany',
        args: [
          [batchA.deposit, batchB.deposit],
          [parseEther('2'), parseEther('1.5')],
        ],
      }),
    );
    await anvil.sendNative(
      payer,
      forwarder,
      parseEther('1'),
      encodeFunctionData({ abi: nativeForwarderAbi, functionName: 'forwardReverted', args: [undone.deposit] }),
    );
    expect(await anvil.client.getBalance({ address: undone.deposit })).toBe(0n);
    await poll();
    await anvil.mine(CONFIRMATIONS);
    await poll();
    return { forwarder, single, batchA, batchB, undone, forward, batch };
  }

  for (const mode of ['trace_block', 'debug_trace'] as const satisfies TraceMode[]) {
    it(`credits them from the block's traces (${mode}), with their transaction; a reverted call credits nothing`, async () => {
      setTraceMode(anvil.client, mode);
      try {
        const { forwarder, single, batchA, batchB, undone, forward, batch } = await payThroughForwarder();
        for (const charge of [single, batchA, batchB]) expect(await statusOf(charge.chargeId)).toBe('succeeded');
        expect(await paymentsOf(single.chargeId)).toEqual([
          expect.objectContaining({
            txHash: forward.hash,
            logIndex: -2,
            fromAddress: forwarder,
            amountBaseUnits: parseEther('1'),
            status: 'confirmed',
          }),
        ]);
        expect((await paymentsOf(batchA.chargeId)).map((p) => [p.txHash, p.logIndex, p.amountBaseUnits])).toEqual([
          [batch.hash, -2, parseEther('2')],
        ]);
        expect((await paymentsOf(batchB.chargeId)).map((p) => [p.txHash, p.logIndex, p.amountBaseUnits])).toEqual([
          [batch.hash, -3, parseEther('1.5')],
        ]);
        expect(await paymentsOf(undone.chargeId)).toEqual([]);
        expect(await statusOf(undone.chargeId)).toBe('pending');
      } finally {
        setTraceMode(anvil.client, 'trace_block');
      }
    });
  }

  it('without traces, credits them from the deposit balance, in the block where it arrived', async () => {
    setTraceMode(anvil.client, 'none');
    try {
      const { single, batchA, batchB, undone, forward } = await payThroughForwarder();
      for (const charge of [single, batchA, batchB]) expect(await statusOf(charge.chargeId)).toBe('succeeded');
      const block = (await anvil.client.getTransactionReceipt({ hash: forward.hash })).blockHash;
      expect(await paymentsOf(single.chargeId)).toEqual([
        expect.objectContaining({
          txHash: `balance:${block}:${single.deposit}`,
          logIndex: -1000,
          blockHash: block,
          amountBaseUnits: parseEther('1'),
          status: 'confirmed',
        }),
      ]);
      expect((await paymentsOf(batchB.chargeId)).map((p) => p.amountBaseUnits)).toEqual([parseEther('1.5')]);
      expect(await paymentsOf(undone.chargeId)).toEqual([]);
    } finally {
      setTraceMode(anvil.client, 'trace_block');
    }
  });
});

describe('without traces, our own transfers are never credited as a payment (N13)', () => {
  const tank = gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED);
  const recordOurs = async (input: {
    purpose: 'gas_topup' | 'refund';
    chargeId: string;
    from: Hex;
    to: Hex;
    amount: bigint;
    hash: Hex;
  }) => {
    const receipt = await anvil.client.getTransactionReceipt({ hash: input.hash });
    await getDb()
      .insert(outboundTransfers)
      .values({
        id: newId('outboundTransfer'),
        chargeId: input.chargeId,
        purpose: input.purpose,
        chain: 'DFK',
        fromAddress: input.from,
        toAddress: input.to,
        tokenAddress: EVM_NATIVE_TOKEN_ADDRESS,
        amountBaseUnits: input.amount,
        nonce: 0,
        txHash: input.hash,
        rawTransaction: '0x',
        // As the engine leaves them: in a block, their cost known (confirmed: no reconciler picks them up).
        status: 'confirmed',
        includedBlockNumber: receipt.blockNumber,
        includedBlockHash: receipt.blockHash,
        gasFeeBaseUnits: receipt.gasUsed * receipt.effectiveGasPrice,
      });
  };

  it('a gas top-up into an open native deposit, then a refund out of it: neither becomes a payment; a payment by contract after them still does', async () => {
    setTraceMode(anvil.client, 'none');
    try {
      await poll();
      await fundLocalWallet({ chain: 'DFK', url: node.url, address: tank.address });
      const { chargeId, deposit } = await newCharge('JEWEL', '5');
      // The engine tops the deposit up before a refund of earlier funds (recorded before broadcast, as it does).
      const topUp = await anvil.sendNative(tank, deposit, parseEther('0.3'));
      await anvil.client.waitForTransactionReceipt({ hash: topUp.hash });
      await recordOurs({ purpose: 'gas_topup', chargeId, from: tank.address, to: deposit, amount: parseEther('0.3'), hash: topUp.hash });
      await poll(); // a window that sees the top-up but not the refund
      await anvil.mine(CONFIRMATIONS);
      await poll();
      expect(await paymentsOf(chargeId)).toEqual([]);

      // The refund leaves the deposit (the engine's transfer, recorded), in a later window.
      await anvil.client.request({ method: 'anvil_impersonateAccount' as never, params: [deposit] as never });
      const depositWallet = createWalletClient({ account: deposit, transport: http(node.url) });
      const refund = await depositWallet.sendTransaction({ to: payer.address, value: parseEther('0.1'), chain: null });
      await anvil.client.request({ method: 'anvil_stopImpersonatingAccount' as never, params: [deposit] as never });
      await anvil.client.waitForTransactionReceipt({ hash: refund });
      await recordOurs({ purpose: 'refund', chargeId, from: deposit, to: payer.address, amount: parseEther('0.1'), hash: refund });
      await poll();
      await anvil.mine(CONFIRMATIONS);
      await poll();
      expect(await paymentsOf(chargeId)).toEqual([]);

      // A real payment forwarded by a contract (only its balance shows it) is credited at its amount, no more.
      const forwarder = await anvil.plantForwarder();
      await anvil.sendNative(
        payer,
        forwarder,
        parseEther('1'),
        encodeFunctionData({ abi: nativeForwarderAbi, functionName: 'forward', args: [deposit] }),
      );
      await poll();
      await anvil.mine(CONFIRMATIONS);
      await poll();
      expect((await paymentsOf(chargeId)).map((p) => [p.txHash.startsWith('balance:'), p.amountBaseUnits])).toEqual([
        [true, parseEther('1')],
      ]);
    } finally {
      setTraceMode(anvil.client, 'trace_block');
    }
  });
});

describe("lateness is judged by the block's time, not by when the watcher saw it", () => {
  it('mined before expiresAt, seen after it (the watcher was down while expiry ran): on time, and the charge succeeds', async () => {
    const { chargeId, deposit } = await newCharge('GEM', '4');
    await poll(); // the watcher is up to date…
    await anvil.stampNextBlockNow();
    const { hash } = await anvil.transferToken(payer, GEM, deposit, parseUnits('4', 18)); // …the payment is mined, and the watcher goes down
    const minedAt = await blockTimeOf(hash);
    await getDb()
      .update(charges)
      .set({ expiresAt: new Date(minedAt + 1_000) })
      .where(eq(charges.id, chargeId));
    await sleepUntil(minedAt + 1_500);
    // The expiry job runs while the watcher is down: the chain is not scanned up to expiresAt, so it waits.
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('pending');

    await poll(); // the watcher is back
    expect(await paymentsOf(chargeId)).toEqual([expect.objectContaining({ isLate: false, blockTime: new Date(minedAt) })]);
    expect(await statusOf(chargeId)).toBe('processing');
    await anvil.mine(CONFIRMATIONS);
    await poll();
    expect(await statusOf(chargeId)).toBe('succeeded');
  });

  it('mined after expiresAt (even before the expiry job ran): late, reported, not counted; the charge expires', async () => {
    const { chargeId, deposit } = await newCharge('GEM', '4');
    const expiresAt = new Date(Date.now() - 2_000);
    await getDb().update(charges).set({ expiresAt }).where(eq(charges.id, chargeId));
    await anvil.stampNextBlockNow();
    const { hash } = await anvil.transferToken(payer, GEM, deposit, parseUnits('4', 18));
    await poll();
    expect(await paymentsOf(chargeId)).toEqual([expect.objectContaining({ txHash: hash, isLate: true })]);
    expect(await statusOf(chargeId)).toBe('pending');
    const events = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
    expect(events.find((e) => e.type === 'charge.late_payment')?.data).toMatchObject({
      txHash: hash,
      minedAt: new Date(await blockTimeOf(hash)).toISOString(),
    });
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('expired');
  });

  it('part paid in time, the rest mined after expiresAt: the rest is late and the charge fails underpaid', async () => {
    const { chargeId, deposit } = await newCharge('GEM', '4');
    await anvil.stampNextBlockNow();
    const first = await anvil.transferToken(payer, GEM, deposit, parseUnits('1', 18));
    const minedAt = await blockTimeOf(first.hash);
    await getDb()
      .update(charges)
      .set({ expiresAt: new Date(minedAt + 1_000) })
      .where(eq(charges.id, chargeId));
    await sleepUntil(minedAt + 2_100);
    await anvil.stampNextBlockNow();
    const rest = await anvil.transferToken(payer, GEM, deposit, parseUnits('3', 18));
    await poll();
    await anvil.mine(CONFIRMATIONS);
    await poll();
    const rows = await paymentsOf(chargeId);
    expect(rows.find((p) => p.txHash === first.hash)).toMatchObject({ isLate: false, status: 'confirmed' });
    expect(rows.find((p) => p.txHash === rest.hash)).toMatchObject({ isLate: true });
    await getDb().transaction((tx) => failUnderpaidCharges(tx));
    expect(await statusOf(chargeId)).toBe('failed');
  });
});
