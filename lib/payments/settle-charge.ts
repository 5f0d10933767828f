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
import { and, eq, inArray, lte, ne, not, or } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import {
  charges,
  onrampOrders,
  outboundTransferAttempts,
  outboundTransfers,
  payments,
  type ChargeRow,
  type PaymentRow,
} from '@/lib/db/schema';
import { IN_FLIGHT_HOLD_MS, paymentInFlightExists } from '@/lib/charges/payment-in-flight';
import { recordChargeEvent, transitionCharge } from '@/lib/charges/transition-charge';
import { scannedPast } from '@/lib/scanner/scanned-past';

export interface ChargeFunding {
  seen: bigint;
  confirmed: bigint;
  pendingCount: number;
}

export function fundingOf(rows: readonly PaymentRow[]): ChargeFunding {
  const live = rows.filter((p) => p.status !== 'dropped' && !p.isLate);
  return {
    seen: live.reduce((sum, p) => sum + p.amountBaseUnits, 0n),
    confirmed: live.filter((p) => p.status === 'confirmed').reduce((sum, p) => sum + p.amountBaseUnits, 0n),
    pendingCount: live.filter((p) => p.status === 'pending').length,
  };
}

/** `tx` must be a transaction (row locks). */
export async function settleCharge(tx: DbOrTx, chargeId: string): Promise<ChargeRow> {
  const [charge] = await tx.select().from(charges).where(eq(charges.id, chargeId)).for('update');
  if (!charge) throw new Error(`charge ${chargeId} does not exist`);
  const rows = await tx.select().from(payments).where(eq(payments.chargeId, chargeId));

  if (charge.status === 'expired' || charge.status === 'canceled' || charge.status === 'failed') {
    await markLate(
      tx,
      charge,
      rows.filter((p) => !p.isLate && p.status !== 'dropped'),
    );
    return charge;
  }
  if (charge.status === 'pending' || charge.status === 'processing') {
    const started = await paymentsStartedInTime(tx, charge);
    const minedLate = rows.filter(
      (p) =>
        !p.isLate &&
        p.status !== 'dropped' &&
        p.blockTime !== null &&
        p.blockTime > charge.expiresAt &&
        !started.hashes.has(p.txHash.toLowerCase()) &&
        !(started.fiatUntil && p.blockTime <= started.fiatUntil),
    );
    await markLate(tx, charge, minedLate);
    for (const payment of minedLate) payment.isLate = true;
  }

  const funding = fundingOf(rows);
  let current = charge;
  if (current.status === 'pending' && funding.seen > 0n) {
    current = await transitionCharge(tx, {
      chargeId,
      to: 'processing',
      actor: 'system:chain-watcher',
      data: { txHashes: rows.map((p) => p.txHash), seenBaseUnits: funding.seen.toString() },
    });
  }
  if (current.status === 'processing' && funding.confirmed >= current.totalBaseUnits) {
    current = await transitionCharge(tx, {
      chargeId,
      to: 'succeeded',
      actor: 'system:chain-watcher',
      data: {
        txHashes: rows.filter((p) => p.status === 'confirmed').map((p) => p.txHash),
        receivedBaseUnits: funding.confirmed.toString(),
        excessBaseUnits: (funding.confirmed - current.totalBaseUnits).toString(),
      },
    });
  } else if (current.status === 'succeeded') {
    const excess = funding.confirmed - current.totalBaseUnits;
    const known = rows.filter((p) => p.status === 'confirmed');
    if (excess > 0n && known.length > 1) {
      // Paid twice (or topped up after success): the excess is recorded for refund.
      await recordChargeEvent(tx, {
        chargeId,
        fromStatus: 'succeeded',
        toStatus: 'succeeded',
        actor: 'system:chain-watcher',
        type: 'charge.overpaid',
        data: { excessBaseUnits: excess.toString(), txHashes: known.map((p) => p.txHash) },
      });
    }
  }
  return current;
}

/**
 * What the service itself started for the charge while it was payable, so it is not late when it lands
 * after expiresAt (expiry waits for it: lib/charges/payment-in-flight.ts): our balance payments and
 * swaps (every attempt's hash), on-ramp deliveries, and — while an order placed in time is still on its
 * way — whatever its provider delivers within the hold.
 */
async function paymentsStartedInTime(tx: DbOrTx, charge: ChargeRow): Promise<{ hashes: Set<string>; fiatUntil?: Date }> {
  const ours = await tx
    .select({ hash: outboundTransferAttempts.txHash })
    .from(outboundTransferAttempts)
    .innerJoin(outboundTransfers, eq(outboundTransfers.id, outboundTransferAttempts.transferId))
    .where(and(eq(outboundTransfers.chargeId, charge.id), inArray(outboundTransfers.purpose, ['balance_payment', 'swap'])));
  const orders = await tx
    .select({ deliveryTxHash: onrampOrders.deliveryTxHash, status: onrampOrders.status, createdAt: onrampOrders.createdAt })
    .from(onrampOrders)
    .where(eq(onrampOrders.chargeId, charge.id));
  const hashes = new Set(
    [...ours.map((row) => row.hash), ...orders.flatMap((o) => (o.deliveryTxHash ? [o.deliveryTxHash] : []))].map((h) => h.toLowerCase()),
  );
  const placedInTime = orders.some((o) => o.createdAt <= charge.expiresAt && (o.status === 'pending' || o.status === 'completed'));
  return { hashes, ...(placedInTime ? { fiatUntil: new Date(charge.expiresAt.getTime() + IN_FLIGHT_HOLD_MS) } : {}) };
}

/** Marks payments late and reports each (`charge.late_payment`): recorded for refund, never counted. */
async function markLate(tx: DbOrTx, charge: ChargeRow, late: readonly PaymentRow[]): Promise<void> {
  if (!late.length) return;
  await tx
    .update(payments)
    .set({ isLate: true })
    .where(
      inArray(
        payments.id,
        late.map((p) => p.id),
      ),
    );
  for (const payment of late) {
    await recordChargeEvent(tx, {
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
    });
  }
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
        scannedPast('charges', charges.chain, charges.expiresAt),
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
