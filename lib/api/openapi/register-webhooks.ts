/** The webhook events Chargeport POSTs, one OpenAPI webhook per event type, with the signing headers. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { webhookEventSchemas } from '@/lib/api/webhook-event-schemas';
import { WEBHOOK_EVENT_TYPES } from '@/lib/webhooks/event-types';
import { exampleEvent } from '../openapi-examples';
import { NO_AUTH, TAGS, json, operation } from './operation';

const WEBHOOK_HEADERS = z.object({
  'webhook-id': z
    .string()
    .meta({ description: 'The event id: the same on every retry. Deduplicate on it.', example: 'wevt_4Vd9TQ1aQm2xA7bC3dE5fG' }),
  'webhook-timestamp': z.string().meta({
    description: 'Unix seconds when this attempt was sent. Refuse it when more than 5 minutes from your clock.',
    example: '1772366590',
  }),
  'webhook-signature': z.string().meta({
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the base64 part of your `whsec_…` secret; two during a secret rotation. Accept when one matches.',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
});

export function registerWebhooks(registry: OpenAPIRegistry) {
  for (const type of WEBHOOK_EVENT_TYPES) {
    registry.registerWebhook(
      operation({
        method: 'post',
        path: type,
        operationId: `webhook_${type.replace('.', '_')}`,
        tags: [TAGS.webhooks],
        summary: type,
        description: `${webhookEventSchemas[type].meta()?.description ?? ''}\n\nPOSTed to each enabled endpoint subscribed to \`${type}\` (or \`*\`), signed per Standard Webhooks. Answer 2xx within 10 s; other answers are retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (±20%); 410 disables the endpoint.`,
        security: NO_AUTH,
        request: { headers: WEBHOOK_HEADERS, body: { required: true, content: json(webhookEventSchemas[type], exampleEvent(type)) } },
        responses: {
          200: { description: 'Any 2xx: delivered.' },
          400: { description: 'Any other answer (or none within 10 s): retried later. Answer 400 when the signature does not verify.' },
          410: { description: 'Gone: Chargeport disables the endpoint and stops delivering.' },
        },
        samples: {
          curl: `# Watch your test events live instead of receiving them:\ncurl -N $CHARGEPORT_URL/api/events/stream -H "x-api-key: $CHARGEPORT_TEST_KEY"`,
          node: `import { Chargeport } from '@chargeport/node';\nconst chargeport = new Chargeport({ apiKey: process.env.CHARGEPORT_SECRET_KEY });\n\n// Express: keep the raw body (express.raw({ type: 'application/json' })).\napp.post('/webhooks/chargeport', (req, res) => {\n  const event = chargeport.webhooks.constructEvent(req.body, req.headers, process.env.CHARGEPORT_WEBHOOK_SECRET);\n  if (event.type === '${type}') {\n    // event.data is typed for ${type}\n  }\n  res.sendStatus(204);\n});`,
        },
      }),
    );
  }
}
