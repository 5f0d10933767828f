/**
 * The fault-injection suite, relayer part (issue 30, ADR 0035): sponsored USDC sweeps on a private POLYGON node
 * (prague, the EntryPoint v0.8 and Simple7702Account planted; SMART_ACCOUNT_CHAINS=POLYGON; depth 30, the
 * chain's own) reached through the RPC fault proxy. The gas tank relays each deposit address's UserOperation —
 * one deposit per transaction (sweepCharge) or several in one handleOps (sweepBatch) — while sends are lost or
 * answered with an error after the node took them, a transaction sits under the base fee, a re-org removes the
 * relayed transaction, the process dies by SIGKILL between record and broadcast or after the node accepted, and
 * two workers submit the same sweeps at once.
 *
 * Pull sweeps (ADR 0035): deposits that granted the tank an allowance in a first sweep are paid again for new
 * charges and pulled by the tank's own transaction (executeBatch of transferFrom) under the same faults.
 *
 * Audited as the rest of the suite (token-world.ts: arrivals, every transfer confirmed, the tank's balance
 * against its records — a relayed transfer's fee is the tank's — and the ledger), plus, on chain: each deposit's
 * tokens left it in exactly one Transfer event, and no deposit ever held native coin.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { erc20Abi, getAddress, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, sweepSchedule } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { sweepBatch, sweepCharge } from '@/lib/payments/sweep-charges';
import { releaseLeasesNow } from '@/test/release-leases-now';
import { runStep } from './spawn-step';
import { SCENARIO_TIMEOUT, pause } from './harness';
import {
  automine,
  jobsOnce,
  mine,
  newCharge,
  outsideWallet,
  rpc,
  scenario,
  sendToken,
  settle,
  startTokenWorld,
  stopTokenWorld,
  units,
  w,
  type Scenario,
} from './token-world';

const RELAYER = 'Relayer (sponsored sweeps, EIP-7702)';

/** Each scenario's charges, paid and settled once for the file (one wait for depth 30, not one per scenario). */
const SCENARIO_AMOUNTS = {
  lost: ['2', '3', '4', '5'],
  stuck: ['1', '2', '3'],
  reorg: ['2', '2'],
  killRecorded: ['1', '3'],
  killSent: ['2', '1'],
  duplicate: ['1', '2', '1'],
} as const;
let paidFor: Record<keyof typeof SCENARIO_AMOUNTS, Paid[]>;
/**
 * Pull sweeps (ADR 0035): deposits that granted the tank an allowance in a first sweep, leased again from the
 * merchant's pool (ADR 0038) by new charges and paid there.
 */
const PULL_AMOUNTS = {
  pullLost: ['2', '3'],
  pullStuck: ['1', '2'],
  pullReorg: ['2', '1'],
  pullKillRecorded: ['1', '2'],
  pullDuplicate: ['1', '1', '2'],
} as const;
let pullFor: Record<keyof typeof PULL_AMOUNTS, Paid[]>;
/** The block before the second round's payments: each reused deposit's sweep of them is audited from here. */
let pullSince: bigint;

beforeAll(async () => {
  process.env.SMART_ACCOUNT_CHAINS = 'POLYGON';
  process.env.DEPOSIT_ADDRESS_REUSE = 'true';
  process.env.DEPOSIT_ADDRESS_REUSE_AFTER = '0'; // a released address is leased again at once
  await startTokenWorld({
    chain: 'POLYGON',
    symbol: 'USDC',
    dbPrefix: 'faults_relayer',
    localChains: 'POLYGON_AMOY',
    merchantFunding: '1',
  });
  const all = await paidCharges(Object.values(SCENARIO_AMOUNTS).flat());
  paidFor = byScenario(SCENARIO_AMOUNTS, all);
  await holdBack(all);

  // The pull scenarios' deposits grant first (one handleOps, settled), then are paid again for new charges.
  const grants = await paidCharges(Object.values(PULL_AMOUNTS).flat());
  await holdBack(grants);
  await sweepBatch(grants.map((p) => p.chargeId));
  await mine(w().depth);
  await reconcileRounds(3);
  const granted = await sweepsOf(grants);
  if (granted.some((r) => r.status !== 'confirmed')) throw new Error('the granting sweeps did not settle');
  await holdBack(grants);
  // Their leases end and the addresses go back to the merchant's pool (ADR 0038); new charges lease them again.
  const released = await releaseLeasesNow(grants.map((p) => p.chargeId));
  if (released < grants.length) throw new Error(`only ${released} of ${grants.length} granting addresses went back to the pool`);
  pullSince = await w().client.getBlockNumber({ cacheTime: 0 });
  const granting = new Set(grants.map((p) => p.deposit));
  const again: Paid[] = [];
  for (const earlier of grants) {
    const charge = await newCharge(String(Number(earlier.amount) / 10 ** w().token.decimals));
    if (!granting.has(charge.deposit)) throw new Error('a new charge did not lease a granting address');
    await sendToken(await outsideWallet('5'), charge.deposit, earlier.amount);
    again.push({ chargeId: charge.chargeId, deposit: charge.deposit, amount: earlier.amount });
  }
  await settle(40, { sweeps: false });
  await holdBack(again);
  pullFor = byScenario(PULL_AMOUNTS, again);
}, SCENARIO_TIMEOUT * 2);

/** `paid` (in the order of `amounts`' values) handed out to the scenarios, each its own charges. */
function byScenario<Key extends string>(amounts: Record<Key, readonly string[]>, paid: Paid[]): Record<Key, Paid[]> {
  let start = 0;
  const out = {} as Record<Key, Paid[]>;
  for (const key of Object.keys(amounts) as Key[]) {
    out[key] = paid.slice(start, start + amounts[key].length);
    start += amounts[key].length;
  }
  return out;
}

/** Held back from the sweep job (the audit's settle runs it): each scenario sweeps its own charges. */
async function holdBack(paid: Paid[]): Promise<void> {
  await getDb()
    .update(sweepSchedule)
    .set({ dueAt: null })
    .where(
      inArray(
        sweepSchedule.chargeId,
        paid.map((p) => p.chargeId),
      ),
    );
}

afterAll(async () => {
  delete process.env.SMART_ACCOUNT_CHAINS;
  delete process.env.DEPOSIT_ADDRESS_REUSE;
  delete process.env.DEPOSIT_ADDRESS_REUSE_AFTER;
  resetEnvCache();
  await stopTokenWorld('faults-relayer');
});

interface Paid {
  chargeId: string;
  deposit: Address;
  amount: bigint;
}

/** Charges paid in full from outside wallets and settled (succeeded), not swept: the scenario sweeps them. */
async function paidCharges(amounts: string[]): Promise<Paid[]> {
  const out: Paid[] = [];
  for (const amount of amounts) {
    const charge = await newCharge(amount);
    await sendToken(await outsideWallet(amount), charge.deposit, units(amount));
    out.push({ chargeId: charge.chargeId, deposit: charge.deposit, amount: units(amount) });
  }
  await settle(40, { sweeps: false });
  return out;
}

/** The merchant wallet gets every deposit's amount once; each deposit is checked on chain after the audit's settle. */
async function expectSwept(s: Scenario, paid: Paid[]): Promise<void> {
  await s.expectArrival(
    'merchant wallet (every sweep once)',
    w().merchantWallet,
    paid.reduce((sum, p) => sum + p.amount, 0n),
  );
  for (const p of paid) s.expectCharge(p.chargeId, 'succeeded');
}

/**
 * On chain: each deposit's tokens left it in exactly one Transfer (since `fromBlock`: a reused deposit's first
 * sweep is before), it holds none now, and never held native coin. `pulled`: every sweep is the tank's pull.
 */
async function expectMovedOnce(paid: Paid[], options: Moved = {}): Promise<void> {
  await automine(true);
  await mine(w().depth);
  await reconcileRounds(2);
  for (const p of paid) {
    const logs = await w().client.getContractEvents({
      address: w().token.address as Address,
      abi: erc20Abi,
      eventName: 'Transfer',
      args: { from: p.deposit },
      fromBlock: options.fromBlock ?? 0n,
    });
    expect(logs.map((l) => l.args.value)).toEqual([p.amount]);
    expect(await w().client.getBalance({ address: p.deposit })).toBe(0n);
  }
  const rows = await sweepsOf(paid);
  expect(rows.filter((r) => r.status === 'confirmed')).toHaveLength(paid.length);
  expect(rows.every((r) => r.relayerAddress === w().tank)).toBe(true);
  if (options.pulled) {
    const confirmed = rows.filter((r) => r.status === 'confirmed');
    expect(confirmed.every((r) => getAddress(r.callTo!) === getAddress(w().tank))).toBe(true);
  }
}

const sweepsOf = (paid: Paid[]) =>
  getDb()
    .select()
    .from(outboundTransfers)
    .where(
      and(
        inArray(
          outboundTransfers.chargeId,
          paid.map((p) => p.chargeId),
        ),
        eq(outboundTransfers.purpose, 'sweep'),
      ),
    );

/** The reconciler and the watchers, `rounds` times, a block each (no sweep job: the scenario sweeps). */
async function reconcileRounds(rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await mine(1);
    await jobsOnce({ sweeps: false });
  }
}

/** Which sweeps a scenario audits on chain (expectMovedOnce): a reused deposit's since `fromBlock`, each the tank's pull. */
interface Moved {
  fromBlock?: bigint;
  pulled?: boolean;
}

/** Two base-fee rises past what the sweeps of `paid` offered (`high`): the reconciler re-signs each, once. */
async function underBaseFee(s: Scenario, paid: Paid[], high: bigint) {
  for (let i = 0; i < 2; i++) {
    await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`]);
    await mine(1);
    await pause(1_100);
    await reconcileDueTransfers({ ignoreSchedule: true });
  }
  const bumped = await sweepsOf(paid);
  for (const row of bumped) s.note('fee_bump', row.feeBumps > 0 ? 1 : 0);
  s.requireFault('fee_bump');
  return bumped;
}

/** A re-org removes the included batch of `paid`: it goes back to broadcast, is sent again and lands once. */
async function reorgedBatch(s: Scenario, paid: Paid[], moved: Moved): Promise<void> {
  await expectSwept(s, paid);
  const snapshot = await rpc('evm_snapshot');
  await sweepBatch(paid.map((p) => p.chargeId));
  await reconcileRounds(2);
  const included = await sweepsOf(paid);
  expect(included.map((r) => r.status)).toEqual(['included', 'included']);
  await rpc('evm_revert', [snapshot]);
  s.note('reorg');
  await automine(false);
  await mine(3); // a longer branch without it (the node dropped it from its pool too)
  await rpc('anvil_dropTransaction', [included[0]!.txHash]).catch(() => null);
  expect(
    await w()
      .client.getTransactionReceipt({ hash: included[0]!.txHash as Hex })
      .catch(() => null),
  ).toBeNull();
  await reconcileDueTransfers({ ignoreSchedule: true });
  expect((await sweepsOf(paid)).map((r) => r.status)).toEqual(['broadcast', 'broadcast']);
  await automine(true);
  await expectMovedOnce(paid, moved);
}

/** kill -9 after the batch of `paid` is recorded, before it is broadcast: the reconciler sends it, nothing is signed twice. */
async function killedAfterRecord(s: Scenario, paid: Paid[], moved: Moved): Promise<void> {
  await expectSwept(s, paid);
  const run = await runStep({ op: 'sweepBatch', chargeIds: paid.map((p) => p.chargeId) }, 'transfer.recorded');
  expect(run.killed).toBe(true);
  s.note('kill_after_record');
  const recorded = await sweepsOf(paid);
  expect(recorded.map((r) => r.status)).toEqual(['signed', 'signed']);
  expect(
    await w()
      .client.getTransaction({ hash: recorded[0]!.txHash as Hex })
      .catch(() => null),
  ).toBeNull();
  // The next pass finds them in flight and signs nothing.
  expect([...(await sweepBatch(paid.map((p) => p.chargeId))).values()]).toEqual(['in_flight', 'in_flight']);
  await reconcileRounds(3);
  await expectMovedOnce(paid, moved);
}

/** Two worker processes sweep the charges of `paid` at once: each deposit is in one transaction. */
async function twoWorkers(s: Scenario, paid: Paid[], moved: Moved): Promise<void> {
  await expectSwept(s, paid);
  const ids = paid.map((p) => p.chargeId);
  const [a, b] = await Promise.all([
    runStep({ op: 'sweepBatch', chargeIds: ids }),
    runStep({ op: 'sweepBatch', chargeIds: [...ids].reverse() }),
  ]);
  s.note('duplicate_submit');
  const outcomes = [a.output?.result, b.output?.result] as Record<string, string>[];
  for (const id of ids) expect(outcomes.filter((o) => o?.[id] === 'swept').length).toBeLessThanOrEqual(1);
  // Whatever one worker skipped (busy), a later pass sweeps; nothing twice.
  for (let i = 0; i < 3; i++) {
    await sweepBatch(ids);
    await reconcileRounds(2);
  }
  expect((await sweepsOf(paid)).filter((r) => r.status !== 'failed')).toHaveLength(3);
  await expectMovedOnce(paid, moved);
}

describe('the relayer under faults', () => {
  scenario(RELAYER, 'lost sends and errors after the node took them: a single relayed sweep and a batch of three', async (s) => {
    const paid = paidFor.lost;
    await expectSwept(s, paid);
    s.inject({ loseSends: 1, failAfterSends: 1 });
    s.requireFault('lost_send', 'fail_after_send');
    expect(await sweepCharge(paid[0]!.chargeId)).toBe('swept'); // its send is lost
    const batch = await sweepBatch(paid.slice(1).map((p) => p.chargeId)); // its send errs after the node took it
    expect([...batch.values()]).toEqual(['swept', 'swept', 'swept']);
    for (let i = 0; i < 3; i++) {
      await reconcileRounds(1); // the lost one is not in the node's pool: the reconciler sends the same bytes again
      expect(await sweepCharge(paid[0]!.chargeId)).not.toBe('swept');
    }
    const rows = await sweepsOf(paid);
    expect(rows).toHaveLength(4);
    expect(new Set(rows.map((r) => r.nonce)).size).toBe(2);
    await expectMovedOnce(paid);
  });

  scenario(RELAYER, 'stuck under the base fee: the single sweep and the batch are each re-signed once, at one tank nonce', async (s) => {
    const paid = paidFor.stuck;
    await expectSwept(s, paid);
    await automine(false);
    expect(await sweepCharge(paid[0]!.chargeId)).toBe('swept');
    await sweepBatch(paid.slice(1).map((p) => p.chargeId));
    const before = await sweepsOf(paid);
    const high = before.reduce((max, r) => (r.maxFeePerGas! > max ? r.maxFeePerGas! : max), 0n) * 4n;
    const bumped = await underBaseFee(s, paid, high);
    const batchRows = bumped.filter((r) => r.chargeId !== paid[0]!.chargeId);
    expect(new Set(batchRows.map((r) => r.txHash)).size).toBe(1);
    expect(batchRows.every((r) => r.feeBumps > 0)).toBe(true);
    await automine(true);
    await expectMovedOnce(paid);
  });

  scenario(RELAYER, 'a re-org removes an included batch: it goes back to broadcast, is sent again and lands once', (s) =>
    reorgedBatch(s, paidFor.reorg, {}),
  );

  scenario(RELAYER, 'kill -9 after the batch is recorded, before it is broadcast: the reconciler sends it, nothing is signed twice', (s) =>
    killedAfterRecord(s, paidFor.killRecorded, {}),
  );

  scenario(RELAYER, 'kill -9 after the node accepted the batch, before the rows say so: settled from the chain, once', async (s) => {
    const paid = paidFor.killSent;
    await expectSwept(s, paid);
    const run = await runStep({ op: 'sweepBatch', chargeIds: paid.map((p) => p.chargeId) }, 'transfer.sent');
    expect(run.killed).toBe(true);
    s.note('kill_after_send');
    const rows = await sweepsOf(paid);
    expect(rows.map((r) => r.status)).toEqual(['signed', 'signed']);
    expect(await w().client.getTransactionReceipt({ hash: rows[0]!.txHash as Hex })).toBeTruthy();
    await reconcileRounds(3);
    await expectMovedOnce(paid);
  });

  scenario(RELAYER, 'duplicate submits: two worker processes sweep the same charges at once; each deposit is in one transaction', (s) =>
    twoWorkers(s, paidFor.duplicate, {}),
  );
});

const PULL = 'Relayer (pull sweeps, ADR 0035)';

describe('pull sweeps under faults', () => {
  scenario(PULL, "a lost send and an error after the node took it: the tank's pull is sent again, each deposit moves once", async (s) => {
    const paid = pullFor.pullLost;
    await expectSwept(s, paid);
    s.inject({ loseSends: 1, failAfterSends: 1 });
    s.requireFault('lost_send');
    expect([...(await sweepBatch(paid.map((p) => p.chargeId))).values()]).toEqual(['swept', 'swept']);
    const rows = await sweepsOf(paid);
    expect(rows.every((r) => getAddress(r.callTo!) === getAddress(w().tank))).toBe(true);
    expect(new Set(rows.map((r) => r.txHash)).size).toBe(1);
    for (let i = 0; i < 3; i++) {
      await reconcileRounds(1);
      expect([...(await sweepBatch(paid.map((p) => p.chargeId))).values()].every((o) => o !== 'swept')).toBe(true);
    }
    await expectMovedOnce(paid, { fromBlock: pullSince, pulled: true });
  });

  scenario(PULL, 'stuck under the base fee: the pull is re-signed once for all its rows at its tank nonce', async (s) => {
    const paid = pullFor.pullStuck;
    await expectSwept(s, paid);
    await automine(false);
    await sweepBatch(paid.map((p) => p.chargeId));
    const before = await sweepsOf(paid);
    const bumped = await underBaseFee(s, paid, before[0]!.maxFeePerGas! * 4n);
    expect(new Set(bumped.map((r) => r.txHash)).size).toBe(1);
    expect(new Set(bumped.map((r) => r.nonce))).toEqual(new Set([before[0]!.nonce]));
    await automine(true);
    await expectMovedOnce(paid, { fromBlock: pullSince, pulled: true });
  });

  scenario(PULL, 'a re-org removes an included pull: back to broadcast, sent again, lands once', (s) =>
    reorgedBatch(s, pullFor.pullReorg, { fromBlock: pullSince, pulled: true }),
  );

  scenario(PULL, 'kill -9 after the pull is recorded, before it is broadcast: the reconciler sends it, nothing signed twice', (s) =>
    killedAfterRecord(s, pullFor.pullKillRecorded, { fromBlock: pullSince, pulled: true }),
  );

  scenario(PULL, 'duplicate submits: two workers pull the same deposits at once; each deposit is in one transaction', (s) =>
    twoWorkers(s, pullFor.pullDuplicate, { fromBlock: pullSince, pulled: true }),
  );
});
