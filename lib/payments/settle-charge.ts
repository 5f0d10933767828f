/**
 * Turns what arrived at a charge's deposit address into its status (spec: a payment succeeds or fails):
 *
 *  - first transfer seen (pending or confirmed) → `processing`;
 *  - confirmed total ≥ charge total → `succeeded`; any excess (overpaid, paid twice) is recorded for refund;
 *  - transfers into a charge that is already expired, canceled or failed are marked late and reported
 *    (an event), never lost and never counted;
 *  - still underpaid at expiry → `failed` (see failUnderpaidCharges).
 */
import { and, eq, inArray, lte, ne } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { charges, payments, type ChargeRow, type PaymentRow } from '@/lib/db/schema';
import { recordChargeEvent, transitionCharge } from '@/lib/charges/transition-charge';

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
    const newlyLate = rows.filter((p) => !p.isLate && p.status !== 'dropped');
    if (newlyLate.length) {
      await tx
        .update(payments)
        .set({ isLate: true })
        .where(
          inArray(
            payments.id,
            newlyLate.map((p) => p.id),
          ),
        );
      for (const payment of newlyLate) {
        await recordChargeEvent(tx, {
          chargeId,
          fromStatus: charge.status,
          toStatus: charge.status,
          actor: 'system:chain-watcher',
          type: 'charge.late_payment',
          data: { txHash: payment.txHash, amountBaseUnits: payment.amountBaseUnits.toString(), chain: payment.chain },
        });
      }
    }
    return charge;
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

/** Processing charges whose time is up with less than the total confirmed (and nothing still confirming) fail. */
export async function failUnderpaidCharges(tx: DbOrTx, now = new Date()): Promise<number> {
  const due = await tx
    .select({ id: charges.id, total: charges.totalBaseUnits })
    .from(charges)
    .where(and(eq(charges.status, 'processing'), lte(charges.expiresAt, now)))
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
