import { eq, inArray } from 'drizzle-orm';
import { erc20Abi, getAddress, maxUint256, parseTransaction, toHex, type Hex, type PublicClient } from 'viem';
import { recoverAuthorizationAddress } from 'viem/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY_POINT_V08_ADDRESS, SIMPLE_7702_ACCOUNT_ADDRESS } from '@/lib/chains/smart-account-contracts';
import { getDb } from '@/lib/db/client';
import { outboundTransferAttempts, outboundTransfers, sweepSchedule, type OutboundTransferRow } from '@/lib/db/schema';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { readDelegation } from '@/lib/smart-accounts/read-delegation';
import {
  USDC,
  balanceSlot,
  gasTank,
  merchantWallet,
  paidCharges,
  reconcileUntilSettled,
  rpc,
  startRelayedSweepWorld,
  stopRelayedSweepWorld,
  sweepsOf,
  usdc,
  usdcBalance,
  type Paid,
} from '@/test/relayed-sweep-world';
import { releaseLeasesNow } from '@/test/release-leases-now';
import { sweepBatch, sweepCharge } from './sweep-charges';

// ADR 0035, "Pull sweeps", on a private Polygon node (anvil, prague): a deposit's first relayed sweep grants the gas
// tank an allowance; its later sweeps are one transaction of the tank to itself (executeBatch of transferFrom).
let client: PublicClient;

beforeAll(async () => {
  ({ client } = await startRelayedSweepWorld({
    SWEEP_BATCH_MAX: '20',
    SWEEP_BATCH_WINDOW_SECONDS: '0',
    DEPOSIT_ADDRESS_REUSE: 'true',
    DEPOSIT_ADDRESS_REUSE_AFTER: '0',
  }));
});

afterAll(stopRelayedSweepWorld);

const allowanceToTank = (address: Hex) =>
  client.readContract({ address: USDC.address as Hex, abi: erc20Abi, functionName: 'allowance', args: [address, gasTank] });

/**
 * The deposit addresses of swept charges back in their merchant's pool (ADR 0038): their sweeps found done, their
 * late-payment watch cut short, the release job run; the next charges lease them (DEPOSIT_ADDRESS_REUSE_AFTER=0).
 */
async function released(earlier: Paid[]): Promise<void> {
  for (const p of earlier) expect(await sweepCharge(p.chargeId)).toBe('nothing_owed');
  expect(await releaseLeasesNow(earlier.map((p) => p.chargeId))).toBeGreaterThanOrEqual(earlier.length);
}

/** Earlier failures of these charges' sweeps pushed an hour back: the back-off is over. */
async function backOffOver(chargeIds: string[]) {
  await getDb()
    .update(sweepSchedule)
    .set({ updatedAt: new Date(0) })
    .where(inArray(sweepSchedule.chargeId, chargeIds));
  for (const row of await sweepsOf(chargeIds)) {
    if (row.status === 'failed')
      await getDb()
        .update(outboundTransfers)
        .set({ updatedAt: new Date(row.updatedAt.getTime() - 3_600_000) })
        .where(eq(outboundTransfers.id, row.id));
  }
}

describe('pull sweeps (ADR 0035)', () => {
  let granted: Paid[] = [];

  it('the first sweep grants the tank an allowance; the next sweeps of those addresses are one tank transaction to itself, which delegates the tank (its next transaction at nonce + 2)', async () => {
    expect(await readDelegation(client, gasTank)).toBeUndefined();
    const first = await paidCharges(['3', '4']);
    const payee = await merchantWallet();
    const before = await usdcBalance(payee);
    expect([...(await sweepBatch(first.map((p) => p.chargeId))).values()]).toEqual(['swept', 'swept']);
    const [grant] = await sweepsOf(first.map((p) => p.chargeId));
    expect(getAddress(grant!.callTo!)).toBe(ENTRY_POINT_V08_ADDRESS);
    await reconcileUntilSettled(
      first.map((p) => p.chargeId),
      { mine: true },
    );
    for (const p of first) expect(await allowanceToTank(p.deposit)).toBe(maxUint256);
    granted = first;

    // Second round: new charges of the merchant lease the same addresses from its pool and are paid there.
    await released(first);
    const second = await paidCharges(['2', '5']);
    expect(new Set(second.map((p) => p.deposit))).toEqual(new Set(first.map((p) => p.deposit)));
    const fresh = await paidCharges(['1']);
    const ids = second.map((p) => p.chargeId);
    await rpc('evm_setAutomine', [false]);
    let pullNonce: number;
    try {
      expect([...(await sweepBatch(ids)).values()]).toEqual(['swept', 'swept']);
      const rows = await sweepsOf(ids);
      expect(rows).toHaveLength(2);
      expect(new Set(rows.map((r) => r.txHash)).size).toBe(1);
      expect(rows.every((r) => r.relayerAddress === gasTank && getAddress(r.callTo!) === gasTank)).toBe(true);
      const tx = parseTransaction(rows[0]!.rawTransaction as Hex);
      expect(getAddress(tx.to!)).toBe(gasTank);
      // The tank's own authorization, at the nonce after the transaction's.
      expect(tx.type).toBe('eip7702');
      expect(tx.authorizationList).toHaveLength(1);
      const authorization = tx.authorizationList![0]!;
      expect(authorization.nonce).toBe(rows[0]!.nonce + 1);
      expect(getAddress(authorization.address)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
      expect(await recoverAuthorizationAddress({ authorization })).toBe(gasTank);
      pullNonce = rows[0]!.nonce;
      // A tank transaction recorded while the self-delegating pull is in flight skips the nonce its authorization takes.
      expect([...(await sweepBatch([fresh[0]!.chargeId])).values()]).toEqual(['swept']);
      const [next] = await sweepsOf([fresh[0]!.chargeId]);
      expect(next!.nonce).toBe(pullNonce + 2);
      await rpc('evm_mine', []);
      // anvil's pool keeps a transaction queued behind a nonce no transaction of its pool provides (an authorization
      // took it; geth re-reads the account's nonce each block): dropped from the pool, the reconciler sends it again.
      await rpc('anvil_dropAllTransactions', []);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    const settled = await reconcileUntilSettled([...ids, fresh[0]!.chargeId], { mine: true });
    expect(settled.map((r) => r.status)).toEqual(['confirmed', 'confirmed', 'confirmed']);
    expect(await readDelegation(client, gasTank)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
    expect(await client.getTransactionCount({ address: gasTank })).toBe(pullNonce + 3);
    for (const p of [...second, ...fresh]) expect(await usdcBalance(p.deposit)).toBe(0n);
    expect(await usdcBalance(payee)).toBe(before + usdc('15'));
    // The pull's fee is split across its rows, once.
    const pulled = settled.filter((r) => ids.includes(r.chargeId!));
    const receipt = await client.getTransactionReceipt({ hash: pulled[0]!.txHash as Hex });
    expect(pulled.reduce((sum, r) => sum + r.gasFeeBaseUnits!, 0n)).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    for (const id of ids) expect(await sweepCharge(id)).toBe('nothing_owed');
    granted = second; // the charges leasing those addresses now
  });

  it('a mixed window: a handleOps for the address granting, a pull for the address that granted before', async () => {
    await released([granted[0]!]);
    const [reused] = await paidCharges(['2']);
    expect(reused!.deposit).toBe(granted[0]!.deposit);
    const [fresh] = await paidCharges(['3']);
    const payee = await merchantWallet();
    const before = await usdcBalance(payee);
    const ids = [reused!.chargeId, fresh!.chargeId];
    expect([...(await sweepBatch(ids)).values()]).toEqual(['swept', 'swept']);
    const rows = await sweepsOf(ids);
    const byCharge = new Map(rows.map((r) => [r.chargeId, r]));
    expect(getAddress(byCharge.get(reused!.chargeId)!.callTo!)).toBe(gasTank);
    expect(getAddress(byCharge.get(fresh!.chargeId)!.callTo!)).toBe(ENTRY_POINT_V08_ADDRESS);
    expect(byCharge.get(reused!.chargeId)!.txHash).not.toBe(byCharge.get(fresh!.chargeId)!.txHash);
    // The tank now delegates: the pull carries no authorization.
    expect(parseTransaction(byCharge.get(reused!.chargeId)!.rawTransaction as Hex).type).toBe('eip1559');
    const settled = await reconcileUntilSettled(ids, { mine: true });
    expect(settled.map((r) => r.status)).toEqual(['confirmed', 'confirmed']);
    expect(await usdcBalance(payee)).toBe(before + usdc('5'));
    expect(await allowanceToTank(fresh!.deposit)).toBe(maxUint256);
    granted = [reused!, granted[1]!, fresh!];
  });

  it('a pull that reverts fails all its rows, moves nothing, and its deposits then sweep alone through handleOps, each once', async () => {
    await released([granted[1]!, granted[2]!]);
    const paid = await paidCharges(['2', '6']);
    expect(new Set(paid.map((p) => p.deposit))).toEqual(new Set([granted[1]!.deposit, granted[2]!.deposit]));
    const ids = paid.map((p) => p.chargeId);
    const payee = await merchantWallet();
    const before = await usdcBalance(payee);
    const victim = paid[1]!;
    const slot = await balanceSlot(victim.deposit);
    await rpc('evm_setAutomine', [false]);
    try {
      expect([...(await sweepBatch(ids)).values()]).toEqual(['swept', 'swept']);
      // The victim's tokens vanish before the pull is mined: its transferFrom reverts, and with it the whole executeBatch.
      await rpc('anvil_setStorageAt', [USDC.address, slot, toHex(0n, { size: 32 })]);
      await rpc('evm_mine', []);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    const failed = await reconcileUntilSettled(ids, { mine: true });
    expect(failed.map((r) => r.status)).toEqual(['failed', 'failed']);
    expect(await usdcBalance(payee)).toBe(before);
    expect(await usdcBalance(paid[0]!.deposit)).toBe(paid[0]!.amount);

    await rpc('anvil_setStorageAt', [USDC.address, slot, toHex(victim.amount, { size: 32 })]);
    await backOffOver(ids);
    expect([...(await sweepBatch(ids)).values()]).toEqual(['swept', 'swept']);
    const retries = (await sweepsOf(ids)).filter((r) => r.status !== 'failed');
    expect(retries).toHaveLength(2);
    // Alone: one transaction each, through the EntryPoint.
    expect(new Set(retries.map((r) => r.txHash)).size).toBe(2);
    for (const r of retries) expect(getAddress(r.callTo!)).toBe(ENTRY_POINT_V08_ADDRESS);
    await reconcileUntilSettled(ids, { mine: true });
    const rows = await sweepsOf(ids);
    expect(rows.filter((r) => r.status === 'confirmed')).toHaveLength(2);
    expect(await usdcBalance(payee)).toBe(before + usdc('8'));
    for (const p of paid) expect(await usdcBalance(p.deposit)).toBe(0n);
    granted = paid;
  });

  /** The tank's delegation cleared, so its next pull is a first one again (it carries the tank's authorization). */
  async function firstPullOf(amounts: string[]): Promise<{ paid: Paid[]; ids: string[] }> {
    await rpc('anvil_setCode', [gasTank, '0x']);
    expect(await readDelegation(client, gasTank)).toBeUndefined();
    await released(granted);
    const paid = await paidCharges(amounts);
    expect(new Set(paid.map((p) => p.deposit))).toEqual(new Set(granted.map((p) => p.deposit)));
    granted = paid;
    return { paid, ids: paid.map((p) => p.chargeId) };
  }

  it("the first pull stuck at a low fee: its fee bump carries the tank's authorization again, lands once, delegates the tank", async () => {
    const { paid, ids } = await firstPullOf(['1', '2']);
    const payee = await merchantWallet();
    const before = await usdcBalance(payee);
    let first!: OutboundTransferRow;
    let bumped!: OutboundTransferRow[];
    await rpc('evm_setAutomine', [false]);
    try {
      expect([...(await sweepBatch(ids)).values()]).toEqual(['swept', 'swept']);
      first = (await sweepsOf(ids))[0]!;
      expect(getAddress(first.callTo!)).toBe(gasTank);
      expect(parseTransaction(first.rawTransaction as Hex).authorizationList).toHaveLength(1);
      const high = first.maxFeePerGas! * 4n;
      await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`]);
      await rpc('evm_mine', []);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await reconcileDueTransfers({ ignoreSchedule: true });
      bumped = await sweepsOf(ids);
      expect(bumped.map((r) => r.feeBumps)).toEqual([1, 1]);
      expect(new Set(bumped.map((r) => r.txHash)).size).toBe(1);
      expect(bumped[0]!.txHash).not.toBe(first.txHash);
      expect(bumped[0]!.nonce).toBe(first.nonce);
      const replacement = parseTransaction(bumped[0]!.rawTransaction as Hex);
      expect(replacement.type).toBe('eip7702');
      expect(replacement.authorizationList).toEqual(parseTransaction(first.rawTransaction as Hex).authorizationList);
      expect(replacement.authorizationList![0]!.nonce).toBe(first.nonce + 1);
      await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`]);
      await rpc('evm_mine', []);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    const settled = await reconcileUntilSettled(ids, { mine: true });
    expect(settled.map((r) => r.status)).toEqual(['confirmed', 'confirmed']);
    expect(settled.every((r) => r.txHash === bumped[0]!.txHash)).toBe(true);
    expect(await client.getTransactionReceipt({ hash: first.txHash as Hex }).catch(() => null)).toBeNull();
    expect(await readDelegation(client, gasTank)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
    expect(await client.getTransactionCount({ address: gasTank })).toBe(first.nonce + 2);
    expect(await usdcBalance(payee)).toBe(before + usdc('3'));
    for (const p of paid) expect(await usdcBalance(p.deposit)).toBe(0n);
    const receipt = await client.getTransactionReceipt({ hash: bumped[0]!.txHash as Hex });
    expect(settled.reduce((sum, r) => sum + r.gasFeeBaseUnits!, 0n)).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
  });

  it("the first pull canceled: the cancel carries the tank's authorization, uses both nonces, moves nothing; each deposit then sweeps once", async () => {
    const { paid, ids } = await firstPullOf(['2', '3']);
    const payee = await merchantWallet();
    const before = await usdcBalance(payee);
    const tankBalance = await client.getBalance({ address: gasTank });
    let first!: OutboundTransferRow;
    await rpc('evm_setAutomine', [false]);
    try {
      expect([...(await sweepBatch(ids)).values()]).toEqual(['swept', 'swept']);
      first = (await sweepsOf(ids))[0]!;
      expect(parseTransaction(first.rawTransaction as Hex).authorizationList).toHaveLength(1);
      // Recorded, not sent (as after a crash at transfer.recorded); then the tank holds less than the pull can cost,
      // enough for a cancel: every send is refused, and past TRANSFER_CANCEL_AFTER_FAILURES the nonce is canceled.
      await rpc('anvil_dropAllTransactions', []);
      await getDb().update(outboundTransfers).set({ status: 'signed' }).where(inArray(outboundTransfers.chargeId, ids));
      await rpc('anvil_setBalance', [gasTank, `0x${(first.gasLimit! * first.maxFeePerGas! - 1n).toString(16)}`]);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    let rows = await sweepsOf(ids);
    for (let i = 0; i < 12 && rows.some((r) => r.status === 'signed'); i++) {
      await reconcileDueTransfers({ ignoreSchedule: true });
      rows = await sweepsOf(ids);
    }
    const attempts = await getDb()
      .select()
      .from(outboundTransferAttempts)
      .where(
        inArray(
          outboundTransferAttempts.transferId,
          rows.map((r) => r.id),
        ),
      );
    const cancels = attempts.filter((a) => a.kind === 'cancel');
    expect(cancels).toHaveLength(2); // one transaction, recorded on both rows
    expect(new Set(cancels.map((a) => a.txHash)).size).toBe(1);
    const cancel = parseTransaction(cancels[0]!.rawTransaction as Hex);
    expect(getAddress(cancel.to!)).toBe(gasTank);
    expect(cancel.value ?? 0n).toBe(0n);
    expect(cancel.authorizationList).toEqual(parseTransaction(first.rawTransaction as Hex).authorizationList);
    const failed = await reconcileUntilSettled(ids, { mine: true });
    expect(failed.map((r) => r.status)).toEqual(['failed', 'failed']);
    for (const r of failed) expect(r.error).toMatch(/canceled/);
    // Both nonces used (the transaction's and its authorization's), the tank delegated, nothing moved.
    expect(await client.getTransactionCount({ address: gasTank })).toBe(first.nonce + 2);
    expect(await readDelegation(client, gasTank)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
    expect(await usdcBalance(payee)).toBe(before);
    for (const p of paid) expect(await usdcBalance(p.deposit)).toBe(p.amount);

    await rpc('anvil_setBalance', [gasTank, `0x${tankBalance.toString(16)}`]);
    await backOffOver(ids);
    expect([...(await sweepBatch(ids)).values()]).toEqual(['swept', 'swept']);
    await reconcileUntilSettled(ids, { mine: true });
    expect([...(await sweepBatch(ids)).values()].every((o) => o !== 'swept')).toBe(true);
    const all = await sweepsOf(ids);
    expect(
      all
        .filter((r) => r.status === 'confirmed')
        .map((r) => r.chargeId)
        .sort(),
    ).toEqual([...ids].sort());
    expect(all.filter((r) => r.status === 'failed')).toHaveLength(2);
    expect(await usdcBalance(payee)).toBe(before + usdc('5'));
    for (const p of paid) expect(await usdcBalance(p.deposit)).toBe(0n);
  });
});
