import { and, asc, eq, lte } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { charges } from '@/lib/db/schema';
import { scannedPast } from '@/lib/scanner/scanned-past';
import { transitionCharge } from './transition-charge';

/**
 * Expire pending charges whose expiresAt has passed. Runs in the background (lib/jobs) so expiry
 * happens even if nobody looks. Several processes may run it at once: SKIP LOCKED hands each row
 * to one of them. Returns how many charges it expired.
 *
 * A charge waits until its chain's watcher has scanned every block stamped up to expiresAt: a payment
 * mined in time but not yet seen (watcher lag, downtime) then moves it to processing instead.
 */
export async function expireDueCharges({ now = new Date(), batchSize = 200 } = {}): Promise<number> {
  return getDb().transaction(async (tx) => {
    const due = await tx
      .select({ id: charges.id })
      .from(charges)
      .where(and(eq(charges.status, 'pending'), lte(charges.expiresAt, now), scannedPast('charges', charges.chain, charges.expiresAt)))
      .orderBy(asc(charges.expiresAt))
      .limit(batchSize)
      .for('update', { skipLocked: true });
    for (const { id } of due) {
      await transitionCharge(tx, { chargeId: id, to: 'expired', actor: 'system:expiry' });
    }
    return due.length;
  });
}
