import { and, asc, lte, not, or } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { charges } from '@/lib/db/schema';
import { log } from '@/lib/log';
import { scannedPast } from '@/lib/scanner/scanned-past';
import { IN_FLIGHT_HOLD_MS, findPaymentsInFlight, paymentInFlightExists } from './payment-in-flight';
import { transitionCharge } from './transition-charge';
import { statusIs } from '@/lib/db/status-is';

/**
 * Expire pending charges whose expiresAt has passed. Runs in the background (lib/jobs) so expiry
 * happens even if nobody looks. Several processes may run it at once: SKIP LOCKED hands each row
 * to one of them. Returns how many charges it expired.
 *
 * A charge waits until its chain's watcher has scanned every block stamped up to expiresAt: a payment
 * mined in time but not yet seen (watcher lag, downtime) then moves it to processing instead.
 *
 * A charge with a payment in flight (payment-in-flight.ts: a balance payment, swap or fiat order the
 * service has started) is not expired yet: once that payment lands the watcher settles the charge, and
 * if it fails the charge expires on the next pass. The hold ends IN_FLIGHT_HOLD_MS after expiresAt
 * whatever happens (logged), so a stuck payment cannot keep a charge open for ever.
 */
export async function expireDueCharges({ now = new Date(), batchSize = 200 } = {}): Promise<number> {
  const holdEnded = new Date(now.getTime() - IN_FLIGHT_HOLD_MS);
  return getDb().transaction(async (tx) => {
    // Held charges are left out here so they never fill the batch ahead of charges that can expire.
    const due = await tx
      .select({ id: charges.id, expiresAt: charges.expiresAt })
      .from(charges)
      .where(
        and(
          statusIs(charges.status, 'pending'),
          lte(charges.expiresAt, now),
          scannedPast('charges', charges.chain, charges.expiresAt, charges.id),
          or(lte(charges.expiresAt, holdEnded), not(paymentInFlightExists(charges.id, now))),
        ),
      )
      .orderBy(asc(charges.expiresAt))
      .limit(batchSize)
      .for('update', { skipLocked: true });
    let expired = 0;
    for (const { id, expiresAt } of due) {
      // Read again now that the row is locked: a method that committed just before the lock is seen here.
      const inFlight = await findPaymentsInFlight(tx, id, now);
      if (inFlight.length && expiresAt > holdEnded) continue;
      if (inFlight.length) {
        log.warn('charge expired with a payment still in flight after the hold; a late arrival is recorded as a late payment', {
          chargeId: id,
          inFlight: inFlight.map((payment) => ({ method: payment.method, id: payment.id, status: payment.status })),
        });
      }
      await transitionCharge(tx, {
        chargeId: id,
        to: 'expired',
        actor: 'system:expiry',
        ...(inFlight.length ? { data: { paymentsInFlight: inFlight.map((payment) => payment.id) } } : {}),
      });
      expired++;
    }
    return expired;
  });
}
