/**
 * The fault-injection suite (`npm run test:faults`, a step of `npm test`): money moved through the real
 * code paths — balance payments, sweeps, withdrawals, wallet sends, refunds (to the payer, and claim
 * links the payer claims) — on a private DFK testnet node (confirmation depth 2) reached through an RPC
 * fault proxy, while things go wrong: RPC errors, sends lost or answered with an error after the node
 * took them, missing receipts, a lagging head, transactions stuck under the base fee or dropped from the
 * mempool, re-orgs, the process killed (SIGKILL) at each step of a transfer, and two app instances at
 * once (two claims of one link; a link expiring while it is claimed).
 *
 * After every scenario the background jobs run until nothing is in flight, and an audit checks against
 * the chain: no recipient got anything twice or too little, every charge's status and payments agree
 * with the chain, and the ledger reconciles to the unit (lib/ledger). The table of outcomes is printed
 * and written to .data/test-results/faults.md.
 */
import { and, eq, gt } from 'drizzle-orm';
import { parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, refunds } from '@/lib/db/schema';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { sweepCharge } from '@/lib/payments/sweep-charges';
import { claimRefund, findRefundClaim } from '@/lib/refunds/claim-refund';
import { createRefund, newRefundRequestId } from '@/lib/refunds/create-refund';
import { expireRefundClaims } from '@/lib/refunds/expire-refund-claims';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { newSendId } from '@/lib/wallets/preview-send';
import { sendFromWallet } from '@/lib/wallets/send-from-wallet';
import type { CrashPoint } from '@/lib/crash-points';
import {
  ATTEMPTS_UNDER_RPC_ERRORS,
  PIN,
  SCENARIO_TIMEOUT,
  firedText,
  pause,
  retried,
  scenarioTest,
  stranger,
  outcomeColumns,
  writeOutcomeTable,
  type Arrival,
  type OutcomeRow,
  canceledSince,
  withdrawAndRefundWhileSendsFail,
} from './harness';
import type { FaultPlan } from './rpc-fault-proxy';
import {
  CHAIN,
  JEWEL,
  auditWorld,
  automine,
  jobsOnce,
  mine,
  newCharge,
  newConsumer,
  paidCharge,
  refundCtx,
  rpc,
  sendFrom,
  setNativeBalance,
  settle,
  startWorld,
  stopWorld,
  w,
  withdrawal,
} from './money-world';
import { runStep } from './spawn-step';
import type { Step } from './steps';

beforeAll(async () => {
  await startWorld('faults', { faultProxy: true });
}, SCENARIO_TIMEOUT);

afterAll(async () => {
  writeTable();
  await stopWorld('faults'); // its own table is empty: this file writes the one above
});

// ---------------------------------------------------------------------------------------------------------
// The world (money-world.ts): consumers, charges, payments from outside (as a payer's own wallet would make them)
// ---------------------------------------------------------------------------------------------------------

/**
 * A charge paid half each from two fresh outside wallets (neither can be assumed to be "the payer"),
 * settled, then refunded in full by the API: a claim link (lib/refunds/create-refund.ts createClaim).
 */
async function claimLink(amount: string): Promise<{ chargeId: string; refundId: string; token: string }> {
  const charge = await newCharge(amount);
  for (let i = 0; i < 2; i++) {
    const sender = privateKeyToAccount(generatePrivateKey());
    await setNativeBalance(sender.address, parseEther('100'));
    await sendFrom(sender, charge.deposit, parseEther(amount) / 2n);
  }
  await settle();
  const { refund } = await createRefund({ ctx: refundCtx(), chargeId: charge.chargeId, body: {}, idempotencyKey: newRefundRequestId() });
  expect(refund.status).toBe('awaiting_claim');
  return { chargeId: charge.chargeId, refundId: refund.id, token: refund.claimUrl!.split('/').pop()! };
}

/** The refund transfers of a charge (a claim link is paid by exactly one, or none once expired). */
const refundTransfersOf = (chargeId: string) =>
  getDb()
    .select({ id: outboundTransfers.id })
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'refund')));

// ---------------------------------------------------------------------------------------------------------
// Processes that die: the app or worker killed with SIGKILL at a crash point
// ---------------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------------
// Scenarios and their audit
// ---------------------------------------------------------------------------------------------------------

type Outcome = OutcomeRow;
const table: Outcome[] = [];

class Scenario {
  readonly started = new Date();
  private readonly fired: Record<string, number> = {};
  private readonly arrivals: Arrival[] = [];
  private readonly chargeExpectations: { chargeId: string; status: string }[] = [];
  private readonly claimExpectations: { link: { chargeId: string; token: string }; status: 'succeeded' | 'expired' }[] = [];
  readonly notes: string[] = [];

  constructor(readonly name: string) {}

  inject(plan: FaultPlan): void {
    this.collectFaults();
    w().proxy!.inject(plan);
  }

  heal(): void {
    this.inject({});
  }

  note(fault: string, times = 1): void {
    this.fired[fault] = (this.fired[fault] ?? 0) + times;
  }

  private collectFaults(): void {
    for (const [fault, count] of Object.entries(w().proxy!.counts())) this.note(fault, count);
  }

  /**
   * `address` must end up exactly `amount` richer than it is now (never twice, never short); `baseline`
   * when what it held before is known already (a fresh address: 0) and a transfer may be under way.
   */
  async expectArrival(label: string, address: Address, amount: bigint, baseline?: bigint): Promise<void> {
    this.arrivals.push({ label, address, amount, baseline: baseline ?? (await w().chain.getBalance({ address })) });
  }

  /** A claim link ends `succeeded`, paid by exactly one refund transfer, or `expired` with none. */
  expectClaim(link: { chargeId: string; token: string }, status: 'succeeded' | 'expired'): void {
    this.claimExpectations.push({ link, status });
  }

  expectCharge(chargeId: string, status: string): void {
    this.chargeExpectations.push({ chargeId, status });
  }

  async audit(): Promise<Outcome> {
    this.heal();
    await settle();
    const audit = await auditWorld(this.started, this.arrivals, this.chargeExpectations);
    const problems = audit.problems;
    let claimMismatches = 0;
    for (const { link, status } of this.claimExpectations) {
      const view = await findRefundClaim(link.token);
      const paidBy = (await refundTransfersOf(link.chargeId)).length;
      if (view.status !== status || paidBy !== (status === 'succeeded' ? 1 : 0)) {
        claimMismatches++;
        problems.push(`claim link of ${link.chargeId} is ${view.status} with ${paidBy} refund transfers, expected ${status}`);
      }
    }
    const outcome: Outcome = {
      scenario: this.name,
      faults: firedText(this.fired),
      ...audit.counts,
      statusMismatches: audit.counts.statusMismatches + claimMismatches,
    };
    table.push(outcome);
    expect(problems, problems.join('\n')).toEqual([]);
    return outcome;
  }
}

/** After the body, even when it threw: mining on again, the proxy's faults gone. */
async function healed(s: Scenario): Promise<void> {
  await automine(true);
  s.heal();
}

function scenario(name: string, body: (s: Scenario) => Promise<void>): void {
  scenarioTest(name, () => new Scenario(name), body, { heal: healed });
}

// ---------------------------------------------------------------------------------------------------------

describe('an unreliable RPC endpoint', () => {
  scenario('25 % of RPC calls fail while a consumer pays, a merchant withdraws and refunds (each retried by the user)', async (s) => {
    const consumer = await newConsumer('30');
    const charge = await newCharge('5');
    const paid = await paidCharge('4');
    const destination = stranger();
    const form = withdrawal(destination, '1.5');
    const refundKey = newRefundRequestId();
    await s.expectArrival('withdrawal', destination, parseEther('1.5'));
    await s.expectArrival('refund', paid.payer, parseEther('4'));
    s.expectCharge(charge.chargeId, 'succeeded');
    s.expectCharge(paid.chargeId, 'succeeded');

    s.inject({ errorRate: 0.25 });
    const attempts = ATTEMPTS_UNDER_RPC_ERRORS;
    await retried(() => payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN }), attempts);
    await retried(() => withdrawFromMerchantWallet(form), attempts);
    await retried(() => createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: refundKey }), attempts);
    for (let i = 0; i < 6; i++) {
      await mine(1);
      await jobsOnce();
    }
  });

  scenario('a send is acknowledged but never reaches the node (withdrawal)', async (s) => {
    const destination = stranger();
    await s.expectArrival('withdrawal', destination, parseEther('2'));
    s.inject({ loseSends: 1 });
    const { txHash } = await withdrawFromMerchantWallet(withdrawal(destination, '2'));
    expect(
      await w()
        .chain.getTransaction({ hash: txHash as Hex })
        .catch(() => null),
    ).toBeNull();
  });

  scenario('the node takes a send but the answer is an error (refund, retried with its Idempotency-Key)', async (s) => {
    const paid = await paidCharge('3');
    const key = newRefundRequestId();
    await s.expectArrival('refund', paid.payer, parseEther('3'));
    s.expectCharge(paid.chargeId, 'succeeded');
    s.inject({ failAfterSends: 2 });
    await createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: key }).catch(() => undefined);
    const again = await retried(() => createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: key }));
    expect(again.replayed).toBe(true);
  });

  scenario('receipts and transactions answer "not found" 70 % of the time while a balance payment settles', async (s) => {
    const consumer = await newConsumer('20');
    const charge = await newCharge('6');
    s.expectCharge(charge.chargeId, 'succeeded');
    s.inject({ missingReceiptRate: 0.7 });
    await retried(() => payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN }));
    for (let i = 0; i < 8; i++) {
      await mine(1);
      await jobsOnce();
      // "No receipt" is not proof of anything: nothing is given up on while the node is flaky.
      const failed = await getDb()
        .select()
        .from(outboundTransfers)
        .where(and(gt(outboundTransfers.createdAt, s.started), eq(outboundTransfers.status, 'failed')));
      expect(failed).toEqual([]);
    }
  });

  scenario(
    'sends answered by 429s, 503s, resets and timeouts, 20 in a row (a withdrawal and a refund): nothing is canceled, each lands once',
    async (s) => {
      const paid = await paidCharge('2');
      await withdrawAndRefundWhileSendsFail(s, { units: parseEther, withdrawal, refundCtx }, paid, {
        count: 20,
        kinds: ['http_429', 'http_429', 'http_503', 'reset', 'rpc_limit', 'hang', 'rpc_internal', 'http_429', 'http_503', 'reset'],
      });
      for (let i = 0; i < 10; i++) {
        await mine(1);
        await jobsOnce();
      }
      expect(await canceledSince(s.started)).toEqual([]);
      const failed = await getDb()
        .select()
        .from(outboundTransfers)
        .where(and(gt(outboundTransfers.createdAt, s.started), eq(outboundTransfers.status, 'failed')));
      expect(failed).toEqual([]);
      // The audit heals the endpoint, settles, and checks each landed once and nothing ended failed.
    },
  );

  scenario('25 % of RPC calls fail while the payer claims a refund link (the claim retried)', async (s) => {
    const link = await claimLink('4');
    const payer = stranger();
    await s.expectArrival('claimed refund', payer, parseEther('4'));
    s.expectCharge(link.chargeId, 'succeeded');
    s.expectClaim(link, 'succeeded');
    s.inject({ errorRate: 0.25 });
    const view = await retried(() => claimRefund({ token: link.token, to: { address: payer } }), ATTEMPTS_UNDER_RPC_ERRORS);
    expect(view.destination).toBe(payer);
    for (let i = 0; i < 6; i++) {
      await mine(1);
      await jobsOnce();
    }
  });

  scenario('a refund link claimed while a send is lost and the next answered with an error (the payer submits again)', async (s) => {
    const link = await claimLink('3');
    const payer = stranger();
    await s.expectArrival('claimed refund', payer, parseEther('3'));
    s.expectCharge(link.chargeId, 'succeeded');
    s.expectClaim(link, 'succeeded');
    s.inject({ loseSends: 1, failAfterSends: 1 });
    await retried(() => claimRefund({ token: link.token, to: { address: payer } }));
    for (let i = 0; i < 4; i++) {
      await mine(1);
      await pause(1_100); // the lost send is stuck after TRANSFER_STUCK_AFTER_SECONDS: sent again
      await jobsOnce();
      // The payer, seeing nothing yet, submits the link again: answered as claimed, nothing recorded twice.
      expect((await claimRefund({ token: link.token, to: { address: payer } })).destination).toBe(payer);
    }
    expect(await refundTransfersOf(link.chargeId)).toHaveLength(1);
  });

  scenario('the endpoint lags three blocks behind the chain (a stale node behind a balancer)', async (s) => {
    const consumer = await newConsumer('20');
    const charge = await newCharge('7');
    const destination = stranger();
    await s.expectArrival('withdrawal', destination, parseEther('1'));
    s.expectCharge(charge.chargeId, 'succeeded');
    s.inject({ staleBlocks: 3 });
    await retried(() => payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN }));
    await retried(() => withdrawFromMerchantWallet(withdrawal(destination, '1')));
    for (let i = 0; i < 6; i++) {
      await mine(1);
      await jobsOnce();
    }
  });
});

describe('the mempool', () => {
  scenario('a withdrawal stuck under a rising base fee is replaced at its nonce with higher fees, once', async (s) => {
    const destination = stranger();
    await s.expectArrival('withdrawal', destination, parseEther('1.25'));
    await automine(false);
    const { transferId } = await withdrawFromMerchantWallet(withdrawal(destination, '1.25'));
    const [first] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
    // The next blocks' base fee jumps above what the transaction offers: it cannot be included.
    for (let i = 0; i < 3; i++) {
      await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(first!.maxFeePerGas! * 3n).toString(16)}`]);
      await mine(1);
      await pause(1_100);
      await reconcileDueTransfers({ ignoreSchedule: true });
    }
    const [bumped] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
    expect(bumped!.feeBumps).toBeGreaterThan(0);
    s.note('fee_bump', bumped!.feeBumps);
  });

  scenario('a broadcast withdrawal is dropped from the mempool (anvil_dropTransaction) and sent again', async (s) => {
    const destination = stranger();
    await s.expectArrival('withdrawal', destination, parseEther('0.75'));
    await automine(false);
    const { txHash } = await withdrawFromMerchantWallet(withdrawal(destination, '0.75'));
    await rpc('anvil_dropTransaction', [txHash]);
    s.note('dropped_from_mempool');
    await mine(2);
    await pause(1_100);
    await reconcileDueTransfers({ ignoreSchedule: true });
  });
});

describe('re-orgs', () => {
  scenario('a balance payment re-organised out of the chain is included again in the new branch', async (s) => {
    const consumer = await newConsumer('20');
    const charge = await newCharge('3');
    s.expectCharge(charge.chargeId, 'succeeded');
    const snapshot = await rpc('evm_snapshot');
    const { txHash } = await payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN });
    await jobsOnce(); // included, seen by the watcher: one block deep, not yet final
    await rpc('evm_revert', [snapshot]);
    s.note('reorg');
    await automine(false);
    await mine(3); // a longer branch without it
    expect(
      await w()
        .chain.getTransactionReceipt({ hash: txHash as Hex })
        .catch(() => null),
    ).toBeNull();
    await pause(1_100);
    await jobsOnce();
  });

  scenario('a withdrawal re-organised out, then stuck under the base fee, lands as its fee-bumped replacement', async (s) => {
    const destination = stranger();
    await s.expectArrival('withdrawal', destination, parseEther('2.5'));
    const snapshot = await rpc('evm_snapshot');
    const { transferId, txHash } = await withdrawFromMerchantWallet(withdrawal(destination, '2.5'));
    await jobsOnce();
    await rpc('evm_revert', [snapshot]);
    s.note('reorg');
    await automine(false);
    const [row] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
    for (let i = 0; i < 3; i++) {
      await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(row!.maxFeePerGas! * 3n).toString(16)}`]);
      await mine(1);
      await pause(1_100);
      await reconcileDueTransfers({ ignoreSchedule: true });
    }
    await automine(true);
    await settle();
    const [landed] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
    expect(landed!.txHash).not.toBe(txHash);
    s.note('fee_bump', landed!.feeBumps);
  });
});

describe('processes killed mid-way (SIGKILL)', () => {
  const points: CrashPoint[] = ['transfer.recorded', 'transfer.sent'];

  for (const point of points) {
    scenario(`balance payment: the app dies at ${point}; the consumer pays again`, async (s) => {
      const consumer = await newConsumer('20');
      const charge = await newCharge('4');
      s.expectCharge(charge.chargeId, 'succeeded');
      const step: Step = { op: 'pay', userId: consumer.userId, chargeId: charge.chargeId, pin: PIN };
      expect((await runStep(step, point)).killed).toBe(true);
      s.note(`kill at ${point}`);
      await payFromBalance(step);
    });

    scenario(`withdrawal: the app dies at ${point}; the owner submits the same form again`, async (s) => {
      const destination = stranger();
      const form = withdrawal(destination, '3');
      await s.expectArrival('withdrawal', destination, parseEther('3'));
      expect((await runStep({ op: 'withdraw', input: form }, point)).killed).toBe(true);
      s.note(`kill at ${point}`);
      await withdrawFromMerchantWallet(form);
    });

    scenario(`wallet send: the app dies at ${point}; the user sends the same form again`, async (s) => {
      const consumer = await newConsumer('10');
      const destination = stranger();
      const input = {
        userId: consumer.userId,
        sendId: newSendId(),
        pin: PIN,
        chain: CHAIN,
        tokenAddress: JEWEL.address,
        toAddress: destination,
        amount: '2',
      };
      await s.expectArrival('wallet send', destination, parseEther('2'));
      expect((await runStep({ op: 'send', input }, point)).killed).toBe(true);
      s.note(`kill at ${point}`);
      await sendFromWallet(input);
    });

    scenario(`refund: the app dies at ${point}; the API call is retried with its Idempotency-Key`, async (s) => {
      const paid = await paidCharge('2');
      const key = newRefundRequestId();
      await s.expectArrival('refund', paid.payer, parseEther('2'));
      s.expectCharge(paid.chargeId, 'succeeded');
      expect((await runStep({ op: 'refund', ctx: refundCtx(), chargeId: paid.chargeId, idempotencyKey: key }, point)).killed).toBe(true);
      s.note(`kill at ${point}`);
      await createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: key });
    });

    scenario(`claim link: the app dies at ${point}; the payer submits the claim again`, async (s) => {
      const link = await claimLink('2');
      const payer = stranger();
      const elsewhere = stranger();
      await s.expectArrival('claimed refund', payer, parseEther('2'));
      await s.expectArrival('a later claim elsewhere', elsewhere, 0n);
      s.expectCharge(link.chargeId, 'succeeded');
      s.expectClaim(link, 'succeeded');
      expect((await runStep({ op: 'claim', token: link.token, to: { address: payer } }, point)).killed).toBe(true);
      s.note(`kill at ${point}`);
      expect((await claimRefund({ token: link.token, to: { address: payer } })).destination).toBe(payer);
      // The link is claimed: naming another address now changes nothing.
      expect((await claimRefund({ token: link.token, to: { address: elsewhere } })).destination).toBe(payer);
    });

    scenario(`sweep: the worker dies at ${point}; the next run of the job finds it`, async (s) => {
      const paid = await paidCharge('5');
      await s.expectArrival('sweep', w().merchantWallet, parseEther('5'));
      s.expectCharge(paid.chargeId, 'succeeded');
      // The deposit address needs gas first: the tank's top-up and then the sweep, each a transfer.
      for (let i = 0; i < 6; i++) {
        const run = await runStep({ op: 'sweep', chargeId: paid.chargeId }, point);
        if (run.killed) s.note(`kill at ${point}`);
        await mine(1);
        await jobsOnce();
        const [sweep] = await getDb()
          .select()
          .from(outboundTransfers)
          .where(and(eq(outboundTransfers.chargeId, paid.chargeId), eq(outboundTransfers.purpose, 'sweep')));
        if (sweep) break;
      }
      for (let i = 0; i < 4; i++) {
        await sweepCharge(paid.chargeId);
        await mine(1);
        await jobsOnce();
      }
    });
  }

  scenario('the worker dies while recording a transfer as confirmed (the purpose hook rolls back with it)', async (s) => {
    const paid = await paidCharge('2');
    await s.expectArrival('refund', paid.payer, parseEther('2'));
    s.expectCharge(paid.chargeId, 'succeeded');
    const { refund } = await createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: newRefundRequestId() });
    // Sent after the deposit's gas top-up lands (automine: each send is mined at once); then one block deep.
    const [link] = await getDb().select({ transferId: refunds.transferId }).from(refunds).where(eq(refunds.id, refund.id));
    const transferId = link!.transferId!; // a payer that is an outside wallet: a transfer at once, never a claim link
    for (let i = 0; i < 10; i++) {
      await reconcileDueTransfers({ ignoreSchedule: true });
      const [row] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
      if (row!.status === 'included') break;
    }
    await mine(w().depth);
    expect((await runStep({ op: 'reconcile', rounds: 3, pauseMs: 100 }, 'transfer.settling')).killed).toBe(true);
    s.note('kill at transfer.settling');
  });

  scenario('the worker dies after recording a fee-bumped replacement, before sending it', async (s) => {
    const destination = stranger();
    await s.expectArrival('withdrawal', destination, parseEther('1'));
    await automine(false);
    const { transferId } = await withdrawFromMerchantWallet(withdrawal(destination, '1'));
    const [row] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
    await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(row!.maxFeePerGas! * 3n).toString(16)}`]);
    await mine(1);
    await pause(1_100);
    expect((await runStep({ op: 'reconcile', rounds: 3, pauseMs: 1_100 }, 'transfer.replacement_recorded')).killed).toBe(true);
    s.note('kill at transfer.replacement_recorded');
  });
});

describe('two app instances at once', () => {
  scenario(
    'two processes take the same withdrawal form, the same balance payment and the same refund, while both run the reconciler',
    async (s) => {
      const consumer = await newConsumer('20');
      const charge = await newCharge('5');
      const paid = await paidCharge('3');
      const destination = stranger();
      const form = withdrawal(destination, '2');
      const refundKey = newRefundRequestId();
      await s.expectArrival('withdrawal', destination, parseEther('2'));
      await s.expectArrival('refund', paid.payer, parseEther('3'));
      s.expectCharge(charge.chargeId, 'succeeded');
      s.expectCharge(paid.chargeId, 'succeeded');
      const steps: Step[] = [
        { op: 'withdraw', input: form },
        { op: 'pay', userId: consumer.userId, chargeId: charge.chargeId, pin: PIN },
        { op: 'refund', ctx: refundCtx(), chargeId: paid.chargeId, idempotencyKey: refundKey },
        { op: 'reconcile', rounds: 8, pauseMs: 250 },
      ];
      const runs = await Promise.all([...steps, ...steps].map((step) => runStep(step)));
      s.note('instances', 2);
      const withdrawals = runs.filter((_, i) => i % steps.length === 0).map((r) => r.output?.result as { transferId?: string } | undefined);
      expect(withdrawals[0]?.transferId).toBeDefined();
      expect(withdrawals[1]?.transferId).toBe(withdrawals[0]?.transferId);
    },
  );
});

describe('claim links under concurrency', () => {
  scenario('two processes claim the same refund link at once (to two addresses), while both run the reconciler', async (s) => {
    const link = await claimLink('3');
    const addresses = [stranger(), stranger()];
    s.expectCharge(link.chargeId, 'succeeded');
    s.expectClaim(link, 'succeeded');
    const steps: Step[] = [
      ...addresses.map((address): Step => ({ op: 'claim', token: link.token, to: { address } })),
      { op: 'reconcile', rounds: 6, pauseMs: 250 },
      { op: 'reconcile', rounds: 6, pauseMs: 250 },
    ];
    const runs = await Promise.all(steps.map((step) => runStep(step)));
    s.note('instances', 2);
    // Both are answered with the link as claimed, to the one address that won; the other is paid nothing.
    const destinations = runs.slice(0, 2).map((run) => (run.output?.result as { destination?: string } | undefined)?.destination);
    const winner = destinations[0] as Address;
    const answers = JSON.stringify(runs.slice(0, 2).map((run) => run.output));
    expect(addresses, answers).toContain(winner);
    expect(destinations[1], answers).toBe(winner);
    for (const address of addresses) {
      const won = address === winner;
      await s.expectArrival(won ? 'the claim that won' : 'the claim that lost', address, won ? parseEther('3') : 0n, 0n);
    }
  });

  scenario('claim links expiring while their payers claim them: each paid once, or expired with nothing sent, never both', async (s) => {
    const later = new Date(Date.now() + 400 * 24 * 3600_000); // past any REFUND_CLAIM_TTL_DAYS (at most 365)
    for (const expireAfterMs of [0, 20, 60, 150]) {
      const link = await claimLink('1');
      s.expectCharge(link.chargeId, 'succeeded');
      const payer = stranger();
      const [claim] = await Promise.allSettled([
        claimRefund({ token: link.token, to: { address: payer } }),
        pause(expireAfterMs).then(() => expireRefundClaims(later)),
      ]);
      const [row] = await getDb().select().from(refunds).where(eq(refunds.id, link.refundId));
      if (row!.claimStatus === 'claimed') {
        expect(claim.status).toBe('fulfilled');
        s.note('claim won');
        s.expectClaim(link, 'succeeded');
        await s.expectArrival('a claim that won', payer, parseEther('1'), 0n);
      } else {
        expect(row!.claimStatus).toBe('expired');
        expect(claim).toMatchObject({ status: 'rejected', reason: { code: 'refund_claim_closed' } });
        expect(row!.transferId).toBeNull();
        s.note('expiry won');
        s.expectClaim(link, 'expired');
        await s.expectArrival('a claim of an expired link', payer, 0n, 0n);
      }
    }
  });
});

function writeTable(): void {
  writeOutcomeTable('faults', table, {
    title: 'Fault-injection suite',
    columns: outcomeColumns({ byClass: false, faultsHeading: 'Faults injected' }),
    summary: (rows) => {
      const totals = rows.reduce(
        (sum, o) => ({
          sentTwice: sum.sentTwice + o.sentTwice,
          short: sum.short + o.shortOrMissing,
          status: sum.status + o.statusMismatches,
          unaccounted: sum.unaccounted + o.unaccounted,
        }),
        { sentTwice: 0, short: 0, status: 0, unaccounted: 0 },
      );
      return [
        `${rows.length} scenarios: ${totals.sentTwice} sent twice, ${totals.short} short or missing, ${totals.status} statuses disagreeing with the chain, ${totals.unaccounted} unaccounted balances.`,
      ];
    },
  });
}
