/** The events of a key's mode: listed, or streamed as server-sent events. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { webhookEventListSchema } from '@/lib/api/webhook-event-schemas';
import { listEventsQuerySchema, streamEventsQuerySchema } from '@/lib/webhooks/schemas';
import { exampleEvent } from '../openapi-examples';
import { NODE_CLIENT, REQUEST_ID_HEADER, SECRET, SECRET_KEY_ERRORS, TAGS, envelope, errorResponses, ok, operation } from './operation';

export function registerEventPaths(registry: OpenAPIRegistry) {
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/events',
      operationId: 'listEvents',
      tags: [TAGS.events],
      summary: 'List events',
      description:
        "Every webhook event of the key's merchant and mode, newest first, exactly as delivered, whether or not an endpoint received it: reconcile missed deliveries from here. Page with `starting_after` = the last id of the previous page while `has_more` is true.",
      security: SECRET,
      request: { query: listEventsQuerySchema },
      responses: {
        200: ok('A page of events.', envelope(webhookEventListSchema, 'WebhookEventListResponse'), {
          object: 'list',
          data: [exampleEvent('charge.succeeded')],
          has_more: false,
        }),
        ...errorResponses([...SECRET_KEY_ERRORS, 'invalid_request']),
      },
      samples: {
        curl: 'curl -s \'$CHARGEPORT_URL/api/events?type=charge.succeeded&limit=50\' -H "x-api-key: $CHARGEPORT_SECRET_KEY"',
        node: `${NODE_CLIENT}\nfor await (const event of chargeport.events.list({ type: 'charge.succeeded' })) {\n  if (event.type === 'charge.succeeded') console.log(event.data.charge.id);\n}`,
      },
    }),
  );
  const sseExample = `id: wevt_4Vd9TQ1aQm2xA7bC3dE5fG\nevent: charge.succeeded\ndata: ${JSON.stringify(exampleEvent('charge.succeeded'))}\n\n`;
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/events/stream',
      operationId: 'streamEvents',
      tags: [TAGS.events],
      summary: 'Stream events (server-sent events)',
      description:
        "The key's events as they happen, as a `text/event-stream`: one message per event (`id` = the event id, `event` = its type, `data` = the event exactly as delivered to webhooks), oldest first, and a `: keep-alive` comment every 15 s. Without a cursor the stream starts with events created after the request; with `Last-Event-ID` (browsers' EventSource sends it on reconnect) or `starting_after`, with the events after that one. The server ends the stream after `max_seconds` (default 300): reconnect with the last id and nothing is lost. At most 5 streams are open at once per key and 20 per merchant (configurable by the operator); one more answers `429 too_many_streams` with `Retry-After` — close a stream (or let it end) first. Secret keys only, the key's mode only.",
      security: SECRET,
      request: {
        query: streamEventsQuerySchema,
        headers: z.object({
          'Last-Event-ID': z
            .string()
            .optional()
            .meta({ description: 'Resume after this event id.', example: 'wevt_4Vd9TQ1aQm2xA7bC3dE5fG' }),
        }),
      },
      responses: {
        200: {
          description: 'The stream. Each `data:` line is one WebhookEvent as JSON.',
          headers: { 'x-request-id': REQUEST_ID_HEADER },
          content: {
            'text/event-stream': {
              schema: { type: 'string', description: 'Server-sent events; data is a WebhookEvent.' },
              example: sseExample,
            },
          },
        },
        ...errorResponses([...SECRET_KEY_ERRORS, 'invalid_request', 'too_many_streams']),
      },
      samples: {
        curl: 'curl -N $CHARGEPORT_URL/api/events/stream -H "x-api-key: $CHARGEPORT_SECRET_KEY"',
        node: `${NODE_CLIENT}\nfor await (const event of chargeport.events.stream({ signal: AbortSignal.timeout(60_000) })) {\n  console.log(event.type, event.id);\n}`,
      },
    }),
  );
}
