/**
 * The catalog of webhook event payloads: one schema per event type, assembled here above the domains
 * that produce them (charges, refunds, contracts), for the OpenAPI document, the SDKs' typed event unions
 * and the tests that check every emitted payload against its schema.
 */
import { z } from 'zod';
import { chargeSchema, failedPaymentAttemptSchema, reversedPaymentSchema } from '@/lib/charges/schemas';
import { fulfilmentSchema } from '@/lib/contracts/schemas';
import { API_KEY_MODES } from '@/lib/db/schema/api-keys';
import { refundSchema } from '@/lib/refunds/schemas';
import { timestampSchema } from '@/lib/timestamp-schema';
import type { WebhookEventType } from '@/lib/webhooks/event-types';

/**
 * What each event type carries in `data`: the charge always; payment.failed the attempt;
 * charge.payment_reversed the payment; refund.* the refund; fulfilment.* the fulfilment.
 */
const EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'charge.created': 'A charge was created (its status is `pending`).',
  'charge.processing': 'A first payment of the charge was seen on chain; it is confirming.',
  'charge.succeeded': 'The confirmed payments cover the charge: deliver the purchase (check `data.charge.amount`).',
  'charge.failed': 'The charge expired underpaid: what arrived is kept for a refund.',
  'charge.expired': 'The charge expired without any payment.',
  'charge.canceled': 'The charge was canceled (by you, or by the buyer at the checkout).',
  'charge.payment_reversed':
    'A payment of the succeeded charge left the chain after it counted (a re-organisation deeper than the confirmation depth: the payer double-spent), so the charge is no longer covered. The charge stays `succeeded` and nothing is taken back automatically; it is flagged for review. `data.reversedPayment` says which payment. Decide what to do with what you delivered.',
  'payment.failed':
    "An attempt to pay the charge failed (a balance payment's transfer, a card order); the charge may still be paid another way. `data.paymentAttempt` says which.",
  'refund.created':
    'A refund was recorded (`data.refund`): status `pending` when it goes to the payer at once, `awaiting_claim` for a claim link (the link itself is never in an event).',
  'refund.claimed': 'The payer claimed a refund claim link: its transfer is recorded (`data.refund.destination`, status `pending`).',
  'refund.expired': 'Nobody claimed a refund claim link in time: its amount is refundable again.',
  'refund.succeeded': 'A refund was confirmed on chain (`data.refund.transactionHash`).',
  'refund.failed': 'A refund moved nothing; the amount is refundable again (`data.refund.failureReason`).',
  'fulfilment.succeeded':
    'A Contracts-tab rule was carried out for the succeeded charge (`data.fulfilment`: rule, contract, function, bound `args`, `recipient`, `transactionHash`).',
  'fulfilment.failed': 'A Contracts-tab rule could not be carried out (`data.fulfilment.failureReason`); Retry it from the charge page.',
};

/** `charge.succeeded` → `ChargeSucceededEvent`. */
function eventSchemaId(type: WebhookEventType): string {
  return `${type
    .split(/[._]/)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')}Event`;
}

function eventSchema<T extends WebhookEventType, D extends z.ZodRawShape>(type: T, data: D) {
  return z
    .object({
      id: z.string().meta({
        description: 'Also the webhook-id header: the same on every retry, so you can deduplicate.',
        example: 'wevt_4Vd9TQ1aQm2xA7bC3dE5fG',
      }),
      object: z.literal('event'),
      type: z.literal(type),
      mode: z.enum(API_KEY_MODES),
      sequence: z.number().int().min(1).meta({
        description:
          "The event's place among its charge's events: 1 for charge.created, then one more for each later event of the same charge (payment.failed, refund.* and fulfilment.* included), in the order they happened. Events of a charge reach each endpoint in this order (a later one waits until the earlier one is delivered or has used up its retries); still, keep the highest sequence you applied per charge and ignore an event with a lower one, such as a resend from the dashboard.",
        example: 3,
      }),
      createdAt: timestampSchema,
      data: z.object({ charge: chargeSchema.meta({ description: 'The charge as it was right after the change.' }), ...data }),
    })
    .meta({ id: eventSchemaId(type), description: EVENT_DESCRIPTIONS[type] });
}

const chargeOnly = {} as const;
/**
 * One payload schema per event type, discriminated by `type`: the webhook body and an entry of
 * GET /api/events. The SDKs' typed event unions are generated from these.
 */
export const webhookEventSchemas = {
  'charge.created': eventSchema('charge.created', chargeOnly),
  'charge.processing': eventSchema('charge.processing', chargeOnly),
  'charge.succeeded': eventSchema('charge.succeeded', chargeOnly),
  'charge.failed': eventSchema('charge.failed', chargeOnly),
  'charge.expired': eventSchema('charge.expired', chargeOnly),
  'charge.canceled': eventSchema('charge.canceled', chargeOnly),
  'charge.payment_reversed': eventSchema('charge.payment_reversed', { reversedPayment: reversedPaymentSchema }),
  'payment.failed': eventSchema('payment.failed', { paymentAttempt: failedPaymentAttemptSchema }),
  'refund.created': eventSchema('refund.created', { refund: refundSchema }),
  'refund.claimed': eventSchema('refund.claimed', { refund: refundSchema }),
  'refund.expired': eventSchema('refund.expired', { refund: refundSchema }),
  'refund.succeeded': eventSchema('refund.succeeded', { refund: refundSchema }),
  'refund.failed': eventSchema('refund.failed', { refund: refundSchema }),
  'fulfilment.succeeded': eventSchema('fulfilment.succeeded', { fulfilment: fulfilmentSchema }),
  'fulfilment.failed': eventSchema('fulfilment.failed', { fulfilment: fulfilmentSchema }),
} satisfies Record<WebhookEventType, z.ZodType>;

export const webhookEventSchema = z
  .discriminatedUnion('type', Object.values(webhookEventSchemas) as unknown as [z.ZodObject, ...z.ZodObject[]])
  .meta({ id: 'WebhookEvent', description: 'The body of a webhook, and an entry of GET /api/events: one payload per `type`.' });

export const webhookEventListSchema = z
  .object({ object: z.literal('list'), data: z.array(webhookEventSchema), has_more: z.boolean() })
  .meta({ id: 'WebhookEventList' });
