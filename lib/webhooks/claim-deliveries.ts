/**
 * Claims delivery attempts before they are sent — a batch in one statement, whatever its size (the
 * worker claims what one pg-boss fetch returned). A row is claimed when it is `pending`, or `sending`
 * under a claim older than the lease (its worker is presumed dead): `→ sending`, `claimed_at` = ours,
 * in one guarded UPDATE, so of two jobs for the same attempt only one sends (attempt-delivery.ts).
 *
 * The same statement returns what sending needs: the endpoint and the event's payload as stored (the
 * exact JSON text written at emission, sent as the body as it is: no parse and re-serialise per
 * attempt). Raw SQL on the hot path: one claim per fetched batch, at hundreds a second (ADR 0018).
 */
import { sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '@/lib/db/schema';
import { webhookDeliveryMachine } from './state';

/** A claim older than this is taken over: well above the 10 s request budget plus recording. */
export const CLAIM_LEASE_MS = 60_000;

export interface ClaimedDelivery {
  delivery: Pick<WebhookDeliveryRow, 'id' | 'eventId' | 'endpointId' | 'chargeId' | 'eventSequence' | 'attempt'>;
  /** Our claim: the outcome is recorded only while the row still carries it. */
  claimedAt: Date;
  endpoint: Pick<
    WebhookEndpointRow,
    'id' | 'url' | 'mode' | 'enabled' | 'signingSecret' | 'previousSigningSecret' | 'previousSecretExpiresAt'
  >;
  /** The event as it is POSTed: its stored JSON text. */
  body: string;
}

export interface ClaimResult {
  claimed: ClaimedDelivery[];
  /** Held by a fresh claim of another worker: try again later. */
  busy: string[];
  /** Finished, replaced or gone: nothing to send. */
  skipped: string[];
}

type ClaimedRow = {
  id: string;
  event_id: string;
  endpoint_id: string;
  charge_id: string | null;
  event_sequence: number | null;
  attempt: number;
  url: string;
  mode: WebhookEndpointRow['mode'];
  enabled: boolean;
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_secret_expires_at: string | Date | null;
  body: string;
};

export async function claimDeliveries(deliveryIds: readonly string[], claimedAt: Date = new Date()): Promise<ClaimResult> {
  const ids = [...new Set(deliveryIds)];
  if (ids.length === 0) return { claimed: [], busy: [], skipped: [] };
  const db = getDb();
  // The join reads the endpoint and the event in the statement's snapshot: a row whose endpoint was
  // deleted meanwhile is gone with it (cascade), so it is neither claimed nor returned.
  const rows = await db.execute<ClaimedRow>(sql`
    with claimed as (
      update webhook_deliveries d set status = 'sending', claimed_at = ${claimedAt.toISOString()}::timestamptz
      where d.id = any(${sql.param(ids)}::text[])
        and d.status = any(${sql.param(webhookDeliveryMachine.leadingTo('sending'))}::webhook_delivery_status[])
        -- sending → sending only once the other worker's lease ran out
        and (d.status <> 'sending' or d.claimed_at < ${new Date(claimedAt.getTime() - CLAIM_LEASE_MS).toISOString()}::timestamptz)
      returning d.id, d.event_id, d.endpoint_id, d.charge_id, d.event_sequence, d.attempt
    )
    select c.id, c.event_id, c.endpoint_id, c.charge_id, c.event_sequence, c.attempt, e.url, e.mode, e.enabled,
      e.signing_secret, e.previous_signing_secret, e.previous_secret_expires_at, ev.payload::text as body
    from claimed c
    join webhook_endpoints e on e.id = c.endpoint_id
    join webhook_events ev on ev.id = c.event_id`);
  const claimed = rows.map((row): ClaimedDelivery => ({
    delivery: {
      id: row.id,
      eventId: row.event_id,
      endpointId: row.endpoint_id,
      chargeId: row.charge_id,
      eventSequence: row.event_sequence,
      attempt: row.attempt,
    },
    claimedAt,
    endpoint: {
      id: row.endpoint_id,
      url: row.url,
      mode: row.mode,
      enabled: row.enabled,
      signingSecret: row.signing_secret,
      previousSigningSecret: row.previous_signing_secret,
      previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at),
    },
    body: row.body,
  }));
  if (claimed.length === ids.length) return { claimed, busy: [], skipped: [] };

  const claimedIds = new Set(claimed.map((item) => item.delivery.id));
  const unclaimed = ids.filter((id) => !claimedIds.has(id));
  const sending = await db.execute<{ id: string }>(sql`
    select id from webhook_deliveries where id = any(${sql.param(unclaimed)}::text[]) and status = 'sending'`);
  const busy = sending.map((row) => row.id);
  const busyIds = new Set(busy);
  return { claimed, busy, skipped: unclaimed.filter((id) => !busyIds.has(id)) };
}
