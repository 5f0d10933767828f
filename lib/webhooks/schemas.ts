/**
 * The wire format of webhook endpoints and events: request and response schemas used by the route
 * handlers, the OpenAPI document (lib/api/openapi.ts) and, through it, the SDK's types.
 */
import { z } from 'zod';
import { inputExcerpt } from '@/lib/errors';
import { queryTimestampSchema, timestampSchema } from '@/lib/timestamp-schema';
import { API_KEY_MODES } from '@/lib/db/schema/api-keys';
import { WEBHOOK_ENDPOINT_STATUSES } from './state';
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

export const listEventsQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    starting_after: z.string().optional().meta({ description: 'An event id: return events created before it.' }),
    type: webhookEventTypeSchema.optional(),
    created_gte: queryTimestampSchema
      .optional()
      .meta({ type: 'string', format: 'date-time', description: 'Only events created at or after this time.' }),
    created_lt: queryTimestampSchema
      .optional()
      .meta({ type: 'string', format: 'date-time', description: 'Only events created before this time.' }),
  })
  .strict();
export type ListEventsQuery = z.infer<typeof listEventsQuerySchema>;

/** A comma-separated list of event types (`charge.succeeded,refund.succeeded`); empty means all. */
const eventTypeListSchema = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === '') return undefined;
    const types = [...new Set(value.split(',').map((type) => type.trim()))];
    const unknown = types.filter((type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type));
    if (unknown.length)
      ctx.addIssue({
        code: 'custom',
        message: `unknown event type ${inputExcerpt(unknown.join(', '))}: use ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      });
    return types as WebhookEventType[];
  });

/**
 * GET /api/events/stream: where to start, which types, how long the server keeps the stream open. The
 * type filter is `type`, as on GET /api/events (comma-separated here); `types`, its former name, is
 * still accepted so no client breaks.
 */
export const streamEventsQuerySchema = z
  .object({
    starting_after: z.string().optional().meta({
      description: 'Start with the events after this event id (the `Last-Event-ID` header does the same). Default: events from now on.',
    }),
    type: eventTypeListSchema.meta({
      type: 'string',
      description: 'Comma-separated event types to stream (default: all), as `type` filters GET /api/events.',
      example: 'charge.succeeded,refund.succeeded',
    }),
    types: eventTypeListSchema.meta({
      type: 'string',
      description: 'Deprecated: the former name of `type`, still accepted (not together with `type`).',
      deprecated: true,
      param: { deprecated: true },
    }),
    max_seconds: z.coerce
      .number()
      .int()
      .min(1)
      .max(3600)
      .default(300)
      .meta({ description: 'Seconds before the server ends the stream (1–3600); reconnect with the last event id.' }),
  })
  .strict()
  .refine((query) => !(query.type && query.types), { message: 'send `type` only (`types` is its former name)', path: ['types'] });

/**
 * An event payload as stored and sent. The outbox carries whatever its producer put in `data` (the charge
 * always; see lib/api/webhook-event-schemas.ts for each type's): the engine reads none of it.
 */
export type WebhookEventPayload<Data extends Record<string, unknown> = Record<string, unknown>> = {
  id: string;
  object: 'event';
  type: WebhookEventType;
  mode: (typeof API_KEY_MODES)[number];
  sequence: number;
  createdAt: string;
  data: Data;
};
