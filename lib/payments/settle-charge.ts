/**
 * Turns what arrived at a charge's deposit address into its status (spec: a payment succeeds or fails):
 *
 *  - first transfer seen (pending or confirmed) → `processing`;
 *  - confirmed total ≥ charge total → `succeeded`; any excess (overpaid, paid twice) is recorded for refund;
 *  - a transfer is late when its block was made after the charge's expiresAt — the block's time, not when
 *    the watcher saw it: one mined in time but seen after expiry (watcher lag, downtime) counts, and so
 *    does a payment the service started in time (balance, swap, on-ramp order) that lands later. Transfers
 *    into a charge already expired, canceled or failed are late too. Late transfers are marked and reported
 *    (an event), never lost and never counted;
 *  - still underpaid at expiry → `failed` (see failUnderpaidCharges).
 *
 * Expiry and failure wait until the chain's watcher has scanned every block up to expiresAt
 * (lib/scanner/scanned-past.ts), so a payment mined in time is always seen before the charge closes.
 */
import { and, asc, eq, inArray, lte, ne, not, or } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import {
  chargeEvents,
  charges,
  onrampOrders,
  outboundTransferAttempts,
  outboundTransfers,
  payments,
  type ChargeRow,
  type PaymentRow,
} from '@/lib/db/schema';
import { IN_FLIGHT_HOLD_MS, paymentInFlightExists } from '@/lib/charges/payment-in-flight';
import { emitChargeEvent } from '@/lib/charges/charge-events';
import type { ReversedPayment } from '@/lib/charges/schemas';
import { transitionCharge } from '@/lib/charges/transition-charge';
import { recordChargeEvents, transitionCharges } from '@/lib/charges/transition-charges';
import { scannedPast } from '@/lib/scanner/scanned-past';
import { log } from '@/lib/log';
import { fundingOf } from '@/lib/charges/funding';

/** `tx` must be a transaction (row locks). */
export async function settleCharge(tx: DbOrTx, chargeId: string): Promise<ChargeRow> {
  const [settled] = await settleCharges(tx, [chargeId]);
  return settled!;
}

/** Charges settled per round of statements (bounds the parameters of each statement). */
const SETTLE_BATCH = 500;

/**
 * settleCharge for many charges (the chain watcher: every charge a poll touched), in a fixed number of
 * statements per batch of SETTLE_BATCH, whatever the number of charges or payments: one lock of the
 * batch's charges (in id order, so two settlers never wait on each other in a cycle), one read of their
 * payments, two of what the service started for them, then one write per kind of change (late
 * payments, → processing, → succeeded, overpaid events). Every change with its timeline event, webhook
 * outbox row and checkout NOTIFY is in the caller's transaction, as with settleCharge: any failure rolls
 * the whole poll back and the next poll settles it again, once. `tx` must be a transaction.
 * Returns the charges as settled, in id order.
 */
export async function settleCharges(tx: DbOrTx, chargeIds: Iterable<string>): Promise<ChargeRow[]> {
  const ids = [...new Set(chargeIds)].sort();
  const settled: ChargeRow[] = [];
  for (let i = 0; i < ids.length; i += SETTLE_BATCH) settled.push(...(await settleBatch(tx, ids.slice(i, i + SETTLE_BATCH))));
  return settled;
}

async function settleBatch(tx: DbOrTx, ids: readonly string[]): Promise<ChargeRow[]> {
  const locked = await tx
    .select()
    .from(charges)
    .where(inArray(charges.id, [...ids]))
    .orderBy(asc(charges.id))
    .for('update');
  if (locked.length !== ids.length) {
    throw new Error(`charge ${ids.find((id) => !locked.some((c) => c.id === id))} does not exist`);
  }
  // Ordered as listChargePayments orders them: the webhook payloads list them so.
  const paid = await tx
    .select()
    .from(payments)
    .where(inArray(payments.chargeId, [...ids]))
    .orderBy(asc(payments.createdAt), asc(payments.id));
  const rowsOf = new Map<string, PaymentRow[]>(ids.map((id) => [id, []]));
  for (const row of paid) rowsOf.get(row.chargeId)!.push(row);

  const open = locked.filter((c) => c.status === 'pending' || c.status === 'processing');
  const started = await paymentsStartedInTime(tx, open);
  const late: { charge: ChargeRow; payment: PaymentRow }[] = [];
  const current = new Map(locked.map((c) => [c.id, c]));
  for (const charge of locked) {
    const rows = rowsOf.get(charge.id)!;
    if (charge.status === 'expired' || charge.status === 'canceled' || charge.status === 'failed') {
      late.push(...rows.filter((p) => !p.isLate && p.status !== 'dropped').map((payment) => ({ charge, payment })));
      current.delete(charge.id);
      continue;
    }
    if (charge.status !== 'pending' && charge.status !== 'processing') continue;
    const inTime = started.get(charge.id);
    const minedLate = rows.filter(
      (p) =>
        !p.isLate &&
        p.status !== 'dropped' &&
        p.blockTime !== null &&
        p.blockTime > charge.expiresAt &&
        !inTime?.hashes.has(p.txHash.toLowerCase()) &&
        !(inTime?.fiatUntil && p.blockTime <= inTime.fiatUntil),
    );
    for (const payment of minedLate) {
      late.push({ charge, payment });
      payment.isLate = true;
    }
  }
  await markLate(tx, late);

  const toProcessing = [...current.values()].filter((c) => c.status === 'pending' && fundingOf(rowsOf.get(c.id)!).seen > 0n);
  const processing = await transitionCharges(
    tx,
    toProcessing.map((charge) => {
      const rows = rowsOf.get(charge.id)!;
      return {
        charge,
        to: 'processing' as const,
        actor: 'system:chain-watcher',
        data: { txHashes: rows.map((p) => p.txHash), seenBaseUnits: fundingOf(rows).seen.toString() },
        payments: rows,
      };
    }),
  );
  for (const row of processing) current.set(row.id, row);

  const toSucceeded = [...current.values()].filter(
    (c) => c.status === 'processing' && fundingOf(rowsOf.get(c.id)!).confirmed >= c.totalBaseUnits,
  );
  const succeeded = await transitionCharges(
    tx,
    toSucceeded.map((charge) => {
      const rows = rowsOf.get(charge.id)!;
      const { confirmed } = fundingOf(rows);
      return {
        charge,
        to: 'succeeded' as const,
        actor: 'system:chain-watcher',
        data: {
          txHashes: rows.filter((p) => p.status === 'confirmed').map((p) => p.txHash),
          receivedBaseUnits: confirmed.toString(),
          excessBaseUnits: (confirmed - charge.totalBaseUnits).toString(),
        },
        payments: rows,
      };
    }),
  );

  // Paid twice (or topped up after success), for charges that had already succeeded: the excess is recorded for refund.
  const overpaid = locked.flatMap((charge) => {
    if (charge.status !== 'succeeded') return [];
    const rows = rowsOf.get(charge.id)!;
    const excess = fundingOf(rows).confirmed - charge.totalBaseUnits;
    const known = rows.filter((p) => p.status === 'confirmed');
    if (excess <= 0n || known.length <= 1) return [];
    return [
      {
        chargeId: charge.id,
        fromStatus: 'succeeded' as const,
        toStatus: 'succeeded' as const,
        actor: 'system:chain-watcher',
        type: 'charge.overpaid',
        data: { excessBaseUnits: excess.toString(), txHashes: known.map((p) => p.txHash) },
      },
    ];
  });
  await recordChargeEvents(tx, overpaid);
  for (const row of await reportReversedPayments(tx, locked, rowsOf)) current.set(row.id, row);

  for (const row of succeeded) current.set(row.id, row);
  return locked.map((charge) => current.get(charge.id) ?? charge);
}

/**
 * Payments of succeeded charges re-organised out of the chain after they counted (a re-organisation deeper
 * than the confirmation depth; the payer's double spend), so the charge is no longer covered: once per
 * payment, a timeline entry and a public `charge.payment_reversed` event (both here, in the poll's
 * transaction, so one exists exactly when the other does), the charge flagged for review, and an error for
 * an operator (docs/adr/0036). The charge stays succeeded and nothing is taken back from the merchant
 * automatically: what was delivered, and whether to claw anything back, is a human's decision.
 * Returns the charges it flagged, as they are now.
 */
async function reportReversedPayments(
  tx: DbOrTx,
  locked: readonly ChargeRow[],
  rowsOf: ReadonlyMap<string, PaymentRow[]>,
): Promise<ChargeRow[]> {
  const uncovered = locked.filter((charge) => {
    if (charge.status !== 'succeeded') return false;
    const rows = rowsOf.get(charge.id)!;
    const counting = rows.filter((p) => !p.isLate && p.status !== 'dropped').reduce((sum, p) => sum + p.amountBaseUnits, 0n);
    return counting < charge.totalBaseUnits && rows.some((p) => p.status === 'dropped' && !p.isLate);
  });
  if (!uncovered.length) return [];
  const reported = await tx
    .select({ chargeId: chargeEvents.chargeId, data: chargeEvents.data })
    .from(chargeEvents)
    .where(
      and(
        inArray(
          chargeEvents.chargeId,
          uncovered.map((c) => c.id),
        ),
        eq(chargeEvents.type, 'charge.payment_reversed'),
      ),
    );
  const known = new Set(reported.map((row) => `${row.chargeId}:${String(row.data.txHash)}`));
  const flagged: ChargeRow[] = [];
  for (const charge of uncovered) {
    const rows = rowsOf.get(charge.id)!;
    const reversed = rows.filter((p) => p.status === 'dropped' && !p.isLate && !known.has(`${charge.id}:${p.txHash}`));
    if (!reversed.length) continue;
    const [row] = await tx.update(charges).set({ needsReviewSince: new Date() }).where(eq(charges.id, charge.id)).returning();
    flagged.push(row!);
    for (const payment of reversed) {
      log.error('a payment of a succeeded charge left the chain after it counted; review the charge', {
        chargeId: charge.id,
        chain: payment.chain,
        txHash: payment.txHash,
        amountBaseUnits: payment.amountBaseUnits.toString(),
      });
      const reversedPayment = {
        txHash: payment.txHash,
        amountBaseUnits: payment.amountBaseUnits.toString(),
        chain: payment.chain as ReversedPayment['chain'],
        blockNumber: payment.blockNumber.toString(),
      };
      await recordChargeEvents(tx, [
        {
          chargeId: charge.id,
          fromStatus: 'succeeded',
          toStatus: 'succeeded',
          actor: 'system:chain-watcher',
          type: 'charge.payment_reversed',
          data: reversedPayment,
        },
      ]);
      // One event per payment (emitChargeEvents takes one per charge): rare, so one statement each is fine.
      await emitChargeEvent(tx, { charge: row!, type: 'charge.payment_reversed', payments: rows, reversedPayment });
    }
  }
  return flagged;
}

/**
 * What the service itself started for each charge while it was payable, so it is not late when it lands
 * after expiresAt (expiry waits for it: lib/charges/payment-in-flight.ts): our balance payments and
 * swaps (every attempt's hash), on-ramp deliveries, and — while an order placed in time is still on its
 * way — whatever its provider delivers within the hold. Two queries for all the charges.
 */
async function paymentsStartedInTime(
  tx: DbOrTx,
  open: readonly ChargeRow[],
): Promise<Map<string, { hashes: Set<string>; fiatUntil?: Date }>> {
  const result = new Map<string, { hashes: Set<string>; fiatUntil?: Date }>();
  if (!open.length) return result;
  const ids = open.map((c) => c.id);
  const ours = await tx
    .select({ chargeId: outboundTransfers.chargeId, hash: outboundTransferAttempts.txHash })
    .from(outboundTransferAttempts)
    .innerJoin(outboundTransfers, eq(outboundTransfers.id, outboundTransferAttempts.transferId))
    .where(and(inArray(outboundTransfers.chargeId, ids), inArray(outboundTransfers.purpose, ['balance_payment', 'swap'])));
  const orders = await tx
    .select({
      chargeId: onrampOrders.chargeId,
      deliveryTxHash: onrampOrders.deliveryTxHash,
      status: onrampOrders.status,
      createdAt: onrampOrders.createdAt,
    })
    .from(onrampOrders)
    .where(inArray(onrampOrders.chargeId, ids));
  for (const charge of open) {
    const mine = orders.filter((o) => o.chargeId === charge.id);
    const hashes = new Set(
      [
        ...ours.filter((row) => row.chargeId === charge.id).map((row) => row.hash),
        ...mine.flatMap((o) => (o.deliveryTxHash ? [o.deliveryTxHash] : [])),
      ].map((h) => h.toLowerCase()),
    );
    const placedInTime = mine.some((o) => o.createdAt <= charge.expiresAt && (o.status === 'pending' || o.status === 'completed'));
    result.set(charge.id, { hashes, ...(placedInTime ? { fiatUntil: new Date(charge.expiresAt.getTime() + IN_FLIGHT_HOLD_MS) } : {}) });
  }
  return result;
}

/**
 * Marks payments late and reports each (`charge.late_payment`): recorded for refund, never counted. Also
 * the path of a late payment the slow pass over old deposit addresses finds (lib/ledger/audit-deposit-addresses.ts).
 */
export async function markLate(tx: DbOrTx, late: readonly { charge: ChargeRow; payment: PaymentRow }[]): Promise<void> {
  if (!late.length) return;
  await tx
    .update(payments)
    .set({ isLate: true })
    .where(
      inArray(
        payments.id,
        late.map(({ payment }) => payment.id),
      ),
    );
  await recordChargeEvents(
    tx,
    late.map(({ charge, payment }) => ({
      chargeId: charge.id,
      fromStatus: charge.status,
      toStatus: charge.status,
      actor: 'system:chain-watcher',
      type: 'charge.late_payment',
      data: {
        txHash: payment.txHash,
        amountBaseUnits: payment.amountBaseUnits.toString(),
        chain: payment.chain,
        ...(payment.blockTime ? { minedAt: payment.blockTime.toISOString() } : {}),
      },
    })),
  );
}

/** Processing charges whose time is up with less than the total confirmed (and nothing still confirming) fail. */
export async function failUnderpaidCharges(tx: DbOrTx, now = new Date()): Promise<number> {
  const due = await tx
    .select({ id: charges.id, total: charges.totalBaseUnits })
    .from(charges)
    .where(
      and(
        eq(charges.status, 'processing'),
        lte(charges.expiresAt, now),
        scannedPast('charges', charges.chain, charges.expiresAt, charges.id),
        // A payment the service started in time may still complete it (held at most IN_FLIGHT_HOLD_MS).
        or(lte(charges.expiresAt, new Date(now.getTime() - IN_FLIGHT_HOLD_MS)), not(paymentInFlightExists(charges.id, now))),
      ),
    )
    .for('update', { skipLocked: true });
  let failed = 0;
  for (const charge of due) {
    const rows = await tx
      .select()
      .from(payments)
      .where(and(eq(payments.chargeId, charge.id), ne(payments.status, 'dropped')));
    const funding = fundingOf(rows);
    if (funding.pendingCount > 0 || funding.confirmed >= charge.total) continue;
    await transitionCharge(tx, {
      chargeId: charge.id,
      to: 'failed',
      actor: 'system:expiry',
      data: {
        reason: 'underpaid',
        receivedBaseUnits: funding.confirmed.toString(),
        dueBaseUnits: (charge.total - funding.confirmed).toString(),
      },
    });
    failed++;
  }
  return failed;
}
