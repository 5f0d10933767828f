/**
 * The public webhook event types (how a charge's statuses map onto them: lib/charges/charge-events.ts).
 *
 * One event per charge state change: a charge's creation (its first timeline entry, internally
 * `charge.pending`) is `charge.created`; each later status `s` is `charge.<s>`. Timeline entries that
 * do not change the status (charge.payment_submitted, charge.sweep_submitted, charge.overpaid,
 * charge.late_payment) are not webhooks. `payment.failed` reports a failed payment attempt (a
 * balance payment whose transfer failed) while the charge itself may still be paid. `charge.payment_reversed`
 * (no status change) reports a payment of a succeeded charge that left the chain after it counted (a
 * re-organisation deeper than the confirmation depth, docs/adr/0036). `refund.*` follow a
 * refund (lib/refunds/): created, then succeeded or failed once its transfer ends; a claim link is created
 * (awaiting_claim), then claimed by its payer (its transfer follows) or expired. `fulfilment.*` follow
 * a fulfilment rule carried out for a succeeded charge (lib/contracts/): succeeded once its contract call
 * is confirmed, failed when it reverted or could not be made (the merchant may retry; a retry that
 * succeeds sends `fulfilment.succeeded`).
 */
export const WEBHOOK_EVENT_TYPES = [
  'charge.created',
  'charge.processing',
  'charge.succeeded',
  'charge.failed',
  'charge.expired',
  'charge.canceled',
  'charge.payment_reversed',
  'payment.failed',
  'refund.created',
  'refund.claimed',
  'refund.expired',
  'refund.succeeded',
  'refund.failed',
  'fulfilment.succeeded',
  'fulfilment.failed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * A test event sent from the dashboard to one endpoint (send-test-event.ts). Not a subscribable type:
 * it goes only to the endpoint it was sent to, whatever that endpoint subscribes to, and is not listed
 * by GET /api/events (there is nothing to reconcile).
 */
export const TEST_EVENT_TYPE = 'webhook.test';

/** An endpoint subscribed to `*` receives every type, including types added later. */
export const ALL_EVENT_TYPES = '*';

export function isSubscribed(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.includes(ALL_EVENT_TYPES) || eventTypes.includes(type);
}
