/**
 * Turns what arrived at a charge's deposit address into its status (spec: a payment succeeds or fails):
 *
 *  - first transfer seen (pending or confirmed) → `processing`;
 *  - confirmed total ≥ charge total → `succeeded`; any excess (overpaid, paid twice) is recorded for refund;
 *  - a transfer is late when its block was made after the charge's expiresAt — the block's time, not when
 *    the watcher saw it: one mined in time but seen after expiry (watcher lag, downtime) counts. Transfers
 *    into a charge already expired, canceled or failed are late too. Late transfers are marked and reported
 *    (an event), never lost and never counted;
 *  - still underpaid at expiry → `failed` (see failUnderpaidCharges).
 *
 * Expiry and failure wait until the chain's watcher has scanned every block up to expiresAt
 * (lib/scanner/scanned-past.ts), so a payment mined in time is always seen before the charge closes.
 */
import { and, eq, inArray, lte, ne } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { charges, payments, type ChargeRow, type PaymentRow } from '@/lib/db/schema';
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
    const minedLate = rows.filter((p) => !p.isLate && p.status !== 'dropped' && p.blockTime !== null && p.blockTime > charge.expiresAt);
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
    .where(and(eq(charges.status, 'processing'), lte(charges.expiresAt, now), scannedPast('charges', charges.chain, charges.expiresAt)))
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
