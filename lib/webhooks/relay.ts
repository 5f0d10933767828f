/**
 * The outbox relay: turns committed webhook events into deliveries. In one transaction it locks a
 * batch of unrelayed events (FOR UPDATE SKIP LOCKED: several instances relay side by side, each event
 * is taken by one), inserts attempt 1 for every endpoint subscribed at the time of the event, stamps
 * `relayed_at`, and enqueues the pg-boss jobs of the deliveries that may go now. Either all of it
 * commits or none: an event is relayed exactly once.
 *
 * A charge's deliveries are inserted `held` and released in sequence order (release-deliveries.ts),
 * under the chain locks of the batch's charges; events without a charge (none today but test events,
 * which skip the relay) go out at once.
 *
 * When: queue.ts runs the relay when PostgreSQL notifies `webhook_events` (a trigger on the outbox,
 * sent at the commit of each transaction that emitted an event other than `charge.created`) and every
 * second (which is when `charge.created` goes: drizzle/0047_relay_new_charges_on_poll.sql).
 *
 * Who receives an event is decided by the endpoints as they are now (enabled, subscribed to the type,
 * same merchant and mode) and created no later than the event — the relay normally runs within
 * milliseconds of the change, and an endpoint added after the event does not get it.
 */
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { crashPoint } from '@/lib/crash-points';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { isSubscribed } from './event-types';
import { enqueueDeliveries } from './enqueue-deliveries';
import { wakeDeliveryWorker } from './wake-delivery-worker';
import { lockChargeChains, releaseNextDeliveries } from './release-deliveries';
import { statusIs } from '@/lib/db/status-is';

/** Events (or waiting deliveries) one relay transaction takes; a full batch means more may wait. */
export const RELAY_BATCH_SIZE = 200;

/**
 * Deliveries inserted without a job — the dashboard's resends and test events (resend-webhook-event.ts,
 * send-test-event.ts), written by web processes that may not run pg-boss (ADR 0007) — get their job
 * here: in one transaction each locked row (SKIP LOCKED) gets a job id and its job. Returns how many
 * (0 when none wait). `job_id IS NULL` on a pending row means exactly this: every other writer of
 * delivery rows enqueues in the transaction that inserts them. The open-delivery partial index covers
 * the scan; pending rows are few.
 */
export async function relayWaitingDeliveries({ limit = RELAY_BATCH_SIZE }: { limit?: number } = {}): Promise<number> {
  const queued = await getDb().transaction(async (tx) => {
    const waiting = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(statusIs(webhookDeliveries.status, 'pending'), isNull(webhookDeliveries.jobId)))
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
  if (queued > 0) wakeDeliveryWorker();
  return queued;
}

interface FirstAttempt {
  id: string;
  eventId: string;
  endpointId: string;
  chargeId: string | null;
  eventSequence: number | null;
  status: 'held' | 'pending';
  jobId: string | null;
}

/**
 * Inserts a batch's first attempts from one JSON parameter (as record-outcomes.ts updates): a batch is
 * up to 200 events × their endpoints, and a multi-row VALUES of that size cost the worker more CPU to
 * build and send than the rest of relaying (bench:webhooks profile). Returns the rows inserted (an
 * attempt already there is skipped).
 */
async function insertFirstAttempts(
  tx: DbOrTx,
  rows: readonly FirstAttempt[],
  scheduledAt: Date,
): Promise<{ id: string; endpointId: string; status: string; jobId: string | null }[]> {
  const inserted = await tx.execute<{ id: string; endpoint_id: string; status: string; job_id: string | null }>(sql`
    insert into webhook_deliveries (id, event_id, endpoint_id, charge_id, event_sequence, attempt, status, scheduled_at, job_id)
    select v.id, v."eventId", v."endpointId", v."chargeId", v."eventSequence", 1, v.status::webhook_delivery_status,
      ${scheduledAt.toISOString()}::timestamptz, v."jobId"
    from json_to_recordset(${JSON.stringify(rows)}::json) as v(
      id text, "eventId" text, "endpointId" text, "chargeId" text, "eventSequence" integer, status text, "jobId" text)
    on conflict do nothing
    returning id, endpoint_id, status, job_id`);
  return inserted.map((row) => ({ id: row.id, endpointId: row.endpoint_id, status: row.status, jobId: row.job_id }));
}

/** Relays one batch; returns how many events it took (0 when the outbox is empty). */
export async function relayWebhookEvents({ limit = RELAY_BATCH_SIZE }: { limit?: number } = {}): Promise<number> {
  const relayed = await getDb().transaction(async (tx) => {
    const events = await tx
      .select({
        id: webhookEvents.id,
        merchantId: webhookEvents.merchantId,
        mode: webhookEvents.mode,
        type: webhookEvents.type,
        chargeId: webhookEvents.chargeId,
        sequence: webhookEvents.sequence,
        createdAt: webhookEvents.createdAt,
      })
      .from(webhookEvents)
      .where(isNull(webhookEvents.relayedAt))
      .orderBy(asc(webhookEvents.createdAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    if (events.length === 0) return 0;
    const chargeIds = events.flatMap((event) => (event.chargeId ? [event.chargeId] : []));
    await lockChargeChains(tx, chargeIds);

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
        .map((endpoint): FirstAttempt => ({
          id: newId('webhookDelivery'),
          eventId: event.id,
          endpointId: endpoint.id,
          chargeId: event.chargeId,
          eventSequence: event.sequence,
          // A charge's delivery waits for its turn (released below); anything else goes at once.
          status: event.chargeId ? 'held' : 'pending',
          jobId: event.chargeId ? null : randomUUID(),
        })),
    );
    if (deliveries.length) {
      const inserted = await insertFirstAttempts(tx, deliveries, now);
      await enqueueDeliveries(
        tx,
        inserted.filter((delivery) => delivery.status === 'pending'),
      );
    }
    await tx.execute(sql`
      update webhook_events set relayed_at = ${now.toISOString()}::timestamptz
      where id = any(${sql.param(events.map((event) => event.id))}::text[])`);
    // After the stamp: an event of this batch no longer counts as an earlier one still in the outbox.
    await releaseNextDeliveries(tx, chargeIds);
    crashPoint('webhook.relaying');
    return events.length;
  });
  if (relayed > 0) wakeDeliveryWorker();
  return relayed;
}
