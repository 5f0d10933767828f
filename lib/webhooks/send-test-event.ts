/**
 * sendTestWebhookEvent — the dashboard's "Send test event": a `webhook.test` event for one endpoint,
 * delivered like any other (a delivery row, a pg-boss job, the same signing, SSRF guard, retries and
 * delivery log), so it shows the merchant exactly what their receiver will see.
 *
 * It bypasses the outbox relay, which fans an event out to every subscribed endpoint: the event row is
 * written already relayed, next to attempt 1 for this endpoint only. That row has no job yet; the relay
 * gives it one within a second (relayWaitingDeliveries, ADR 0007), so a web process without pg-boss
 * can send it.
 */
import { getDb, type DbOrTx } from '@/lib/db/client';
import { webhookDeliveries, webhookEvents, type WebhookDeliveryRow, type WebhookEventRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { announceWaitingDelivery } from './announce-waiting-delivery';
import { TEST_EVENT_TYPE } from './event-types';
import { getWebhookEndpoint, type WebhookOwner } from './get-webhook-endpoint';

export async function sendTestWebhookEvent({
  owner,
  endpointId,
  db = getDb(),
  now = new Date(),
}: {
  owner: WebhookOwner;
  endpointId: string;
  /** The caller's transaction, if any (a savepoint is used inside it). */
  db?: DbOrTx;
  now?: Date;
}): Promise<{ event: WebhookEventRow; delivery: WebhookDeliveryRow }> {
  return db.transaction(async (tx) => {
    const endpoint = await getWebhookEndpoint({ owner, endpointId, db: tx });
    if (!endpoint.enabled)
      throw new AppError('invalid_request', 'This endpoint is disabled: enable it to send it a test event.', { param: 'endpointId' });
    const id = newId('webhookEvent');
    const payload = {
      id,
      object: 'event',
      type: TEST_EVENT_TYPE,
      mode: owner.mode,
      createdAt: now.toISOString(),
      data: {
        endpoint: { id: endpoint.id, url: endpoint.url },
        message: 'A test event sent from the Chargeport dashboard. Answer 2xx to acknowledge it.',
      },
    };
    const [event] = await tx
      .insert(webhookEvents)
      .values({
        id,
        merchantId: owner.merchantId,
        mode: owner.mode,
        type: TEST_EVENT_TYPE,
        chargeId: null,
        payload,
        relayedAt: now,
        createdAt: now,
      })
      .returning();
    const [delivery] = await tx
      .insert(webhookDeliveries)
      .values({
        id: newId('webhookDelivery'),
        eventId: id,
        endpointId: endpoint.id,
        attempt: 1,
        status: 'pending',
        scheduledAt: now,
        jobId: null,
      })
      .returning();
    await announceWaitingDelivery(tx);
    return { event: event!, delivery: delivery! };
  });
}
