import { eq, inArray } from 'drizzle-orm';
import { parseTransaction, recoverTransactionAddress, toHex, type Hex, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SIMPLE_7702_ACCOUNT_ADDRESS } from '@/lib/chains/smart-account-contracts';
import { getDb } from '@/lib/db/client';
import { outboundTransferAttempts, outboundTransfers, sweepSchedule } from '@/lib/db/schema';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { expectedBalances } from '@/lib/ledger/expected-balances';
import { log } from '@/lib/log';
import { readDelegation } from '@/lib/smart-accounts/read-delegation';
import { userOperationOutcome } from '@/lib/smart-accounts/user-operation-outcome';
import { assertSponsorshipAllowed } from '@/lib/transactions/gas-sponsorship';
import { inFlightOf } from '@/lib/transactions/lock-sender';
import { newMerchant, type TestMerchant } from '@/test/fixtures';
import {
  CHAIN,
  USDC,
  balanceSlot,
  gasTank,
  merchantWallet,
  paidCharges,
  reconcileUntilSettled,
  rpc,
  setEnv,
  startRelayedSweepWorld,
  stopRelayedSweepWorld,
  sweepsOf,
  usdc,
  usdcBalance,
} from '@/test/relayed-sweep-world';
import { sweepBatch, sweepCharge, sweepDueCharges } from './sweep-charges';

// ADR 0035, "Batched sweeps", on a private Polygon node (anvil, prague): several deposit addresses swept by one
// relayed handleOps, one transfer row per deposit at the tank's one nonce.
let client: PublicClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ client, merchant } = await startRelayedSweepWorld({ SWEEP_BATCH_MAX: '20', SWEEP_BATCH_WINDOW_SECONDS: '0' }));
});

afterAll(stopRelayedSweepWorld);

describe('batched relayed sweeps (ADR 0035)', () => {
  it('sweeps three deposit addresses with one relayed transaction: a row each at one nonce, the fee split across them once', async () => {
    const paid = await paidCharges(['3', '4', '5']);
    const ids = paid.map((p) => p.chargeId);
    const payee = await merchantWallet();
    const before = await usdcBalance(payee);
    const tankBefore = await client.getBalance({ address: gasTank });

    const outcomes = await sweepBatch(ids);
    expect([...outcomes.values()]).toEqual(['swept', 'swept', 'swept']);
    const rows = await sweepsOf(ids);
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((r) => r.txHash)).size).toBe(1);
    expect(new Set(rows.map((r) => r.nonce)).size).toBe(1);
    expect(rows.every((r) => r.relayerAddress === gasTank)).toBe(true);
    // The tank's in-flight books count the one transaction's gas once, the deposits' tokens each.
    const tankFlight = await inFlightOf(getDb(), CHAIN, gasTank);
    expect(tankFlight.nativeOut).toBe(rows[0]!.gasLimit! * rows[0]!.maxFeePerGas!);
    const tx = parseTransaction(rows[0]!.rawTransaction as Hex);
    expect(tx.type).toBe('eip7702');
    expect(tx.authorizationList).toHaveLength(3);
    expect(await recoverTransactionAddress({ serializedTransaction: rows[0]!.rawTransaction as never })).toBe(gasTank);
    // A second pass while the batch is in flight signs nothing new.
    expect([...(await sweepBatch(ids)).values()]).toEqual(['in_flight', 'in_flight', 'in_flight']);

    const settled = await reconcileUntilSettled(ids);
    expect(settled.map((r) => r.status)).toEqual(['confirmed', 'confirmed', 'confirmed']);
    const receipt = await client.getTransactionReceipt({ hash: rows[0]!.txHash as Hex });
    for (const p of paid) {
      expect(userOperationOutcome(receipt, p.deposit)).toBe('success');
      expect(await usdcBalance(p.deposit)).toBe(0n);
      expect(await client.getBalance({ address: p.deposit })).toBe(0n);
      expect(await readDelegation(client, p.deposit)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
    }
    expect(await usdcBalance(payee)).toBe(before + usdc('12'));
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(settled.reduce((sum, r) => sum + r.gasFeeBaseUnits!, 0n)).toBe(fee);
    expect(tankBefore - (await client.getBalance({ address: gasTank }))).toBe(fee);
    // The books: the tank's native balance is what the chain says it is.
    const expected = await expectedBalances(getDb(), { chain: CHAIN, atBlock: await client.getBlockNumber({ cacheTime: 0 }) });
    const tankNative = expected.find((e) => e.address === gasTank.toLowerCase() && /^0x0{40}$/.test(e.token));
    expect(tankNative?.kinds).toContain('gas_fee');
    for (const id of ids) expect(await sweepCharge(id)).toBe('nothing_owed');
    // The merchant's sponsored gas today counts the one transaction once, shared by its three rows.
    setEnv({ GAS_TANK_DAILY_SPONSORED_GAS_PER_MERCHANT: '0' });
    const refusal = await assertSponsorshipAllowed(getDb(), { chain: CHAIN, sponsor: { merchantId: merchant.id }, gasLimit: 1n }).catch(
      (error: Error) => error,
    );
    setEnv({ GAS_TANK_DAILY_SPONSORED_GAS_PER_MERCHANT: undefined });
    const gasLimit = rows[0]!.gasLimit!;
    expect((refusal as Error).message).toContain(`${3n * ((gasLimit + 2n) / 3n)} of 0 gas`);
  });

  it("one operation reverting fails only its own deposit's sweep; that deposit then sweeps alone", async () => {
    const paid = await paidCharges(['2', '6', '3']);
    const ids = paid.map((p) => p.chargeId);
    const payee = await merchantWallet();
    const before = await usdcBalance(payee);
    const victim = paid[1]!;
    const slot = await balanceSlot(victim.deposit);
    await rpc('evm_setAutomine', [false]);
    try {
      expect([...(await sweepBatch(ids)).values()]).toEqual(['swept', 'swept', 'swept']);
      // The victim's tokens vanish before the batch is mined: its transfer (inside execute) reverts, its validation does not.
      await rpc('anvil_setStorageAt', [USDC.address, slot, toHex(0n, { size: 32 })]);
      await rpc('evm_mine', []);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    const settled = await reconcileUntilSettled(ids);
    const byCharge = new Map(settled.map((r) => [r.chargeId, r]));
    expect(byCharge.get(paid[0]!.chargeId)!.status).toBe('confirmed');
    expect(byCharge.get(paid[2]!.chargeId)!.status).toBe('confirmed');
    expect(byCharge.get(victim.chargeId)!).toMatchObject({ status: 'failed' });
    expect(byCharge.get(victim.chargeId)!.error).toMatch(/reverted inside handleOps/);
    expect(await usdcBalance(payee)).toBe(before + usdc('5'));

    // Its tokens back, the failed deposit retries on its own (a failed sweep never rides in a batch again).
    await rpc('anvil_setStorageAt', [USDC.address, slot, toHex(victim.amount, { size: 32 })]);
    await getDb()
      .update(sweepSchedule)
      .set({ updatedAt: new Date(0) })
      .where(eq(sweepSchedule.chargeId, victim.chargeId));
    const failedAt = byCharge.get(victim.chargeId)!.updatedAt;
    await getDb()
      .update(outboundTransfers)
      .set({ updatedAt: new Date(failedAt.getTime() - 3_600_000) })
      .where(eq(outboundTransfers.id, byCharge.get(victim.chargeId)!.id));
    const outcomes = await sweepBatch([victim.chargeId, paid[0]!.chargeId]);
    expect(outcomes.get(victim.chargeId)).toBe('swept');
    expect(outcomes.get(paid[0]!.chargeId)).toBe('nothing_owed');
    await reconcileUntilSettled([victim.chargeId]);
    const retry = (await sweepsOf([victim.chargeId])).filter((r) => r.status === 'confirmed');
    expect(retry).toHaveLength(1);
    const otherRowsOfRetry = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.txHash, retry[0]!.txHash));
    expect(otherRowsOfRetry).toHaveLength(1);
    expect(await usdcBalance(payee)).toBe(before + usdc('11'));
  });

  it('stuck under the base fee: one replacement for the whole batch, at the tank nonce, recorded on every row; each deposit moves once', async () => {
    const paid = await paidCharges(['1', '2']);
    const ids = paid.map((p) => p.chargeId);
    const payee = await merchantWallet();
    const before = await usdcBalance(payee);
    await rpc('evm_setAutomine', [false]);
    try {
      await sweepBatch(ids);
      const [first] = await sweepsOf(ids);
      const high = first!.maxFeePerGas! * 4n;
      await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`]);
      await rpc('evm_mine', []);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await reconcileDueTransfers({ ignoreSchedule: true });
      const bumped = await sweepsOf(ids);
      expect(bumped.map((r) => r.feeBumps)).toEqual([1, 1]);
      expect(new Set(bumped.map((r) => r.txHash)).size).toBe(1);
      expect(bumped[0]!.txHash).not.toBe(first!.txHash);
      expect(bumped[0]!.nonce).toBe(first!.nonce);
      const replacement = parseTransaction(bumped[0]!.rawTransaction as Hex);
      expect(replacement.authorizationList).toEqual(parseTransaction(first!.rawTransaction as Hex).authorizationList);
      const attempts = await getDb()
        .select()
        .from(outboundTransferAttempts)
        .where(
          inArray(
            outboundTransferAttempts.transferId,
            bumped.map((r) => r.id),
          ),
        );
      expect(attempts).toHaveLength(4);
      expect(new Set(attempts.map((a) => a.txHash)).size).toBe(2);
      await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`]);
      await rpc('evm_mine', []);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    const settled = await reconcileUntilSettled(ids);
    expect(settled.map((r) => r.status)).toEqual(['confirmed', 'confirmed']);
    expect(await usdcBalance(payee)).toBe(before + usdc('3'));
    for (const p of paid) expect(await usdcBalance(p.deposit)).toBe(0n);
  });

  it('two workers at once: each deposit lands in exactly one batch', async () => {
    const paid = await paidCharges(['1', '1', '1', '1']);
    const ids = paid.map((p) => p.chargeId);
    const payee = await merchantWallet();
    const before = await usdcBalance(payee);
    const [a, b] = await Promise.all([sweepBatch(ids), sweepBatch([...ids].reverse())]);
    const swept = ids.filter((id) => a.get(id) === 'swept' || b.get(id) === 'swept');
    expect(swept.length).toBeGreaterThan(0);
    for (const id of ids) expect(a.get(id) === 'swept' && b.get(id) === 'swept').toBe(false);
    for (let i = 0; i < 5; i++) {
      await sweepBatch(ids);
      await reconcileUntilSettled(ids);
    }
    const rows = await sweepsOf(ids);
    expect(rows.filter((r) => r.status === 'confirmed')).toHaveLength(4);
    expect(rows.filter((r) => r.status !== 'confirmed')).toEqual([]);
    expect(await usdcBalance(payee)).toBe(before + usdc('4'));
  });

  it('the scheduler batches per window: a sweep due mid-window waits for its end, a full batch or a window of 0 goes at once, a batch of 1 is the single path', async () => {
    const now = Date.now();
    setEnv({ SWEEP_BATCH_WINDOW_SECONDS: '3600' });
    try {
      const [one] = await paidCharges(['1']);
      // Due now, mid-window: deferred to the window's end, nothing signed.
      await getDb()
        .update(sweepSchedule)
        .set({ dueAt: new Date(now - 1_000) })
        .where(eq(sweepSchedule.chargeId, one!.chargeId));
      await sweepDueCharges();
      expect(await sweepsOf([one!.chargeId])).toEqual([]);
      const [deferred] = await getDb().select().from(sweepSchedule).where(eq(sweepSchedule.chargeId, one!.chargeId));
      const windowMs = 3_600_000;
      expect(deferred!.dueAt!.getTime()).toBe(Math.floor(now / windowMs) * windowMs + windowMs);
      // Full (SWEEP_BATCH_MAX = 1): it goes at once, alone.
      setEnv({ SWEEP_BATCH_MAX: '1' });
      await getDb()
        .update(sweepSchedule)
        .set({ dueAt: new Date(now - 1_000) })
        .where(eq(sweepSchedule.chargeId, one!.chargeId));
      await sweepDueCharges();
      const [single] = await sweepsOf([one!.chargeId]);
      expect(single).toMatchObject({ relayerAddress: gasTank, status: 'broadcast' });
      expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.txHash, single!.txHash))).toHaveLength(1);
      await reconcileUntilSettled([one!.chargeId]);
    } finally {
      setEnv({ SWEEP_BATCH_WINDOW_SECONDS: '0', SWEEP_BATCH_MAX: '20' });
    }
    const two = await paidCharges(['1', '2']);
    await getDb()
      .update(sweepSchedule)
      .set({ dueAt: new Date(now - 1_000) })
      .where(
        inArray(
          sweepSchedule.chargeId,
          two.map((p) => p.chargeId),
        ),
      );
    await sweepDueCharges();
    const rows = await sweepsOf(two.map((p) => p.chargeId));
    expect(rows).toHaveLength(2);
    expect(rows[0]!.txHash).toBe(rows[1]!.txHash);
    await reconcileUntilSettled(two.map((p) => p.chargeId));
  });
  it("a batch never takes a merchant past its daily sponsored gas: what does not fit waits, another merchant's deposits go", async () => {
    const [a, b] = [await newMerchant({ verified: true }), await newMerchant({ verified: true })];
    const ofA = await paidCharges(['1', '1', '1'], a);
    const ofB = await paidCharges(['1'], b);
    const ids = [...ofA, ...ofB].map((p) => p.chargeId);
    // The share of one row of this batch of four, as the refusal says it (nothing is recorded at a cap of 1 gas).
    const warn = vi.spyOn(log, 'warn');
    setEnv({ GAS_TANK_DAILY_SPONSORED_GAS_PER_MERCHANT: '1' });
    try {
      expect([...(await sweepBatch(ids)).values()]).toEqual(Array(4).fill('waiting_for_gas'));
      const needs = warn.mock.calls.map(([, fields]) => /this needs (\d+)/.exec(String(fields?.reason))?.[1]).find(Boolean);
      const share = BigInt(needs!);
      expect(await sweepsOf(ids)).toEqual([]);
      // A cap that two of A's shares fit and three do not: checked one by one against the day before the batch,
      // all three went (and took A past its cap).
      setEnv({ GAS_TANK_DAILY_SPONSORED_GAS_PER_MERCHANT: String(3n * share - 1n) });
      const outcomes = await sweepBatch(ids);
      expect(ofA.map((p) => outcomes.get(p.chargeId)).sort()).toEqual(['swept', 'swept', 'waiting_for_gas']);
      expect(outcomes.get(ofB[0]!.chargeId)).toBe('swept');
      const rows = await sweepsOf(ids);
      expect(rows).toHaveLength(3);
      expect(new Set(rows.map((r) => r.txHash)).size).toBe(1);
      // What A's day counts is within its cap (its rows' shares of the recorded transaction).
      const ofARows = rows.filter((r) => r.sponsorMerchantId === a.id);
      expect(ofARows).toHaveLength(2);
      expect(2n * ((rows[0]!.gasLimit! + 2n) / 3n)).toBeLessThanOrEqual(3n * share - 1n);
      await reconcileUntilSettled(ids);
    } finally {
      warn.mockRestore();
      setEnv({ GAS_TANK_DAILY_SPONSORED_GAS_PER_MERCHANT: undefined });
    }
    // The one left out sweeps later, once.
    const swept = new Set((await sweepsOf(ids)).map((r) => r.chargeId));
    const waiting = ofA.filter((p) => !swept.has(p.chargeId));
    expect(waiting).toHaveLength(1);
    expect([...(await sweepBatch([waiting[0]!.chargeId])).values()]).toEqual(['swept']);
    const settled = await reconcileUntilSettled(ids);
    expect(settled.map((r) => r.status)).toEqual(['confirmed', 'confirmed', 'confirmed', 'confirmed']);
    for (const p of [...ofA, ...ofB]) expect(await usdcBalance(p.deposit)).toBe(0n);
  });
});
