/**
 * The fault-injection suite, gas tank and competing spends (issue 29.4), in USDC on a private POLYGON node
 * through the RPC fault proxy (test/faults/token-world.ts): the tank empty while its top-ups are in flight,
 * its own top-up dropped from the mempool or stuck under the base fee; a withdrawal, a refund and a sweep of
 * one merchant wallet at once; a refund racing the sweep of the same deposit; and incoming payments
 * re-organised out of the chain (a payer's double spend) before the confirmation depth.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { chargeEvents, charges, outboundTransferAttempts, outboundTransfers, payments } from '@/lib/db/schema';
import { reconcileChain } from '@/lib/ledger/reconcile-chains';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { sweepCharge } from '@/lib/payments/sweep-charges';
import { createRefund, newRefundRequestId } from '@/lib/refunds/create-refund';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { SCENARIO_TIMEOUT, PIN, pause, retried, stranger } from './harness';
import {
  automine,
  jobsOnce,
  mine,
  newCharge,
  newConsumer,
  outsideWallet,
  paidCharge,
  refundCtx,
  rpc,
  scenario,
  sendToken,
  setNativeBalance,
  settle,
  startTokenWorld,
  stopTokenWorld,
  tokenBalance,
  transfersOf,
  units,
  w,
  withdrawal,
} from './token-world';

const TANK = 'Gas tank empty or its top-up stuck';
const COMPETING = 'Competing spends of one wallet';
const REORG = 'Re-orgs of incoming payments';

beforeAll(async () => {
  await startTokenWorld({ chain: 'POLYGON', symbol: 'USDC', dbPrefix: 'faults_tank', localChains: 'POLYGON_AMOY', merchantFunding: '100' });
}, SCENARIO_TIMEOUT);

afterAll(() => stopTokenWorld('faults-tank-competing'));

/** Retried as a user would while the endpoint errs; a refusal for want of funds is an answer, not retried. */
async function retriedUnlessRefused<T>(action: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await action();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (i >= 80 || code === 'insufficient_balance' || code === 'refund_not_possible') throw error;
      await pause(100);
    }
  }
}

const tankBalance = () => w().client.getBalance({ address: w().tank });

describe('the gas tank', () => {
  scenario(
    TANK,
    'the tank runs dry while two top-ups are in the mempool, which evicts them: the spends wait, and complete once it is refilled',
    async (s) => {
      const consumer = await newConsumer('10');
      const charge = await newCharge('3');
      const paid = await paidCharge('2', { sweeps: false });
      s.expectCharge(charge.chargeId, 'succeeded');
      s.expectCharge(paid.chargeId, 'succeeded');
      await s.expectArrival('refund', paid.payer, units('2'));
      await automine(false);
      // Recorded and sent while the tank could pay; not yet mined.
      await payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN });
      await createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: newRefundRequestId() });
      // The tank is emptied (another instance, an operator's mistake): nothing in the pool can be paid for.
      const full = await tankBalance();
      await setNativeBalance(w().tank, 0n);
      s.adjustTank(-full);
      s.note('tank_empty');
      // A node evicts what its sender can no longer pay for: sent again, each is refused for want of funds.
      for (const t of await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.purpose, 'gas_topup'))) {
        if (t.createdAt > s.started && t.status === 'broadcast') {
          await rpc('anvil_dropTransaction', [t.txHash]);
          s.note('top-up evicted');
        }
      }
      s.requireFault('top-up evicted');
      for (let i = 0; i < 6; i++) {
        await mine(1);
        await pause(1_100); // stuck after TRANSFER_STUCK_AFTER_SECONDS: sent again, refused for funds
        await reconcileDueTransfers({ ignoreSchedule: true });
      }
      // Nothing a dry tank refuses is given up: no top-up is canceled or failed while the operator refills it.
      const recorded = await getDb().select().from(outboundTransfers);
      const ours = recorded.filter((t) => t.createdAt > s.started);
      expect(ours.filter((t) => t.status === 'failed')).toEqual([]);
      // The dry tank held them: its top-ups are not in a block, and the spends behind them not sent.
      const waiting = ours.filter((t) => t.purpose === 'gas_topup' && (t.status === 'signed' || t.status === 'broadcast'));
      s.note('top-ups held by the dry tank', waiting.length);
      s.requireFault('top-ups held by the dry tank');
      await setNativeBalance(w().tank, full);
      s.adjustTank(full);
      await automine(true);
    },
  );

  scenario(
    TANK,
    'the tank’s own top-up is dropped from the mempool, then its re-send stuck under the base fee: the sweep waits, then lands once',
    async (s) => {
      const paid = await paidCharge('4', { sweeps: false });
      s.expectCharge(paid.chargeId, 'succeeded');
      await s.expectArrival('sweep to the merchant wallet', w().merchantWallet, units('4'));
      await automine(false);
      await sweepCharge(paid.chargeId);
      const [topUp] = await transfersOf(paid.chargeId, 'gas_topup');
      expect(topUp).toBeDefined();
      await rpc('anvil_dropTransaction', [topUp!.txHash]);
      s.note('top-up dropped');
      for (let i = 0; i < 3; i++) {
        await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(topUp!.maxFeePerGas! * 3n).toString(16)}`]);
        await mine(1);
        await pause(1_100);
        await reconcileDueTransfers({ ignoreSchedule: true });
      }
      const [bumped] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, topUp!.id));
      s.note('top-up fee bump', bumped!.feeBumps);
      s.requireFault('top-up fee bump');
      // The sweep itself never went out ahead of its gas.
      const [sweep] = await transfersOf(paid.chargeId, 'sweep');
      expect(sweep!.status).toBe('signed');
      await automine(true);
    },
  );
});

describe('the gas tank refused', () => {
  scenario(
    TANK,
    'the tank’s top-up before a USDC refund refused three times for funds (the tank dry at its first send): never canceled, the refund lands once refilled',
    async (s) => {
      const paid = await paidCharge('3', { sweeps: false });
      s.expectCharge(paid.chargeId, 'succeeded');
      await s.expectArrival('refund', paid.payer, units('3'), 0n);
      s.inject({ refuseSends: 3 });
      s.requireFault('refused_send');
      await createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: newRefundRequestId() });
      for (let i = 0; i < 6; i++) {
        await reconcileDueTransfers({ ignoreSchedule: true });
        await mine(5);
      }
      // The tank's refusals never cancel its top-up (it waits for funds): nothing is canceled, nothing failed.
      const [topUp] = await transfersOf(paid.chargeId, 'gas_topup');
      const attempts = await getDb().select().from(outboundTransferAttempts).where(eq(outboundTransferAttempts.transferId, topUp!.id));
      expect(attempts.map((a) => a.kind)).toEqual(['original']);
      expect(topUp!.status).not.toBe('failed');
    },
  );
});

describe('competing spends of one wallet', () => {
  scenario(
    COMPETING,
    'a withdrawal, a refund and a sweep of the merchant wallet at once, under 20 % RPC errors (each retried)',
    async (s) => {
      const swept = await paidCharge('5'); // swept: its refund comes from the merchant wallet
      const incoming = await paidCharge('6', { sweeps: false }); // its sweep runs with the others
      const destination = stranger();
      s.expectCharge(swept.chargeId, 'succeeded');
      s.expectCharge(incoming.chargeId, 'succeeded');
      const before = await tokenBalance(w().merchantWallet);
      const refundKey = newRefundRequestId();
      const withdrawalId = (await import('@/lib/merchants/withdraw')).newWithdrawalId();
      // The wallet's whole balance is withdrawn while the refund draws on it and a sweep brings more.
      const amount = (Number(before) / 10 ** w().token.decimals).toFixed(w().token.decimals);
      s.inject({ errorRate: 0.1 });
      s.requireFault('error');
      const [withdrawn, refunded] = await Promise.allSettled([
        retriedUnlessRefused(() => withdrawFromMerchantWallet(withdrawal(destination, amount, withdrawalId))),
        retriedUnlessRefused(() => createRefund({ ctx: refundCtx(), chargeId: swept.chargeId, body: {}, idempotencyKey: refundKey })),
        retried(() => sweepCharge(incoming.chargeId)),
      ]);
      s.note('concurrent spends', 3);
      // Each is either done once or refused whole, never half; the audit checks the chain. (Both fit only when
      // the refund counts on the sweep on its way in; else one is refused for want of funds.)
      const withdrew = withdrawn.status === 'fulfilled';
      const refundedOk = refunded.status === 'fulfilled';
      if (!withdrew) expect(withdrawn.reason).toMatchObject({ code: 'insufficient_balance' });
      if (!refundedOk) expect(refunded.reason).toMatchObject({ code: expect.stringMatching(/insufficient_balance|refund_not_possible/) });
      await s.expectArrival('withdrawal', destination, withdrew ? before : 0n, 0n);
      await s.expectArrival('refund', swept.payer, refundedOk ? units('5') : 0n, 0n); // the payer sent all it had
      await s.expectArrival(
        'merchant wallet',
        w().merchantWallet,
        units('6') - (withdrew ? before : 0n) - (refundedOk ? units('5') : 0n),
        before,
      );
      expect(withdrew || refundedOk).toBe(true);
      s.note(withdrew && refundedOk ? 'both fit (the refund counted on the sweep)' : withdrew ? 'withdrawal won' : 'refund won');
      for (let i = 0; i < 4; i++) {
        await mine(10);
        await jobsOnce();
      }
    },
  );

  scenario(COMPETING, 'a refund racing the sweep of the same deposit, while sends are lost and answered with errors', async (s) => {
    const paid = await paidCharge('7', { sweeps: false });
    s.expectCharge(paid.chargeId, 'succeeded');
    await s.expectArrival('refund', paid.payer, units('7'));
    const before = await tokenBalance(w().merchantWallet);
    await s.expectArrival('merchant wallet (swept, then refunded from it, or never swept)', w().merchantWallet, 0n, before);
    s.inject({ loseSends: 1, failAfterSends: 1 });
    s.requireFault('lost_send', 'fail_after_send');
    const key = newRefundRequestId();
    await Promise.allSettled([
      retried(() => createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: key }), 30),
      sweepCharge(paid.chargeId),
      sweepCharge(paid.chargeId),
    ]);
    s.note('concurrent spends', 3);
    await retried(() => createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: key }), 30);
    for (let i = 0; i < 6; i++) {
      await mine(5);
      await pause(1_100); // the lost send is stuck after TRANSFER_STUCK_AFTER_SECONDS: sent again
      await jobsOnce();
    }
    expect(await tokenBalance(paid.deposit)).toBe(0n);
  });
});

describe('re-orgs of incoming payments', () => {
  scenario(
    REORG,
    'a USDC payment re-organised out before depth by the payer’s double spend, under 20 % RPC errors: the charge waits, and succeeds once paid again',
    async (s) => {
      const charge = await newCharge('3');
      s.expectCharge(charge.chargeId, 'succeeded');
      const payer = await outsideWallet('3');
      const snapshot = await rpc('evm_snapshot');
      s.inject({ errorRate: 0.2 });
      s.requireFault('error');
      const paidHash = await sendToken(payer, charge.deposit, units('3'));
      // The payment's rows: one (one Transfer log; the unique key is chain + tx hash + log index).
      const rowsOf = () =>
        getDb()
          .select()
          .from(payments)
          .where(and(eq(payments.chain, w().chain), eq(payments.txHash, paidHash)));
      await mine(5); // seen, below the depth of 30
      // Up to 100 polls: the one that sees it needs 6 calls in a row (the head, the cursor's block, the window's
      // end, its Transfer logs, the end again, the payment's block), under 20 % errors about 1 in 3 gets through.
      // 20 ran out in about 1 run in 2,400 (0.68^20), 100 below 1 in 10^16. It stops once the row is there.
      for (let i = 0; i < 100 && !(await rowsOf()).length; i++) {
        await jobsOnce({ sweeps: false });
      }
      const [seen] = await rowsOf();
      expect(seen?.status).toBe('pending');
      // A longer branch where the payer spent the same nonce elsewhere.
      await rpc('evm_revert', [snapshot]);
      s.note('reorg');
      await sendToken(payer, stranger(), units('3'));
      // The watcher notes it missing from its block, never drops it on one look; a depth (30 blocks, 6 rounds)
      // after the first miss, at its next poll that gets through, it does. Most rounds make no progress: a poll
      // stops at its first RPC error and needs about 8 calls in a row (0.8^8 ≈ 17 %), the one that meets the
      // re-organisation 11 (a fresh world) to 15 (the whole file: the fork's binary search over 128 checkpoints
      // reads 7 blocks), counted by a probe in the proxy: 0.8^14 ≈ 4 % a round, or 2 % were it 19. So 60 rounds
      // (2–5 s) ran out in about 1 run in 9 of the whole file, the payment still pending: what one clean-clone
      // run saw (read then as a status that went away and came back; it cannot, a poll writes in one
      // transaction). 300 rounds ran out in about 1 in 300,000 (1 in 175 at 19 calls); 1,000 rounds: below 1 in
      // 10^12 (1 in 45 million at 19 calls); about 35 rounds on average. Every read on the way is pending, then
      // dropped: nobody reading the payment sees it go anywhere else and back.
      const seenStatuses: string[] = [];
      for (let i = 0; i < 1_000; i++) {
        const rows = await rowsOf();
        expect(rows).toHaveLength(1);
        if (seenStatuses.at(-1) !== rows[0]!.status) seenStatuses.push(rows[0]!.status);
        if (rows[0]!.status === 'dropped') break;
        await mine(5);
        await jobsOnce({ sweeps: false });
      }
      expect(seenStatuses).toEqual(['pending', 'dropped']);
      const [dropped] = await rowsOf();
      const [waiting] = await getDb().select({ status: charges.status }).from(charges).where(eq(charges.id, charge.chargeId));
      expect(dropped?.status).toBe('dropped');
      expect(waiting!.status).not.toBe('succeeded');
      // The payer pays again (another wallet): this one counts.
      const again = await outsideWallet('3');
      await sendToken(again, charge.deposit, units('3'));
      await mine(5);
      await jobsOnce();
    },
  );
});

// Last in the file: a re-organisation past everything (see docs/adr/0036-payments-reversed-after-settlement.md).
describe('a re-organisation deeper than the confirmation depth', () => {
  it(
    'a USDC payment reversed (double-spent) after its charge succeeded and was swept: recorded, on the timeline once, nothing clawed back; the re-sent sweep reverts, the engine ends it failed, and the books balance',
    async () => {
      const charge = await newCharge('8');
      const payer = await outsideWallet('8');
      const merchantBefore = await tokenBalance(w().merchantWallet);
      const snapshot = await rpc('evm_snapshot');
      const paidHash = await sendToken(payer, charge.deposit, units('8'));
      await settle(); // confirmed at depth 30, succeeded, swept (the tank's top-up, then the sweep)
      const [succeeded] = await getDb().select().from(charges).where(eq(charges.id, charge.chargeId));
      expect(succeeded!.status).toBe('succeeded');
      const ours = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, charge.chargeId));
      expect(ours.map((t) => [t.purpose, t.status]).sort()).toEqual([
        ['gas_topup', 'confirmed'],
        ['sweep', 'confirmed'],
      ]);
      expect(await tokenBalance(w().merchantWallet)).toBe(merchantBefore + units('8'));

      // The chain re-organises past all of it (deeper than 30 blocks); in the new branch the payer spent the
      // same nonce elsewhere. Our own transactions return to the mempool, as nodes do with a dropped branch's.
      await rpc('evm_revert', [snapshot]);
      await sendToken(payer, stranger(), units('8'));
      for (const t of ours.sort((a, b) => (a.purpose === 'gas_topup' ? -1 : b.purpose === 'gas_topup' ? 1 : 0))) {
        await rpc('eth_sendRawTransaction', [t.rawTransaction]).catch(() => null);
      }
      await mine(w().depth + 40); // longer than the branch it replaces
      const paymentOf = async () => (await getDb().select().from(payments).where(eq(payments.txHash, paidHash)))[0]!;
      for (let i = 0; i < 30 && (await paymentOf()).status !== 'dropped'; i++) {
        await jobsOnce({ sweeps: false });
        await mine(10);
      }
      await jobsOnce();

      // Recorded: the payment dropped, the charge still succeeded, the timeline says so once.
      expect((await paymentOf()).status).toBe('dropped');
      const [after] = await getDb().select().from(charges).where(eq(charges.id, charge.chargeId));
      expect(after!.status).toBe('succeeded');
      const reversed = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, charge.chargeId));
      expect(reversed.filter((e) => e.type === 'charge.payment_reversed').map((e) => e.data)).toEqual([
        expect.objectContaining({ txHash: paidHash, amountBaseUnits: units('8').toString() }),
      ]);
      // Nothing clawed back: no transfer leaves the merchant wallet for it, and its balance is as before the payment.
      const transfersAfter = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, charge.chargeId));
      expect(transfersAfter).toHaveLength(2);
      expect(await tokenBalance(w().merchantWallet)).toBe(merchantBefore);
      // The engine followed our own transactions again: the top-up mined again (confirmed), the sweep re-sent
      // from an empty deposit reverted (failed: a reversal, once on the timeline), nothing new signed.
      const byPurpose = Object.fromEntries(transfersAfter.map((t) => [t.purpose, t]));
      expect(byPurpose.gas_topup).toMatchObject({ status: 'confirmed', txHash: ours.find((t) => t.purpose === 'gas_topup')!.txHash });
      expect(byPurpose.sweep).toMatchObject({ status: 'failed', txHash: ours.find((t) => t.purpose === 'sweep')!.txHash });
      expect(byPurpose.sweep!.error).toMatch(/^reversed by a re-organisation after it was confirmed/);
      expect(reversed.filter((e) => e.type === 'charge.transfer_reversed').map((e) => e.data)).toEqual([
        expect.objectContaining({ purpose: 'sweep', amountBaseUnits: units('8').toString() }),
      ]);
      // The books balance again: neither the dropped payment nor the reverted sweep is counted, at the
      // deposit or (the wallet indexer re-checked its incoming sweep) at the merchant wallet.
      const ledger = await reconcileChain(w().chain);
      expect(ledger.error).toBeUndefined();
      expect(ledger.discrepancies).toEqual([]);
    },
    SCENARIO_TIMEOUT,
  );
});
