/**
 * A webhook delivery's status machine (one row per attempt; lib/db/schema/webhooks.ts says what each
 * status means):
 *
 *   held ──► pending ──► sending ──► succeeded | failed | canceled
 *              │           └──► sending   (a worker reclaims a claim whose lease ran out)
 *              └──► canceled               (replaced by a resend before it was sent)
 *
 * A failed attempt is final: the retry is a new row (`pending`). Every status change of a delivery is
 * a guarded UPDATE whose `WHERE status IN (…)` comes from here.
 */
import { defineStateMachine } from '@/lib/state-machine';

/** One row per attempt; see the header for the moves. */
export const WEBHOOK_DELIVERY_STATUSES = ['held', 'pending', 'sending', 'succeeded', 'failed', 'canceled'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const webhookDeliveryMachine = defineStateMachine({
  name: 'webhook delivery',
  statuses: WEBHOOK_DELIVERY_STATUSES,
  transitions: {
    held: ['pending'],
    pending: ['sending', 'canceled'],
    sending: ['sending', 'succeeded', 'failed', 'canceled'],
    succeeded: [],
    failed: [],
    canceled: [],
  },
});

/**
 * A webhook endpoint's status:
 *
 *   active ──► failing     (an event used up every retry; the merchant is e-mailed once, on this move)
 *     ▲  ◄──────┘          (the next success: failing → active)
 *     │     │
 *     │     ▼
 *     └── disabled ◄── active | failing   (the endpoint answered 410 Gone; enabled = false)
 *                      (disabled → active: the merchant enables it again)
 *
 * A success never revives a disabled endpoint: only the merchant does (record-outcomes.ts, update-webhook-endpoint.ts).
 */
export const WEBHOOK_ENDPOINT_STATUSES = ['active', 'failing', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

export const webhookEndpointMachine = defineStateMachine({
  name: 'webhook endpoint',
  statuses: WEBHOOK_ENDPOINT_STATUSES,
  transitions: {
    active: ['failing', 'disabled'],
    failing: ['active', 'disabled'],
    disabled: ['active'],
  },
});
