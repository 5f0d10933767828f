/**
 * The wire format of webhook endpoints and events: request and response schemas used by the route
 * handlers, the OpenAPI document (lib/api/openapi.ts) and, through it, the SDK's types.
 */
import { z } from 'zod';
import { refundSchema } from '@/lib/refunds/schemas';
import { fulfilmentSchema } from '@/lib/contracts/schemas';
import { chargeSchema, timestampSchema } from '@/lib/charges/schemas';
import { API_KEY_MODES } from '@/lib/db/schema/api-keys';
import { WEBHOOK_ENDPOINT_STATUSES } from '@/lib/db/schema/webhooks';
import { ALL_EVENT_TYPES, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types';

export const WEBHOOK_LIMITS = {
  urlLength: 2048,
  descriptionLength: 500,
  /** Endpoints per merchant and mode: enough for staging + production receivers, bounds fan-out. */
  endpointsPerMode: 16,
  /** Longest overlap of a rotated secret: one week. */
  maxOverlapHours: 7 * 24,
  defaultOverlapHours: 24,
} as const;

const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: 'WebhookEventType' });

const subscribedTypesSchema = z
  .array(z.enum([...WEBHOOK_EVENT_TYPES, ALL_EVENT_TYPES]))
  .min(1, 'must list at least one event type (or "*" for all)')
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .transform((types) => (types.includes(ALL_EVENT_TYPES) ? [ALL_EVENT_TYPES] : [...new Set(types)]))
  .meta({ description: `Event types to receive: ${WEBHOOK_EVENT_TYPES.join(', ')}, or "*" for every type (also types added later).` });

const urlSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(WEBHOOK_LIMITS.urlLength, `must be at most ${WEBHOOK_LIMITS.urlLength} characters`)
  .meta({
    description:
      'Where events are POSTed. Live endpoints: https:// to a public address. Test endpoints may use http:// (and localhost where the deployment allows it).',
    example: 'https://game.example/webhooks/chargeport',
  });

const descriptionSchema = z
  .string()
  .trim()
  .max(WEBHOOK_LIMITS.descriptionLength, `must be at most ${WEBHOOK_LIMITS.descriptionLength} characters`);

export const createWebhookEndpointBodySchema = z
  .object({
    url: urlSchema,
    eventTypes: subscribedTypesSchema.optional(),
    description: descriptionSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .meta({ id: 'CreateWebhookEndpointRequest' });
export type CreateWebhookEndpointBody = z.infer<typeof createWebhookEndpointBodySchema>;

export const updateWebhookEndpointBodySchema = z
  .object({
    url: urlSchema.optional(),
    eventTypes: subscribedTypesSchema.optional(),
    description: descriptionSchema.nullable().optional(),
    enabled: z
      .boolean()
      .optional()
      .meta({ description: 'false pauses deliveries; true resumes them (also after a 410 disabled the endpoint).' }),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'give at least one of url, eventTypes, description, enabled')
  .meta({ id: 'UpdateWebhookEndpointRequest' });
export type UpdateWebhookEndpointBody = z.infer<typeof updateWebhookEndpointBodySchema>;

export const rotateWebhookSecretBodySchema = z
  .object({
    overlapHours: z
      .number()
      .int('must be a whole number of hours')
      .min(0)
      .max(WEBHOOK_LIMITS.maxOverlapHours, `must be at most ${WEBHOOK_LIMITS.maxOverlapHours}`)
      .optional()
      .meta({
        description: `Hours the current secret keeps signing next to the new one (default ${WEBHOOK_LIMITS.defaultOverlapHours}; 0 = stop at once).`,
      }),
  })
  .strict()
  .meta({ id: 'RotateWebhookSecretRequest' });

export const webhookEndpointSchema = z
  .object({
    id: z.string().meta({ example: 'we_4Vd9TQ1aQm2xA7bC3dE5fG' }),
    object: z.literal('webhook_endpoint'),
    mode: z.enum(API_KEY_MODES),
    url: z.string(),
    description: z.string().nullable(),
    eventTypes: z.array(z.string()),
    enabled: z.boolean(),
    status: z.enum(WEBHOOK_ENDPOINT_STATUSES).meta({
      description:
        'active; failing: an event used up its retries (you were e-mailed), back to active on the next success; disabled: it answered 410 Gone.',
    }),
    failingSince: timestampSchema.nullable(),
    disabledReason: z.string().nullable(),
    previousSecretExpiresAt: timestampSchema
      .nullable()
      .meta({ description: 'After a rotation: until when the previous secret still signs.' }),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpointResource = z.infer<typeof webhookEndpointSchema>;

export const webhookEndpointWithSecretSchema = webhookEndpointSchema
  .extend({
    secret: z.string().meta({ description: 'The signing secret (whsec_…). Shown only in this response: store it now.' }),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const webhookEndpointListSchema = z
  .object({ object: z.literal('list'), data: z.array(webhookEndpointSchema), has_more: z.boolean() })
  .meta({ id: 'WebhookEndpointList' });

export const deletedWebhookEndpointSchema = z
  .object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) })
  .meta({ id: 'DeletedWebhookEndpoint' });

const failedPaymentAttemptSchema = z
  .object({
    id: z.string().meta({ description: 'The transfer (otx_…) or fiat on-ramp order (ord_…) that failed.' }),
    method: z.enum(['balance', 'fiat']).optional().meta({
      description:
        "balance: a payment from the consumer's service wallet; fiat: a card / bank / wallet-pay purchase through an on-ramp provider.",
    }),
    chain: z.string(),
    txHash: z.string().nullable(),
    reason: z.string(),
  })
  .meta({ id: 'FailedPaymentAttempt' });
export type FailedPaymentAttempt = z.infer<typeof failedPaymentAttemptSchema>;

/** What each event type carries in `data`: the charge always; payment.failed the attempt; refund.* the refund; fulfilment.* the fulfilment. */
const EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'charge.created': 'A charge was created (its status is `pending`).',
  'charge.processing': 'A first payment of the charge was seen on chain; it is confirming.',
  'charge.succeeded': 'The confirmed payments cover the charge: deliver the purchase (check `data.charge.amount`).',
  'charge.failed': 'The charge expired underpaid: what arrived is kept for a refund.',
  'charge.expired': 'The charge expired without any payment.',
  'charge.canceled': 'The charge was canceled (by you, or by the buyer at the checkout).',
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

/**
 * An event payload as stored and sent. Built by the emitters with a `type` known only at run time, so
 * the loose shape (the union's members are checked in the tests, lib/webhooks/event-payloads.test.ts).
 */
export type WebhookEventPayload = {
  id: string;
  object: 'event';
  type: WebhookEventType;
  mode: (typeof API_KEY_MODES)[number];
  sequence: number;
  createdAt: string;
  data: {
    charge: ChargeResourceOf;
    paymentAttempt?: FailedPaymentAttempt;
    refund?: RefundResourceOf;
    fulfilment?: z.infer<typeof fulfilmentSchema>;
  };
};
type ChargeResourceOf = z.infer<typeof chargeSchema>;
type RefundResourceOf = z.infer<typeof refundSchema>;

export const listEventsQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    starting_after: z.string().optional().meta({ description: 'An event id: return events created before it.' }),
    type: webhookEventTypeSchema.optional(),
    created_gte: z.coerce
      .date()
      .optional()
      .meta({ type: 'string', format: 'date-time', description: 'Only events created at or after this time.' }),
    created_lt: z.coerce
      .date()
      .optional()
      .meta({ type: 'string', format: 'date-time', description: 'Only events created before this time.' }),
  })
  .strict();
export type ListEventsQuery = z.infer<typeof listEventsQuerySchema>;

/** GET /api/events/stream: where to start, which types, how long the server keeps the stream open. */
export const streamEventsQuerySchema = z
  .object({
    starting_after: z.string().optional().meta({
      description: 'Start with the events after this event id (the `Last-Event-ID` header does the same). Default: events from now on.',
    }),
    types: z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined || value === '') return undefined;
        const types = [...new Set(value.split(',').map((type) => type.trim()))];
        const unknown = types.filter((type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type));
        if (unknown.length)
          ctx.addIssue({ code: 'custom', message: `unknown event type ${unknown.join(', ')}: use ${WEBHOOK_EVENT_TYPES.join(', ')}` });
        return types as WebhookEventType[];
      })
      .meta({
        type: 'string',
        description: 'Comma-separated event types to stream (default: all).',
        example: 'charge.succeeded,refund.succeeded',
      }),
    max_seconds: z.coerce
      .number()
      .int()
      .min(1)
      .max(3600)
      .default(300)
      .meta({ description: 'Seconds before the server ends the stream (1–3600); reconnect with the last event id.' }),
  })
  .strict();

export const webhookEventListSchema = z
  .object({ object: z.literal('list'), data: z.array(webhookEventSchema), has_more: z.boolean() })
  .meta({ id: 'WebhookEventList' });
