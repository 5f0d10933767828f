/**
 * resendWebhookEvent — the delivery log's "Resend": one more attempt of an event to an endpoint, now,
 * as a new delivery row (attempt = the last one + 1) that goes through the queue like any attempt.
 *
 *  - Only events this endpoint was already sent (they have a delivery row here): that also keeps the
 *    merchant and mode scoping of the endpoint.
 *  - One open attempt per event and endpoint: a retry still waiting for its time is canceled
 *    (`replaced_by_resend`) and the resend takes its place; while an attempt is being sent, resending
 *    is refused (its outcome is about to be logged).
 *  - If the resend fails, the retry schedule continues from its attempt number; past the last one of
 *    the schedule (MAX_DELIVERY_ATTEMPTS) no retry follows.
 *  - An event still waiting for an earlier event of its charge (held, release-deliveries.ts) cannot be
 *    resent: it goes out in its turn. A resend belongs to its charge's chain like any attempt: the
 *    charge's later events wait for it (it replaces the attempt they were waiting for).
 *  - The row has no job yet: the relay gives it one (relayWaitingDeliveries, ADR 0007), woken at commit
 *    by the same notification as for new events.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { webhookDeliveries, type WebhookDeliveryRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { announceWaitingDelivery } from './announce-waiting-delivery';
import { getWebhookEndpoint, type WebhookOwner } from './get-webhook-endpoint';
import { webhookDeliveryMachine } from './state';

export async function resendWebhookEvent({
  owner,
  endpointId,
  eventId,
  db = getDb(),
  now = new Date(),
}: {
  owner: WebhookOwner;
  endpointId: string;
  eventId: string;
  /** The caller's transaction, if any (a savepoint is used inside it). */
  db?: DbOrTx;
  now?: Date;
}): Promise<WebhookDeliveryRow> {
  return db.transaction(async (tx) => {
    // The endpoint's row lock serialises resends to it.
    const endpoint = await getWebhookEndpoint({ owner, endpointId, db: tx, forUpdate: true });
    if (!endpoint.enabled)
      throw new AppError('invalid_request', 'This endpoint is disabled: enable it to resend events to it.', { param: 'endpointId' });
    const ofEvent = and(eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.endpointId, endpoint.id));
    // Lock the event's attempts (waits for a worker recording an outcome), then read them afresh: a
    // retry that worker inserted is visible only to a statement started after its commit.
    await tx.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(ofEvent).for('update');
    const attempts = await tx.select().from(webhookDeliveries).where(ofEvent);
    if (attempts.length === 0) throw new AppError('not_found', `Event ${eventId} was never sent to this endpoint.`, { param: 'eventId' });
    if (attempts.some((attempt) => attempt.status === 'held')) {
      throw new AppError(
        'invalid_request',
        'This event waits for an earlier event of its charge to be delivered to this endpoint; it is sent in its turn.',
        { param: 'eventId' },
      );
    }
    if (attempts.some((attempt) => attempt.status === 'sending')) {
      throw new AppError(
        'invalid_request',
        'This event is being sent to the endpoint right now; resend it once that attempt shows in the log.',
        { param: 'eventId' },
      );
    }
    const waiting = attempts.filter((attempt) => attempt.status === 'pending').map((attempt) => attempt.id);
    if (waiting.length) {
      // Their jobs, when they run, find the row no longer pending and send nothing.
      await tx
        .update(webhookDeliveries)
        .set({ status: 'canceled', errorCode: 'replaced_by_resend', errorMessage: 'Replaced by a resend from the dashboard.' })
        .where(
          and(
            inArray(webhookDeliveries.id, waiting),
            inArray(webhookDeliveries.status, webhookDeliveryMachine.from(['pending'], 'canceled')),
          ),
        );
      // Only pending: a delivery claimed meanwhile (sending) is left to finish
    }
    const [delivery] = await tx
      .insert(webhookDeliveries)
      .values({
        id: newId('webhookDelivery'),
        eventId,
        endpointId: endpoint.id,
        chargeId: attempts[0]!.chargeId,
        eventSequence: attempts[0]!.eventSequence,
        attempt: Math.max(...attempts.map((attempt) => attempt.attempt)) + 1,
        status: 'pending',
        scheduledAt: now,
        jobId: null,
      })
      .returning();
    await announceWaitingDelivery(tx);
    return delivery!;
  });
}
