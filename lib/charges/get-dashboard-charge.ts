/**
 * One charge for the dashboard's charge page: the charge, its timeline, the transfers seen, and the
 * webhook deliveries of its events. Another merchant's charge, or one of the other mode, is "not
 * found", exactly like the API (get-charge.ts): a member learns nothing about charges they cannot see.
 */
import { and, asc, eq, gte } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import {
  chargeEvents,
  charges,
  webhookDeliveries,
  webhookEndpoints,
  webhookEvents,
  type ChargeEventRow,
  type ChargeRow,
  type PaymentRow,
  type WebhookDeliveryStatus,
} from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { authorizeMember } from '@/lib/merchants/permissions';
import { listChargePayments } from './get-charge';
import type { DashboardMemberInput } from './list-dashboard-charges';
import { CHARGE_STATUSES, type ChargeStatus } from './state';

/** A webhook event of the charge and one attempt to deliver it (no attempt: nobody subscribed, or not relayed yet). */
interface ChargeWebhookDelivery {
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
  /** The relay has handled the event: with no attempt, no endpoint was subscribed. */
  isRelayed: boolean;
  attempt?: {
    id: string;
    endpointId: string;
    endpointUrl: string;
    attempt: number;
    status: WebhookDeliveryStatus;
    responseStatus: number | null;
    errorCode: string | null;
    /** When it was sent, or when it is due if not sent yet. */
    at: Date;
    nextAttemptAt: Date | null;
  };
}

export interface DashboardCharge {
  charge: ChargeRow;
  events: ChargeEventRow[];
  payments: PaymentRow[];
  deliveries: ChargeWebhookDelivery[];
}

/**
 * Webhook events are written by the application (its clock), the charge's created_at by PostgreSQL
 * (its clock): the lower bound keeps a margin for skew between the two. It only narrows the index
 * range scanned (webhook_events has no index on charge_id).
 */
const CLOCK_SKEW_MARGIN_MS = 60 * 60_000;

export async function getChargeForDashboard(input: DashboardMemberInput & { chargeId: string }): Promise<DashboardCharge> {
  const db = getDb();
  await authorizeMember(db, { userId: input.userId, merchantId: input.merchantId, permission: 'dashboard.view' });
  const [charge] = await db
    .select()
    .from(charges)
    .where(and(eq(charges.id, input.chargeId), eq(charges.merchantId, input.merchantId), eq(charges.mode, input.mode)));
  if (!charge) throw new AppError('not_found', `No ${input.mode} charge ${input.chargeId}.`, { param: 'chargeId' });
  const [events, payments, deliveries] = await Promise.all([
    db.select().from(chargeEvents).where(eq(chargeEvents.chargeId, charge.id)).orderBy(asc(chargeEvents.createdAt), asc(chargeEvents.id)),
    listChargePayments(db, charge.id),
    listChargeWebhookDeliveries(db, charge),
  ]);
  return { charge, events: inTimelineOrder(events), payments, deliveries };
}

/**
 * Events of one transaction share its timestamp (settlement moves a charge pending → processing →
 * succeeded in one), so ties are broken by the state machine's order, not by the random ids.
 */
function inTimelineOrder(events: ChargeEventRow[]): ChargeEventRow[] {
  const rank = (status: ChargeStatus | null) => (status === null ? -1 : CHARGE_STATUSES.indexOf(status));
  return [...events].sort(
    (a, b) =>
      a.createdAt.getTime() - b.createdAt.getTime() || rank(a.fromStatus) - rank(b.fromStatus) || rank(a.toStatus) - rank(b.toStatus),
  );
}

async function listChargeWebhookDeliveries(db: DbOrTx, charge: ChargeRow): Promise<ChargeWebhookDelivery[]> {
  const rows = await db
    .select({
      eventId: webhookEvents.id,
      eventType: webhookEvents.type,
      eventCreatedAt: webhookEvents.createdAt,
      relayedAt: webhookEvents.relayedAt,
      deliveryId: webhookDeliveries.id,
      endpointId: webhookDeliveries.endpointId,
      endpointUrl: webhookEndpoints.url,
      attempt: webhookDeliveries.attempt,
      status: webhookDeliveries.status,
      responseStatus: webhookDeliveries.responseStatus,
      errorCode: webhookDeliveries.errorCode,
      attemptedAt: webhookDeliveries.attemptedAt,
      scheduledAt: webhookDeliveries.scheduledAt,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
    })
    .from(webhookEvents)
    .leftJoin(webhookDeliveries, eq(webhookDeliveries.eventId, webhookEvents.id))
    .leftJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(
      and(
        eq(webhookEvents.merchantId, charge.merchantId),
        eq(webhookEvents.mode, charge.mode),
        eq(webhookEvents.chargeId, charge.id),
        gte(webhookEvents.createdAt, new Date(charge.createdAt.getTime() - CLOCK_SKEW_MARGIN_MS)),
      ),
    )
    .orderBy(asc(webhookEvents.createdAt), asc(webhookEvents.id), asc(webhookDeliveries.endpointId), asc(webhookDeliveries.attempt));
  return rows.map((row) => ({
    eventId: row.eventId,
    eventType: row.eventType,
    eventCreatedAt: row.eventCreatedAt,
    isRelayed: row.relayedAt !== null,
    ...(row.deliveryId && row.endpointId && row.attempt !== null && row.status && row.scheduledAt
      ? {
          attempt: {
            id: row.deliveryId,
            endpointId: row.endpointId,
            endpointUrl: row.endpointUrl ?? '',
            attempt: row.attempt,
            status: row.status,
            responseStatus: row.responseStatus,
            errorCode: row.errorCode,
            at: row.attemptedAt ?? row.scheduledAt,
            nextAttemptAt: row.nextAttemptAt,
          },
        }
      : {}),
  }));
}
