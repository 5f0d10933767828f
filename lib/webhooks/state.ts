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
import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryStatus } from '@/lib/db/schema';

const TRANSITIONS: Readonly<Record<WebhookDeliveryStatus, readonly WebhookDeliveryStatus[]>> = {
  held: ['pending'],
  pending: ['sending', 'canceled'],
  sending: ['sending', 'succeeded', 'failed', 'canceled'],
  succeeded: [],
  failed: [],
  canceled: [],
};

export function canDeliveryTransition(from: WebhookDeliveryStatus, to: WebhookDeliveryStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Statuses from which `to` can be reached in one step (for guarded UPDATE … WHERE status IN (…)). */
export function deliveryStatusesLeadingTo(to: WebhookDeliveryStatus): WebhookDeliveryStatus[] {
  return WEBHOOK_DELIVERY_STATUSES.filter((from) => canDeliveryTransition(from, to));
}
