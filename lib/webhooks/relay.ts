/**
 * The outbox relay: turns committed webhook events into deliveries. In one transaction it locks a
 * batch of unrelayed events (FOR UPDATE SKIP LOCKED: several instances relay side by side, each event
 * is taken by one), inserts attempt 1 for every endpoint subscribed at the time of the event, enqueues
 * one pg-boss job per delivery in the same transaction, and stamps `relayed_at`. Either all of it
 * commits or none: an event is relayed exactly once.
 *
 * Who receives an event is decided by the endpoints as they are now (enabled, subscribed to the type,
 * same merchant and mode) and created no later than the event — the relay normally runs within a
 * second of the change, and an endpoint added after the event does not get it.
 */
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { isSubscribed } from './event-types';
import { enqueueDeliveries } from './jobs';

const RELAY_BATCH_SIZE = 200;

/**
 * Deliveries inserted without a job — the dashboard's resends and test events (resend-webhook-event.ts,
 * send-test-event.ts), written by web processes that may not run pg-boss (ADR 0007) — get their job
 * here: in one transaction each locked row (SKIP LOCKED) gets a job id and its job. Returns how many
 * (0 when none wait). `job_id IS NULL` on a pending row means exactly this: every other writer of
 * delivery rows enqueues in the transaction that inserts them. The open-delivery partial index covers
 * the scan; pending rows are few.
 */
export async function relayWaitingDeliveries({ limit = RELAY_BATCH_SIZE }: { limit?: number } = {}): Promise<number> {
  return getDb().transaction(async (tx) => {
    const waiting = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, 'pending'), isNull(webhookDeliveries.jobId)))
      .orderBy(asc(webhookDeliveries.scheduledAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    if (waiting.length === 0) return 0;
    const queued = await tx
      .update(webhookDeliveries)
      .set({ jobId: sql`gen_random_uuid()::text` })
      .where(
        inArray(
          webhookDeliveries.id,
          waiting.map((row) => row.id),
        ),
      )
      .returning();
    await enqueueDeliveries(tx, queued);
    return queued.length;
  });
}

/** Relays one batch; returns how many events it took (0 when the outbox is empty). */
export async function relayWebhookEvents({ limit = RELAY_BATCH_SIZE }: { limit?: number } = {}): Promise<number> {
  return getDb().transaction(async (tx) => {
    const events = await tx
      .select({
        id: webhookEvents.id,
        merchantId: webhookEvents.merchantId,
        mode: webhookEvents.mode,
        type: webhookEvents.type,
        createdAt: webhookEvents.createdAt,
      })
      .from(webhookEvents)
      .where(isNull(webhookEvents.relayedAt))
      .orderBy(asc(webhookEvents.createdAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    if (events.length === 0) return 0;

    const merchantIds = [...new Set(events.map((event) => event.merchantId))];
    const endpoints = await tx
      .select({
        id: webhookEndpoints.id,
        merchantId: webhookEndpoints.merchantId,
        mode: webhookEndpoints.mode,
        eventTypes: webhookEndpoints.eventTypes,
        createdAt: webhookEndpoints.createdAt,
      })
      .from(webhookEndpoints)
      .where(and(inArray(webhookEndpoints.merchantId, merchantIds), eq(webhookEndpoints.enabled, true)));

    const now = new Date();
    const deliveries = events.flatMap((event) =>
      endpoints
        .filter(
          (endpoint) =>
            endpoint.merchantId === event.merchantId &&
            endpoint.mode === event.mode &&
            endpoint.createdAt <= event.createdAt &&
            isSubscribed(endpoint.eventTypes, event.type),
        )
        .map((endpoint) => ({
          id: newId('webhookDelivery'),
          eventId: event.id,
          endpointId: endpoint.id,
          attempt: 1,
          status: 'pending' as const,
          scheduledAt: now,
          jobId: randomUUID(),
        })),
    );
    if (deliveries.length) {
      const inserted = await tx.insert(webhookDeliveries).values(deliveries).onConflictDoNothing().returning();
      await enqueueDeliveries(tx, inserted);
    }
    await tx
      .update(webhookEvents)
      .set({ relayedAt: now })
      .where(
        inArray(
          webhookEvents.id,
          events.map((event) => event.id),
        ),
      );
    return events.length;
  });
}
