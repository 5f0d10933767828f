/**
 * Claim links nobody claimed within REFUND_CLAIM_TTL_DAYS expire (the scheduler's `expire-refund-claims`):
 * claim status awaiting_claim → expired under the charge's row lock and then the refund's, the order every
 * refund verb takes (the other order deadlocked against a claim, found by the fault suite), both SKIP
 * LOCKED: a claim being recorded right now wins and the next run looks again; `refund.expired` is in the
 * same transaction. The amount stops being reserved: it is refundable again (charge-funds.ts).
 */
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { charges, refunds } from '@/lib/db/schema';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { emitRefundEvent } from './emit-refund-event';
import { refundClaimMachine } from './state';

export async function expireRefundClaims(now = new Date(), limit = 100): Promise<number> {
  const due = await getDb()
    .select({ id: refunds.id, chargeId: refunds.chargeId })
    .from(refunds)
    .where(and(eq(refunds.claimStatus, 'awaiting_claim'), lte(refunds.claimExpiresAt, now)))
    .orderBy(asc(refunds.claimExpiresAt))
    .limit(limit);
  let expired = 0;
  for (const { id, chargeId } of due) {
    const done = await getDb().transaction(async (tx) => {
      const [charge] = await tx
        .select({ status: charges.status })
        .from(charges)
        .where(eq(charges.id, chargeId))
        .for('update', { skipLocked: true });
      if (!charge) return false;
      const [row] = await tx
        .select()
        .from(refunds)
        .where(
          and(eq(refunds.id, id), inArray(refunds.claimStatus, refundClaimMachine.leadingTo('expired')), lte(refunds.claimExpiresAt, now)),
        )
        .for('update', { skipLocked: true });
      if (!row) return false;
      await tx.update(refunds).set({ claimStatus: 'expired' }).where(eq(refunds.id, row.id));
      await recordChargeEvent(tx, {
        chargeId: row.chargeId,
        fromStatus: charge.status,
        toStatus: charge.status,
        actor: 'system:refund-claims',
        type: 'charge.refund_expired',
        data: { refundId: row.id, amountBaseUnits: row.amountBaseUnits.toString() },
      });
      await emitRefundEvent(tx, { refundId: row.id, type: 'refund.expired' });
      return true;
    });
    if (done) expired++;
  }
  return expired;
}
