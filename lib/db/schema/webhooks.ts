/**
 * Webhooks: where a merchant wants events (endpoints), what happened (events, one per charge state
 * change, frozen at the time of the change) and every attempt to tell them (deliveries).
 *
 * Flow (lib/webhooks/): the state-change transaction inserts a `webhook_events` row — the outbox. A
 * relay moves unrelayed events into pg-boss: in one transaction it inserts attempt 1 of a delivery per
 * subscribed endpoint, enqueues one job per delivery and stamps `relayed_at`. A worker claims the
 * delivery row, POSTs, records the outcome and, on failure, inserts and enqueues the next attempt.
 * The retry state lives here; pg-boss only says when to look at a row.
 */
import { sql } from 'drizzle-orm';
import { boolean, index, integer, json, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_ENDPOINT_STATUSES,
  type WebhookDeliveryStatus,
  type WebhookEndpointStatus,
} from '@/lib/webhooks/state';
import { apiKeyMode } from './api-keys';
import { charges } from './charges';
import { timestamps } from './columns';
import { merchants } from './merchants';

/**
 * active: delivering. failing: an event used up every retry (the merchant was e-mailed); still
 * delivering, back to active on the next success. disabled: the endpoint answered 410 Gone, so
 * Chargeport stopped (enabled = false) until the merchant enables it again.
 */
export type { WebhookEndpointStatus };
export const webhookEndpointStatus = pgEnum('webhook_endpoint_status', WEBHOOK_ENDPOINT_STATUSES);

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    /** A test endpoint gets test-mode events only, a live endpoint live ones (the key's mode at creation). */
    mode: apiKeyMode('mode').notNull(),
    url: text('url').notNull(),
    description: text('description'),
    /** Public event types (lib/webhooks/event-types.ts), or ['*'] for every type, including future ones. */
    eventTypes: text('event_types').array().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    status: webhookEndpointStatus('status').notNull().default('active'),
    failingSince: timestamp('failing_since', { withTimezone: true, mode: 'date' }),
    disabledReason: text('disabled_reason'),
    /**
     * The signing secret (`whsec_…`), sealed with AES-256-GCM under WALLET_MASTER_KEY as
     * "<masterKeyId>:<base64(iv ‖ ciphertext ‖ tag)>", bound to the endpoint id (lib/webhooks/secrets.ts).
     * Sealed, not hashed: the dashboard must be able to reveal it.
     */
    signingSecret: text('signing_secret').notNull(),
    /** The secret before the last rotation, still signing until `previousSecretExpiresAt` (same format). */
    previousSigningSecret: text('previous_signing_secret'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  // The relay looks up a merchant's enabled endpoints per mode; the API lists them.
  (table) => [index('webhook_endpoints_merchant_mode_idx').on(table.merchantId, table.mode, table.createdAt)],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    mode: apiKeyMode('mode').notNull(),
    /** Public type: charge.created, charge.succeeded, payment.failed, … */
    type: text('type').notNull(),
    chargeId: text('charge_id').references(() => charges.id),
    /**
     * The event's place among its charge's events: 1 for charge.created, +1 for each later event of the
     * charge (refunds and payment.failed included), in commit order (webhook_event_sequences). Also in the
     * payload (`sequence`). Null for events without a charge (webhook.test).
     */
    sequence: integer('sequence'),
    /**
     * The exact event object sent to endpoints and returned by GET /api/events, built in the
     * state-change transaction. `json`, not `jsonb`: keeps the key order a reader expects.
     */
    payload: json('payload').$type<Record<string, unknown>>().notNull(),
    /** Set when the relay has created this event's deliveries; null = still in the outbox. */
    relayedAt: timestamp('relayed_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    // GET /api/events: a merchant's events of one mode, newest first, paged by (created_at, id).
    index('webhook_events_merchant_mode_created_idx').on(table.merchantId, table.mode, table.createdAt.desc(), table.id.desc()),
    // The dashboard's charge page: the events (and so the deliveries) of one charge; the relay's
    // "is an earlier event of this charge still unrelayed" and the next sequence number of a charge.
    index('webhook_events_charge_sequence_idx').on(table.chargeId, table.sequence),
    // The relay polls only the outbox, which is empty almost all the time.
    index('webhook_events_unrelayed_idx')
      .on(table.createdAt)
      .where(sql`${table.relayedAt} is null`),
  ],
);

export type WebhookEventRow = typeof webhookEvents.$inferSelect;

/**
 * The last sequence number given to an event of each charge (lib/webhooks/next-event-sequence.ts). Its row is the
 * lock that orders a charge's events: an emitter increments it in its transaction, so a second one
 * waits for the first to commit and gets the next number.
 */
export const webhookEventSequences = pgTable('webhook_event_sequences', {
  chargeId: text('charge_id')
    .primaryKey()
    .references(() => charges.id),
  lastSequence: integer('last_sequence').notNull(),
});

/**
 * held: waits for an earlier event of the same charge to this endpoint (delivered or out of retries,
 * lib/webhooks/release-deliveries.ts); no job yet. pending: scheduled (a pg-boss job will run it at `scheduledAt`). sending: claimed by a worker
 * (`claimedAt`), the request may be in flight. succeeded / failed: the outcome of this attempt.
 * canceled: not sent, the endpoint was disabled meanwhile.
 */
export { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryStatus };
export const webhookDeliveryStatus = pgEnum('webhook_delivery_status', WEBHOOK_DELIVERY_STATUSES);

/** One row per attempt to deliver one event to one endpoint. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => webhookEvents.id),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /**
     * The event's charge and sequence, copied from the event: a charge's deliveries to one endpoint form
     * a chain released in sequence order (null: an event without a charge, never held).
     */
    chargeId: text('charge_id'),
    eventSequence: integer('event_sequence'),
    /** 1 … MAX_DELIVERY_ATTEMPTS (lib/webhooks/next-attempt-delay.ts). */
    attempt: integer('attempt').notNull(),
    status: webhookDeliveryStatus('status').notNull().default('pending'),
    /** When this attempt is due (the pg-boss job's startAfter). */
    scheduledAt: timestamp('scheduled_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** The pg-boss job that runs this attempt (the latest one, if it had to be re-enqueued). */
    jobId: text('job_id'),
    /** When a worker claimed it; a claim older than the lease may be taken over (the worker died). */
    claimedAt: timestamp('claimed_at', { withTimezone: true, mode: 'date' }),
    attemptedAt: timestamp('attempted_at', { withTimezone: true, mode: 'date' }),
    responseStatus: integer('response_status'),
    /** The start of the answer (a few KiB at most), for the delivery log. */
    responseBody: text('response_body'),
    durationMs: integer('duration_ms'),
    /** Why it failed: http_error, timeout, network_error, dns_error, refused_address, … (deliver-webhook-request.ts). */
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    /** On a failed attempt: when the next one is due; null when none follows. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    // An attempt exists once: a relay or a retry that runs twice cannot create a second one.
    uniqueIndex('webhook_deliveries_attempt_idx').on(table.eventId, table.endpointId, table.attempt),
    // The delivery log of an endpoint, newest first (dashboard).
    index('webhook_deliveries_endpoint_idx').on(table.endpointId, table.createdAt.desc()),
    // The stuck-delivery sweep looks only at unfinished rows.
    index('webhook_deliveries_open_idx')
      .on(table.scheduledAt)
      .where(sql`${table.status} in ('pending', 'sending')`),
    // The chains of a charge's deliveries (held / open ones only): what to release next, what blocks it.
    // Charge first: a release looks a batch's charges up (`charge_id = any(…)`); led by the endpoint it
    // scanned every open row of the table (bench:webhooks, 2026-11-24: 11 ms a call with a backlog).
    // Written with NOT IN so the migration that adds 'held' does not use the new value in its transaction.
    index('webhook_deliveries_chain_idx')
      .on(table.chargeId, table.endpointId, table.eventSequence)
      .where(sql`${table.status} not in ('succeeded', 'failed', 'canceled')`),
  ],
);

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/**
 * One row per open event stream (GET /api/events/stream, lib/webhooks/acquire-event-stream-lease.ts), so
 * every instance counts the same streams against EVENT_STREAMS_PER_KEY and EVENT_STREAMS_PER_MERCHANT
 * (N9). The instance serving a stream renews `expires_at` while it is open and deletes the row when it
 * ends; a crashed instance's rows simply expire and stop counting.
 */
export const eventStreamLeases = pgTable(
  'event_stream_leases',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    apiKeyId: text('api_key_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  // Opening a stream counts the merchant's live leases.
  (table) => [index('event_stream_leases_merchant_idx').on(table.merchantId, table.expiresAt)],
);
