/** Webhook endpoints: create, list, retrieve, update, delete, rotate the signing secret. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import {
  createWebhookEndpointBodySchema,
  deletedWebhookEndpointSchema,
  rotateWebhookSecretBodySchema,
  updateWebhookEndpointBodySchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from '@/lib/webhooks/schemas';
import { EXAMPLE_WEBHOOK_SECRET, exampleWebhookEndpoint } from '../openapi-examples';
import {
  BODY_ERRORS,
  NODE_CLIENT,
  SECRET,
  SECRET_KEY_ERRORS,
  TAGS,
  endpointIdParam,
  envelope,
  errorResponses,
  json,
  ok,
  operation,
} from './operation';

export function registerWebhookEndpointPaths(registry: OpenAPIRegistry) {
  const endpoint = exampleWebhookEndpoint();
  const withSecret = { ...endpoint, secret: EXAMPLE_WEBHOOK_SECRET };
  const endpointPath = '$CHARGEPORT_URL/api/webhook-endpoints/we_4Vd9TQ1aQm2xA7bC3dE5fG';
  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/webhook-endpoints',
      operationId: 'createWebhookEndpoint',
      tags: [TAGS.endpoints],
      summary: 'Create a webhook endpoint',
      description:
        "Creates an endpoint in the key's mode and returns it with its signing secret (`whsec_…`), shown only in this response. Live endpoints must be https:// to a public address. Deliveries are signed the Standard Webhooks way (see Webhooks above).",
      security: SECRET,
      request: {
        body: {
          required: true,
          content: json(createWebhookEndpointBodySchema, {
            url: endpoint.url,
            eventTypes: endpoint.eventTypes,
            description: endpoint.description,
          }),
        },
      },
      responses: {
        200: ok('The endpoint and its secret.', envelope(webhookEndpointWithSecretSchema, 'WebhookEndpointWithSecretResponse'), withSecret),
        ...errorResponses([...SECRET_KEY_ERRORS, ...BODY_ERRORS, 'invalid_webhook_url', 'webhook_endpoint_limit']),
      },
      samples: {
        curl: `curl -s $CHARGEPORT_URL/api/webhook-endpoints -H "x-api-key: $CHARGEPORT_SECRET_KEY" \\\n  -H 'Content-Type: application/json' -d '{"url":"https://game.example/webhooks/chargeport","eventTypes":["charge.succeeded"]}'`,
        node: `${NODE_CLIENT}\nconst { id, secret } = await chargeport.webhookEndpoints.create({ url: 'https://game.example/webhooks/chargeport', eventTypes: ['charge.succeeded'] });`,
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/webhook-endpoints',
      operationId: 'listWebhookEndpoints',
      tags: [TAGS.endpoints],
      summary: 'List webhook endpoints',
      description: "The key's endpoints (its merchant and mode), oldest first.",
      security: SECRET,
      responses: {
        200: ok('The endpoints.', envelope(webhookEndpointListSchema, 'WebhookEndpointListResponse'), {
          object: 'list',
          data: [endpoint],
          has_more: false,
        }),
        ...errorResponses(SECRET_KEY_ERRORS),
      },
      samples: {
        curl: 'curl -s $CHARGEPORT_URL/api/webhook-endpoints -H "x-api-key: $CHARGEPORT_SECRET_KEY"',
        node: `${NODE_CLIENT}\nconst { data } = await chargeport.webhookEndpoints.list();`,
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/webhook-endpoints/{endpointId}',
      operationId: 'getWebhookEndpoint',
      tags: [TAGS.endpoints],
      summary: 'Retrieve a webhook endpoint',
      description: 'One endpoint of the key’s merchant and mode (never its secret).',
      security: SECRET,
      request: { params: endpointIdParam },
      responses: {
        200: ok('The endpoint.', envelope(webhookEndpointSchema, 'WebhookEndpointResponse'), endpoint),
        ...errorResponses([...SECRET_KEY_ERRORS, 'not_found']),
      },
      samples: {
        curl: `curl -s ${endpointPath} -H "x-api-key: $CHARGEPORT_SECRET_KEY"`,
        node: `${NODE_CLIENT}\nconst endpoint = await chargeport.webhookEndpoints.retrieve('we_4Vd9TQ1aQm2xA7bC3dE5fG');`,
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'patch',
      path: '/api/webhook-endpoints/{endpointId}',
      operationId: 'updateWebhookEndpoint',
      tags: [TAGS.endpoints],
      summary: 'Update a webhook endpoint',
      description:
        'Changes its URL, event types, description or enabled flag. Enabling an endpoint that a 410 answer disabled makes it active again.',
      security: SECRET,
      request: { params: endpointIdParam, body: { required: true, content: json(updateWebhookEndpointBodySchema, { enabled: false }) } },
      responses: {
        200: ok('The updated endpoint.', envelope(webhookEndpointSchema, 'UpdatedWebhookEndpointResponse'), {
          ...endpoint,
          enabled: false,
        }),
        ...errorResponses([...SECRET_KEY_ERRORS, ...BODY_ERRORS, 'not_found', 'invalid_webhook_url']),
      },
      samples: {
        curl: `curl -s -X PATCH ${endpointPath} -H "x-api-key: $CHARGEPORT_SECRET_KEY" \\\n  -H 'Content-Type: application/json' -d '{"enabled":false}'`,
        node: `${NODE_CLIENT}\nawait chargeport.webhookEndpoints.update('we_4Vd9TQ1aQm2xA7bC3dE5fG', { enabled: false });`,
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'delete',
      path: '/api/webhook-endpoints/{endpointId}',
      operationId: 'deleteWebhookEndpoint',
      tags: [TAGS.endpoints],
      summary: 'Delete a webhook endpoint',
      description: 'Deliveries to it stop at once; its delivery log goes with it.',
      security: SECRET,
      request: { params: endpointIdParam },
      responses: {
        200: ok('Deleted.', envelope(deletedWebhookEndpointSchema, 'DeletedWebhookEndpointResponse'), {
          id: endpoint.id,
          object: 'webhook_endpoint',
          deleted: true,
        }),
        ...errorResponses([...SECRET_KEY_ERRORS, 'not_found']),
      },
      samples: {
        curl: `curl -s -X DELETE ${endpointPath} -H "x-api-key: $CHARGEPORT_SECRET_KEY"`,
        node: `${NODE_CLIENT}\nawait chargeport.webhookEndpoints.delete('we_4Vd9TQ1aQm2xA7bC3dE5fG');`,
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/webhook-endpoints/{endpointId}/rotate-secret',
      operationId: 'rotateWebhookSecret',
      tags: [TAGS.endpoints],
      summary: "Rotate a webhook endpoint's signing secret",
      description:
        'Returns a new secret, shown only in this response. The previous secret keeps signing next to it for `overlapHours` (default 24), so every delivery meanwhile carries both signatures.',
      security: SECRET,
      request: { params: endpointIdParam, body: { required: false, content: json(rotateWebhookSecretBodySchema, { overlapHours: 24 }) } },
      responses: {
        200: ok('The endpoint and its new secret.', envelope(webhookEndpointWithSecretSchema, 'RotatedWebhookSecretResponse'), {
          ...withSecret,
          previousSecretExpiresAt: '2026-03-02T12:00:00.000Z',
        }),
        ...errorResponses([...SECRET_KEY_ERRORS, ...BODY_ERRORS, 'not_found']),
      },
      samples: {
        curl: `curl -s -X POST ${endpointPath}/rotate-secret -H "x-api-key: $CHARGEPORT_SECRET_KEY" \\\n  -H 'Content-Type: application/json' -d '{"overlapHours":24}'`,
        node: `${NODE_CLIENT}\nconst { secret } = await chargeport.webhookEndpoints.rotateSecret('we_4Vd9TQ1aQm2xA7bC3dE5fG', { overlapHours: 24 });`,
      },
    }),
  );
}
