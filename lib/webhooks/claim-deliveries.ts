/**
 * Claims delivery attempts before they are sent — a batch in two statements, whatever its size (the
 * worker claims what one pg-boss fetch returned). A row is claimed when it is `pending`, or `sending`
 * under a claim older than the lease (its worker is presumed dead): `→ sending`, `claimed_at` = ours,
 * in one guarded UPDATE, so of two jobs for the same attempt only one sends (attempt-delivery.ts).
 */
import { and, eq, inArray, lt, ne, or } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { webhookDeliveries, webhookEndpoints, webhookEvents, type WebhookDeliveryRow, type WebhookEndpointRow } from '@/lib/db/schema';
import { deliveryStatusesLeadingTo } from './state';

/** A claim older than this is taken over: well above the 10 s request budget plus recording. */
export const CLAIM_LEASE_MS = 60_000;

export interface ClaimedDelivery {
  delivery: WebhookDeliveryRow;
  /** Our claim: the outcome is recorded only while the row still carries it. */
  claimedAt: Date;
  endpoint: WebhookEndpointRow;
  /** The event as it is POSTed. */
  payload: Record<string, unknown>;
}

export interface ClaimResult {
  claimed: ClaimedDelivery[];
  /** Held by a fresh claim of another worker: try again later. */
  busy: string[];
  /** Finished, replaced or gone: nothing to send. */
  skipped: string[];
}

export async function claimDeliveries(deliveryIds: readonly string[], claimedAt: Date = new Date()): Promise<ClaimResult> {
  const ids = [...new Set(deliveryIds)];
  if (ids.length === 0) return { claimed: [], busy: [], skipped: [] };
  const db = getDb();
  const rows = await db
    .update(webhookDeliveries)
    .set({ status: 'sending', claimedAt })
    .where(
      and(
        inArray(webhookDeliveries.id, ids),
        inArray(webhookDeliveries.status, deliveryStatusesLeadingTo('sending')),
        // sending → sending only once the other worker's lease ran out
        or(ne(webhookDeliveries.status, 'sending'), lt(webhookDeliveries.claimedAt, new Date(claimedAt.getTime() - CLAIM_LEASE_MS))),
      ),
    )
    .returning();
  const claimedIds = new Set(rows.map((row) => row.id));
  const unclaimed = ids.filter((id) => !claimedIds.has(id));
  const busy: string[] = [];
  if (unclaimed.length) {
    const states = await db
      .select({ id: webhookDeliveries.id, status: webhookDeliveries.status })
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.id, unclaimed));
    for (const state of states) if (state.status === 'sending') busy.push(state.id);
  }
  const skipped = unclaimed.filter((id) => !busy.includes(id));
  if (rows.length === 0) return { claimed: [], busy, skipped };

  const targets = await db
    .select({ deliveryId: webhookDeliveries.id, endpoint: webhookEndpoints, payload: webhookEvents.payload })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(inArray(webhookDeliveries.id, [...claimedIds]));
  const byId = new Map(targets.map((target) => [target.deliveryId, target]));
  const claimed: ClaimedDelivery[] = [];
  for (const delivery of rows) {
    const target = byId.get(delivery.id);
    // Deleted with its endpoint between the two statements: nothing left to record either.
    if (!target) skipped.push(delivery.id);
    else claimed.push({ delivery, claimedAt, endpoint: target.endpoint, payload: target.payload });
  }
  return { claimed, busy, skipped };
}
