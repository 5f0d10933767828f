/**
 * listWebhookDeliveries — an endpoint's delivery log for the dashboard: one entry per attempt, newest
 * first, with the event's type and the request body that was sent. `eventId` narrows it to one
 * event's attempts.
 *
 * Order and pages: (delivery created_at, event created_at, delivery id), all descending. A relay batch
 * inserts its deliveries with one created_at, so the event's time puts charge.succeeded above
 * charge.created within it. Pages are cut after `before` (the previous page's last entry) by a row
 * comparison in SQL: created_at has microseconds, which a JS Date would round away.
 * Scoped like every endpoint verb: another merchant's or mode's endpoint is not found.
 */
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { webhookDeliveries, webhookEvents, type WebhookDeliveryStatus } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { getWebhookEndpoint, type WebhookOwner } from './get-webhook-endpoint';

const DELIVERY_LOG_PAGE_SIZE = 20;

export interface DeliveryLogEntry {
  id: string;
  eventId: string;
  eventType: string;
  attempt: number;
  status: WebhookDeliveryStatus;
  createdAt: Date;
  scheduledAt: Date;
  attemptedAt: Date | null;
  responseStatus: number | null;
  /** The start of the endpoint's answer (lib/webhooks/attempt-delivery.ts keeps 2 KiB). */
  responseBody: string | null;
  durationMs: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  nextAttemptAt: Date | null;
  /** The JSON body POSTed (the event, frozen when it happened). */
  requestBody: string;
}

export async function listWebhookDeliveries({
  owner,
  endpointId,
  eventId,
  before,
  limit = DELIVERY_LOG_PAGE_SIZE,
}: {
  owner: WebhookOwner;
  endpointId: string;
  eventId?: string;
  before?: string;
  limit?: number;
}): Promise<{ deliveries: DeliveryLogEntry[]; hasMore: boolean }> {
  const db = getDb();
  const endpoint = await getWebhookEndpoint({ owner, endpointId, db });
  const conditions: SQL[] = [eq(webhookDeliveries.endpointId, endpoint.id)];
  if (eventId) conditions.push(eq(webhookDeliveries.eventId, eventId));
  if (before) {
    const [cursor] = await db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, before), eq(webhookDeliveries.endpointId, endpoint.id)));
    if (!cursor) throw new AppError('invalid_request', `No delivery ${before} of this endpoint to page from.`, { param: 'before' });
    conditions.push(sql`(${webhookDeliveries.createdAt}, ${webhookEvents.createdAt}, ${webhookDeliveries.id}) < (
      select d.created_at, e.created_at, d.id from webhook_deliveries d join webhook_events e on e.id = d.event_id where d.id = ${cursor.id})`);
  }
  const rows = await db
    .select({ delivery: webhookDeliveries, eventType: webhookEvents.type, payload: webhookEvents.payload })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(and(...conditions))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookEvents.createdAt), desc(webhookDeliveries.id))
    .limit(limit + 1);
  const deliveries = rows.slice(0, limit).map(({ delivery, eventType, payload }) => ({
    id: delivery.id,
    eventId: delivery.eventId,
    eventType,
    attempt: delivery.attempt,
    status: delivery.status,
    createdAt: delivery.createdAt,
    scheduledAt: delivery.scheduledAt,
    attemptedAt: delivery.attemptedAt,
    responseStatus: delivery.responseStatus,
    responseBody: delivery.responseBody,
    durationMs: delivery.durationMs,
    errorCode: delivery.errorCode,
    errorMessage: delivery.errorMessage,
    nextAttemptAt: delivery.nextAttemptAt,
    requestBody: JSON.stringify(payload),
  }));
  return { deliveries, hasMore: rows.length > limit };
}
