/**
 * The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. Served at
 * /api/openapi.json, rendered at /docs/api (Redoc), linted with Redocly's recommended rules in the
 * tests, and the source of both SDKs' generated types.
 *
 * Every operation says which keys may call it (`security`), which headers it answers with
 * (x-request-id always, Retry-After on 429, Idempotent-Replayed on a replayed POST, Chargeport-Version and
 * RateLimit-* on x-api-key operations), which error codes
 * it can return (from the closed ErrorCode enum: ERROR_STATUS in lib/errors.ts), and carries examples
 * and code samples (curl, @chargeport/node, @chargeport/web).
 *
 * This file assembles the document: security schemes, shared headers, each resource's paths
 * (lib/api/openapi/register-*-paths.ts, built from the blocks of lib/api/openapi/operation.ts), the
 * webhook events, then info, servers and tags.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { apiDescription } from './openapi/api-description';
import { API_VERSIONS, CURRENT_API_VERSION } from './resolve-api-version';
import { TAGS } from './openapi/operation';
import { registerChargePaths } from './openapi/register-charge-paths';
import { registerCheckoutPaths } from './openapi/register-checkout-paths';
import { registerEventPaths } from './openapi/register-event-paths';
import { registerHealthPaths } from './openapi/register-health-paths';
import { registerOAuthPaths } from './openapi/register-oauth-paths';
import { registerOnrampPaths } from './openapi/register-onramp-paths';
import { registerRefundPaths } from './openapi/register-refund-paths';
import { registerTestHelperPaths } from './openapi/register-test-helper-paths';
import { registerWebhookEndpointPaths } from './openapi/register-webhook-endpoint-paths';
import { registerWebhooks } from './openapi/register-webhooks';

export function buildOpenApiDocument(serverUrl: string) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'SecretKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description:
      'A secret key, `cp_test_…` or `cp_live_…` (dashboard → API keys). Server side only: it can do everything the API offers in its mode.',
  });
  registry.registerComponent('securitySchemes', 'PublishableKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description:
      'A publishable key, `cp_pub_test_…` or `cp_pub_live_…`: safe in a browser, it may only create charges paid to the merchant and read them.',
  });
  registry.registerComponent('securitySchemes', 'ChargeportOAuth', {
    type: 'openIdConnect',
    openIdConnectUrl: `${serverUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`,
    description:
      'An access token from "Sign in with Chargeport" (authorization code with PKCE, or the device flow), sent as `Authorization: Bearer <token>`.',
  });
  registry.registerComponent('securitySchemes', 'MetricsToken', {
    type: 'http',
    scheme: 'bearer',
    description: "The operator's METRICS_TOKEN, sent as `Authorization: Bearer <token>` (GET /api/metrics only).",
  });
  registry.registerComponent('headers', 'RequestId', {
    description: 'The id of this request (also in error messages of 500s): quote it to support.',
    required: true,
    schema: { type: 'string', example: '9b2f4f6e-6f3c-4d1a-9a57-0c1f1f3e2d4b' },
  });
  registry.registerComponent('headers', 'RetryAfter', {
    description: 'Seconds to wait before the next request with this key.',
    required: true,
    schema: { type: 'integer', minimum: 1, example: 3 },
  });
  registry.registerComponent('parameters', 'ChargeportVersion', {
    name: 'Chargeport-Version',
    in: 'header',
    required: false,
    description:
      "The dated API version to use for this request. Without it, the key's pinned version (set by the key's first request) is used. An unknown value → 400 `unsupported_api_version`. Versions: docs/api-changelog.md.",
    schema: { type: 'string', enum: [...API_VERSIONS], example: CURRENT_API_VERSION },
  });
  registry.registerComponent('headers', 'ChargeportVersion', {
    description:
      "The API version this answer was made under: the request's Chargeport-Version, else the key's pinned version, else the current one.",
    required: true,
    schema: { type: 'string', example: CURRENT_API_VERSION },
  });
  registry.registerComponent('headers', 'RateLimitLimit', {
    description:
      'Requests the key may make per window (60 s), IETF draft RateLimit headers. Absent when the key was not counted (a 401, a 400 unsupported_api_version, a 403 before the limit).',
    schema: { type: 'integer', minimum: 1, example: 6000 },
  });
  registry.registerComponent('headers', 'RateLimitRemaining', {
    description:
      'Requests left in the current window. Counted per instance from its lease of the shared budget: exact with one instance; with several, off by what the other instances took or hold leased since (a few requests).',
    schema: { type: 'integer', minimum: 0, example: 599 },
  });
  registry.registerComponent('headers', 'RateLimitReset', {
    description: 'Seconds until the window resets (on a 429, Retry-After says when to retry).',
    schema: { type: 'integer', minimum: 0, example: 42 },
  });
  registry.registerComponent('headers', 'IdempotentReplayed', {
    description: '`true` when this answer is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'], example: 'true' },
  });

  // The paths in the document's order (each resource's file in ./openapi/ beside this one), then the webhook events.
  registerChargePaths(registry);
  registerCheckoutPaths(registry);
  registerRefundPaths(registry);
  registerWebhookEndpointPaths(registry);
  registerEventPaths(registry);
  registerTestHelperPaths(registry);
  registerHealthPaths(registry);
  registerOAuthPaths(registry);
  registerOnrampPaths(registry);
  registerWebhooks(registry);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Chargeport API',
      version: '1.0.0',
      description: apiDescription(),
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'Chargeport support', url: `${serverUrl.replace(/\/+$/, '')}/docs/api` },
    },
    servers: [{ url: serverUrl, description: 'This Chargeport deployment' }],
    tags: [
      { name: TAGS.charges, description: 'Create charges, send the buyer to `paymentUrl`, read and cancel them.' },
      { name: TAGS.refunds, description: 'Send (part of) what a charge received back to the payer.' },
      { name: TAGS.endpoints, description: 'Where Chargeport POSTs your events, each signed with the endpoint’s secret.' },
      {
        name: TAGS.events,
        description: 'Every event of your mode, to reconcile missed deliveries or stream them live (`GET /api/events/stream`).',
      },
      {
        name: TAGS.testHelpers,
        description: 'Test mode only: drive test charges from your own CI. Production keys get 403 `test_key_required`.',
      },
      {
        name: TAGS.inApp,
        description:
          'Called by your app or game with a "Sign in with Chargeport" access token (never an API key): the user\'s balances, and payments the user confirms with the PIN on Chargeport.',
      },
      {
        name: TAGS.health,
        description: "Probes for load balancers and monitoring (no key), the Prometheus metrics (the operator's token) and this document.",
      },
      {
        name: TAGS.onramp,
        description: "What the on-ramp pages call (a quote, an order's live view; no key) and the on-ramp providers' webhooks.",
      },
      { name: TAGS.webhooks, description: 'The events Chargeport POSTs to your webhook endpoints, one payload per type.' },
    ],
  });
  // Redoc's menu: the API first, then the webhook events (x-tagGroups; other renderers ignore it).
  return {
    ...document,
    'x-tagGroups': [
      {
        name: 'API',
        tags: [TAGS.charges, TAGS.refunds, TAGS.endpoints, TAGS.events, TAGS.testHelpers, TAGS.inApp, TAGS.health, TAGS.onramp],
      },
      { name: 'Webhooks', tags: [TAGS.webhooks] },
    ],
  };
}
