/**
 * The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. Served at
 * /api/openapi.json, rendered at /docs/api (Redoc), linted with Redocly's recommended rules in the
 * tests, and the source of both SDKs' generated types.
 *
 * Every operation says which keys may call it (`security`), which headers it answers with
 * (x-request-id always, Retry-After on 429, Idempotent-Replayed on a replayed POST), which error codes
 * it can return (from the closed ErrorCode enum: ERROR_STATUS in lib/errors.ts), and carries examples
 * and code samples (curl, @chargeport/node, @chargeport/web).
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  chargeListSchema,
  chargeSchema,
  createChargeBodySchema,
  createChargeResultSchema,
  errorSchema,
  listChargesQuerySchema,
} from '@/lib/charges/schemas';
import { ERROR_STATUS, type ErrorCode } from '@/lib/errors';
import { healthReportSchema, livenessSchema, readinessSchema } from '@/lib/health/schemas';
import { createdRefundSchema, createRefundBodySchema, refundListSchema } from '@/lib/refunds/schemas';
import { payTestChargeBodySchema, testPaymentSchema } from '@/lib/test-helpers/schemas';
import {
  createWebhookEndpointBodySchema,
  deletedWebhookEndpointSchema,
  listEventsQuerySchema,
  rotateWebhookSecretBodySchema,
  streamEventsQuerySchema,
  updateWebhookEndpointBodySchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from '@/lib/webhooks/schemas';
import { webhookEventListSchema, webhookEventSchemas } from '@/lib/api/webhook-event-schemas';
import { WEBHOOK_EVENT_TYPES } from '@/lib/webhooks/event-types';
import { createPaymentRequestSchema, paymentRequestSchema } from '@/lib/oauth/schemas';
import { errorTableMarkdown } from './error-table';
import {
  EXAMPLE_WEBHOOK_SECRET,
  exampleCharge,
  exampleCreateChargeRequest,
  exampleCreateChargeResult,
  exampleEvent,
  examplePaidCharge,
  exampleRefund,
  exampleUsdPricedRequest,
  exampleWebhookEndpoint,
} from './openapi-examples';

const TAGS = {
  charges: 'Charges',
  refunds: 'Refunds',
  endpoints: 'Webhook endpoints',
  events: 'Events',
  testHelpers: 'Test helpers',
  health: 'Health',
  inApp: 'In-app (Sign in with Chargeport)',
  webhooks: 'Webhook events',
} as const;

const POLYGON_USDC_EXAMPLE = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

type Security = Record<string, string[]>[];
const SECRET: Security = [{ SecretKey: [] }];
const SECRET_OR_PUBLISHABLE: Security = [{ SecretKey: [] }, { PublishableKey: [] }];
const NO_AUTH: Security = [];

const AUTH_ERRORS = ['missing_api_key', 'invalid_api_key', 'rate_limited', 'internal_error'] as const;
/** Routes only secret keys may call: a publishable key is key_not_permitted. */
const SECRET_KEY_ERRORS = [...AUTH_ERRORS, 'key_not_permitted'] as const;
const BODY_ERRORS = ['invalid_request', 'invalid_json', 'payload_too_large', 'unsupported_media_type'] as const;

const chargeIdParam = z.object({ chargeId: z.string().meta({ description: 'A charge id (ch_…).', example: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG' }) });
const endpointIdParam = z.object({
  endpointId: z.string().meta({ description: 'A webhook endpoint id (we_…).', example: 'we_4Vd9TQ1aQm2xA7bC3dE5fG' }),
});
const idempotencyHeader = (description: string) =>
  z.object({ 'Idempotency-Key': z.string().max(255).optional().meta({ description, example: 'order-1001' }) });

const envelope = <T extends z.ZodType>(data: T, id: string) =>
  z.object({ data, error: z.null() }).meta({ id, description: 'Success: `data` is set, `error` is null.' });
const errorEnvelope = z
  .object({ data: z.null(), error: errorSchema })
  .meta({ id: 'ErrorResponse', description: 'Failure: `data` is null, `error` says what went wrong.' });

const REQUEST_ID_HEADER = { $ref: '#/components/headers/RequestId' };
const RETRY_AFTER_HEADER = { $ref: '#/components/headers/RetryAfter' };
const REPLAYED_HEADER = { $ref: '#/components/headers/IdempotentReplayed' };

/** One response per HTTP status, listing its codes, with an example of the first. */
function errorResponses(codes: readonly ErrorCode[]): Record<string, ResponseConfig> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: `error.code: ${list.map((code) => `\`${code}\``).join(', ')}`,
        headers: {
          'x-request-id': REQUEST_ID_HEADER,
          ...(status === 429 ? { 'Retry-After': RETRY_AFTER_HEADER } : {}),
        } as Record<string, { $ref: string }>,
        content: {
          'application/json': {
            schema: errorEnvelope,
            example: { data: null, error: ERROR_EXAMPLES[list[0]!] ?? { code: list[0]!, message: 'See the error table.' } },
          },
        },
      },
    ]),
  );
}

const ERROR_EXAMPLES: Partial<Record<ErrorCode, { code: ErrorCode; message: string; param?: string }>> = {
  invalid_request: { code: 'invalid_request', message: 'chargeData.symbol: is required', param: 'chargeData.symbol' },
  missing_api_key: { code: 'missing_api_key', message: 'Send your API key in the x-api-key header.' },
  key_not_permitted: {
    code: 'key_not_permitted',
    message: 'Publishable keys can only create and read charges. Use a secret key from your server.',
  },
  not_found: { code: 'not_found', message: 'No charge ch_4Vd9TQ1aQm2xA7bC3dE5fG for this key.' },
  unsupported_chain: {
    code: 'unsupported_chain',
    message:
      'Unknown chain "ETHEREUM". Supported chains: POLYGON, POLYGON_AMOY, BSC, BSC_TESTNET, DFK, DFK_TESTNET, SOLANA, SOLANA_DEVNET.',
    param: 'chargeData.chain',
  },
  rate_limited: { code: 'rate_limited', message: 'Too many requests for this API key: retry after 3 seconds.' },
  test_key_required: { code: 'test_key_required', message: 'Test helpers work with test API keys (cp_test_…) only.' },
};

function ok(description: string, schema: z.ZodType, example: unknown, options: { replayable?: boolean } = {}): ResponseConfig {
  return {
    description,
    headers: { 'x-request-id': REQUEST_ID_HEADER, ...(options.replayable ? { 'Idempotent-Replayed': REPLAYED_HEADER } : {}) },
    content: { 'application/json': { schema, example: { data: example, error: null } } },
  };
}

const json = <T extends z.ZodType>(schema: T, example: unknown) => ({ 'application/json': { schema, example } });

interface Samples {
  curl: string;
  node: string;
  web?: string;
}

function codeSamples(samples: Samples) {
  return [
    { lang: 'Shell', label: 'curl', source: samples.curl },
    { lang: 'JavaScript', label: 'Node SDK', source: samples.node },
    ...(samples.web ? [{ lang: 'JavaScript', label: 'Web SDK', source: samples.web }] : []),
  ];
}

const NODE_CLIENT =
  "import { Chargeport } from '@chargeport/node';\nconst chargeport = new Chargeport({ apiKey: process.env.CHARGEPORT_SECRET_KEY });\n";

function operation(route: RouteConfig & { samples: Samples }): RouteConfig {
  const { samples, ...rest } = route;
  return { ...rest, 'x-codeSamples': codeSamples(samples) };
}

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
  registry.registerComponent('headers', 'IdempotentReplayed', {
    description: '`true` when this answer is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'], example: 'true' },
  });

  registerChargePaths(registry);
  registerRefundPaths(registry);
  registerWebhookEndpointPaths(registry);
  registerEventPaths(registry);
  registerTestHelperPaths(registry);
  registerHealthPaths(registry);
  registerWebhooks(registry);
  registerOAuthPaths(registry, serverUrl);

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
      { name: TAGS.health, description: 'Probes for load balancers and monitoring; no key.' },
      { name: TAGS.webhooks, description: 'The events Chargeport POSTs to your webhook endpoints, one payload per type.' },
    ],
  });
  // Redoc's menu: the API first, then the webhook events (x-tagGroups; other renderers ignore it).
  return {
    ...document,
    'x-tagGroups': [
      { name: 'API', tags: [TAGS.charges, TAGS.refunds, TAGS.endpoints, TAGS.events, TAGS.testHelpers, TAGS.inApp, TAGS.health] },
      { name: 'Webhooks', tags: [TAGS.webhooks] },
    ],
  };
}

function registerChargePaths(registry: OpenAPIRegistry) {
  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/createCharge',
      operationId: 'createCharge',
      tags: [TAGS.charges],
      summary: 'Create a charge',
      description:
        "Creates a charge for the merchant that owns the key and returns `{ data: { chargeId, paymentUrl }, error: null }` (200), nothing more — read the charge with GET /api/charges/{chargeId}: send the buyer to `paymentUrl`, the hosted checkout (or open it with the web SDK's `pay()`). A test key makes test charges (on the chain's test network, native token only); a production key makes live charges. Price in tokens (`items` or `amount`) or in US dollars (`pricing`). Send an Idempotency-Key header to retry safely. Publishable keys may call this from a browser but cannot set toAddress or isDirectTransfer.",
      security: SECRET_OR_PUBLISHABLE,
      request: {
        headers: idempotencyHeader('Same key + same body → the same response again (kept ≥ 24 h); same key + other body → 409.'),
        body: {
          required: true,
          content: {
            'application/json': {
              schema: createChargeBodySchema,
              examples: {
                tokens: { summary: 'Priced in USDC', value: exampleCreateChargeRequest() },
                usd: { summary: 'Priced in US dollars, paid in POL', value: exampleUsdPricedRequest() },
              },
            },
          },
        },
      },
      responses: {
        200: ok(
          'Charge created: its id and the hosted checkout URL (`paymentUrl`).',
          envelope(createChargeResultSchema, 'CreateChargeResponse'),
          exampleCreateChargeResult(),
          {
            replayable: true,
          },
        ),
        ...errorResponses([
          ...AUTH_ERRORS,
          ...BODY_ERRORS,
          'unsupported_chain',
          'chain_not_configured',
          'unsupported_token',
          'invalid_address',
          'invalid_amount',
          'amount_mismatch',
          'price_unavailable',
          'test_key_required',
          'live_key_required',
          'verification_required',
          'key_not_permitted',
          'idempotency_conflict',
        ]),
      },
      samples: {
        curl: `curl -s ${'$CHARGEPORT_URL'}/api/createCharge \\\n  -H "x-api-key: $CHARGEPORT_SECRET_KEY" -H 'Content-Type: application/json' \\\n  -H 'Idempotency-Key: order-1001' \\\n  -d '${JSON.stringify(exampleCreateChargeRequest())}'`,
        node: `${NODE_CLIENT}\nconst { chargeId, paymentUrl } = await chargeport.charges.create({\n  chain: 'POLYGON',\n  symbol: 'USDC',\n  tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',\n  items: [{ name: 'Gem pack', amount: '4.99', quantity: 1 }],\n  metadata: { orderId: '1001' },\n});\n// or priced in US dollars:\nawait chargeport.charges.create({ chargeData: { chain: 'POLYGON', symbol: 'POL', tokenAddress: '0x0000000000000000000000000000000000000000', pricing: { currency: 'USD', amount: '4.99' } } });`,
        web: `import { Chargeport } from '@chargeport/web';\nconst chargeport = new Chargeport({ apiKey: 'cp_pub_live_…', baseUrl: 'https://pay.example.com' });\nconst { paymentUrl } = await chargeport.createCharge({\n  chain: 'POLYGON', symbol: 'USDC', tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',\n  items: [{ name: 'Gem pack', amount: '4.99', quantity: 1 }],\n});\nlocation.assign(paymentUrl);`,
      },
    }),
  );

  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/charges/{chargeId}',
      operationId: 'getCharge',
      tags: [TAGS.charges],
      summary: 'Retrieve a charge',
      description: "One charge of the key's merchant and mode, with its timeline and payments. Other merchants' charges are 404.",
      security: SECRET_OR_PUBLISHABLE,
      request: { params: chargeIdParam },
      responses: {
        200: ok('The charge.', envelope(chargeSchema, 'ChargeResponse'), examplePaidCharge()),
        ...errorResponses([...AUTH_ERRORS, 'not_found']),
      },
      samples: {
        curl: 'curl -s $CHARGEPORT_URL/api/charges/ch_4Vd9TQ1aQm2xA7bC3dE5fG -H "x-api-key: $CHARGEPORT_SECRET_KEY"',
        node: `${NODE_CLIENT}\nconst charge = await chargeport.charges.retrieve('ch_4Vd9TQ1aQm2xA7bC3dE5fG');\nif (charge.status === 'succeeded') deliver(charge.metadata.orderId);`,
        web: "const charge = await chargeport.getCharge('ch_4Vd9TQ1aQm2xA7bC3dE5fG');",
      },
    }),
  );

  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/charges',
      operationId: 'listCharges',
      tags: [TAGS.charges],
      summary: 'List charges',
      description:
        "The key's charges, newest first. Page with `starting_after` = the last id of the previous page while `has_more` is true (the Node SDK's `charges.list()` does it for you).",
      security: SECRET,
      request: { query: listChargesQuerySchema },
      responses: {
        200: ok('A page of charges.', envelope(chargeListSchema, 'ChargeListResponse'), {
          object: 'list',
          data: [exampleCharge()],
          has_more: false,
        }),
        ...errorResponses([...SECRET_KEY_ERRORS, 'invalid_request', 'test_key_required', 'live_key_required']),
      },
      samples: {
        curl: 'curl -s \'$CHARGEPORT_URL/api/charges?limit=20&status=succeeded\' -H "x-api-key: $CHARGEPORT_SECRET_KEY"',
        node: `${NODE_CLIENT}\nfor await (const charge of chargeport.charges.list({ status: 'succeeded' })) {\n  console.log(charge.id, charge.amount);\n}`,
      },
    }),
  );

  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/charges/{chargeId}/cancel',
      operationId: 'cancelCharge',
      tags: [TAGS.charges],
      summary: 'Cancel a pending charge',
      description: 'Only a `pending` charge with no payment in flight can be canceled; its checkout stops offering ways to pay.',
      security: SECRET,
      request: { params: chargeIdParam },
      responses: {
        200: ok('The canceled charge.', envelope(chargeSchema, 'CanceledChargeResponse'), exampleCharge({ status: 'canceled' })),
        ...errorResponses([...SECRET_KEY_ERRORS, 'not_found', 'charge_not_cancelable', 'payment_in_progress']),
      },
      samples: {
        curl: 'curl -s -X POST $CHARGEPORT_URL/api/charges/ch_4Vd9TQ1aQm2xA7bC3dE5fG/cancel -H "x-api-key: $CHARGEPORT_SECRET_KEY"',
        node: `${NODE_CLIENT}\nawait chargeport.charges.cancel('ch_4Vd9TQ1aQm2xA7bC3dE5fG');`,
      },
    }),
  );
}

function registerRefundPaths(registry: OpenAPIRegistry) {
  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/charges/{chargeId}/refunds',
      operationId: 'createRefund',
      tags: [TAGS.refunds],
      summary: 'Refund a charge',
      description:
        "Refunds (part of) what a charge received — over- and late payments included — back to whoever paid: the address that sent the payment (for a balance payment, the payer's Chargeport wallet). `toAddress` may only name an address that paid the charge (else 403 refund_destination_not_payer: an owner may refund elsewhere from the dashboard, with step-up). When the sender is not the payer or is not known (a card payment delivered by an on-ramp provider, a contract, several senders), the refund is a claim link: status `awaiting_claim`, its amount reserved, and `claimUrl` in this answer only — forward it to the payer (we e-mail it when we know them), who picks an address or their Chargeport balance; unclaimed after REFUND_CLAIM_TTL_DAYS (30) it expires and the amount is refundable again. A charge still `pending` or `processing` cannot be refunded (409 charge_not_settled). Paid from the charge's deposit address before its sweep, from your merchant wallet after it; the network fee is covered. The refund is `pending`, then `submitted`, then `succeeded` or `failed` (webhooks refund.created, refund.claimed, refund.expired, refund.succeeded, refund.failed). Send an Idempotency-Key header to retry safely: the same key is the same refund.",
      security: SECRET,
      request: {
        params: chargeIdParam,
        headers: idempotencyHeader('Same key → the same refund; same key with another amount or destination → 409.'),
        body: { required: false, content: json(createRefundBodySchema, { amount: '4.99', reason: 'Customer request' }) },
      },
      responses: {
        200: ok('The refund (with `claimUrl` when it is a claim link).', envelope(createdRefundSchema, 'RefundResponse'), exampleRefund(), {
          replayable: true,
        }),
        ...errorResponses([
          ...SECRET_KEY_ERRORS,
          ...BODY_ERRORS,
          'invalid_amount',
          'invalid_address',
          'not_found',
          'refund_exceeds_refundable',
          'refund_destination_not_payer',
          'charge_not_settled',
          'refund_not_possible',
          'idempotency_conflict',
          'insufficient_balance',
          'gas_sponsorship_limit',
          'gas_tank_empty',
          'chain_unavailable',
        ]),
      },
      samples: {
        curl: `curl -s $CHARGEPORT_URL/api/charges/ch_4Vd9TQ1aQm2xA7bC3dE5fG/refunds \\\n  -H "x-api-key: $CHARGEPORT_SECRET_KEY" -H 'Content-Type: application/json' \\\n  -H 'Idempotency-Key: refund-1001' -d '{"amount":"4.99","reason":"Customer request"}'`,
        node: `${NODE_CLIENT}\nconst refund = await chargeport.refunds.create('ch_4Vd9TQ1aQm2xA7bC3dE5fG', { amount: '4.99', reason: 'Customer request' });`,
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/charges/{chargeId}/refunds',
      operationId: 'listRefunds',
      tags: [TAGS.refunds],
      summary: "List a charge's refunds",
      description: 'The refunds of a charge, oldest first, and what can still be refunded.',
      security: SECRET,
      request: { params: chargeIdParam },
      responses: {
        200: ok('The refunds.', envelope(refundListSchema, 'RefundListResponse'), {
          object: 'list',
          data: [exampleRefund()],
          refundable: { amount: '0', amountBaseUnits: '0' },
        }),
        ...errorResponses([...SECRET_KEY_ERRORS, 'not_found']),
      },
      samples: {
        curl: 'curl -s $CHARGEPORT_URL/api/charges/ch_4Vd9TQ1aQm2xA7bC3dE5fG/refunds -H "x-api-key: $CHARGEPORT_SECRET_KEY"',
        node: `${NODE_CLIENT}\nconst { data, refundable } = await chargeport.refunds.list('ch_4Vd9TQ1aQm2xA7bC3dE5fG');`,
      },
    }),
  );
}

function registerWebhookEndpointPaths(registry: OpenAPIRegistry) {
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

function registerEventPaths(registry: OpenAPIRegistry) {
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

function registerTestHelperPaths(registry: OpenAPIRegistry) {
  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/test_helpers/charges/{chargeId}/pay',
      operationId: 'payTestCharge',
      tags: [TAGS.testHelpers],
      summary: 'Pay a test charge',
      description:
        "Makes the test-network payment of a test charge from a funded sandbox payer: a real transfer into the charge's deposit address on the test network (on a local development chain, the demo payer), which the chain watcher then sees like any payment — the charge goes `processing`, then `succeeded`, and your webhooks are sent. Pays what is still due, or `amount` (less → the charge stays underpaid; more → overpaid). Test keys and test charges only: a production key gets 403 `test_key_required`; a server that turned the helpers off (`TEST_HELPERS_ENABLED=false`, the default in production) answers 403 `forbidden`. A test network for which this server has no funded payer (`TEST_HELPERS_PAYER_KEY`) answers 503 `service_unavailable`.",
      security: SECRET,
      request: {
        params: chargeIdParam,
        headers: idempotencyHeader('Same key → the same payment again, never a second transfer.'),
        body: { required: false, content: json(payTestChargeBodySchema, { amount: '0.1' }) },
      },
      responses: {
        200: ok(
          'The transfer was mined; the watcher settles the charge within seconds.',
          envelope(testPaymentSchema, 'TestPaymentResponse'),
          {
            object: 'test_payment',
            chargeId: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG',
            chain: 'POLYGON_AMOY',
            txHash: '0x8f0d3a2c1e5b4d6f7a9b0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5e6f7',
            fromAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
            toAddress: '0x2546BcD3c84621e976D8185a91A922aE77ECEc30',
            amount: '0.3',
            amountBaseUnits: '300000000000000000',
          },
          { replayable: true },
        ),
        ...errorResponses([
          ...SECRET_KEY_ERRORS,
          ...BODY_ERRORS,
          'test_key_required',
          'forbidden',
          'not_found',
          'charge_not_payable',
          'invalid_amount',
          'idempotency_conflict',
          'service_unavailable',
          'chain_unavailable',
        ]),
      },
      samples: {
        curl: 'curl -s -X POST $CHARGEPORT_URL/api/test_helpers/charges/ch_4Vd9TQ1aQm2xA7bC3dE5fG/pay -H "x-api-key: $CHARGEPORT_TEST_KEY"',
        node: `import { Chargeport } from '@chargeport/node';\nconst chargeport = new Chargeport({ apiKey: process.env.CHARGEPORT_TEST_KEY });\nconst { chargeId } = await chargeport.charges.create({ chargeData: { chain: 'POLYGON', symbol: 'POL', tokenAddress: '0x0000000000000000000000000000000000000000', amount: '0.3' }, isTest: true });\nawait chargeport.testHelpers.payCharge(chargeId);\n// then wait for charge.succeeded on your webhook endpoint`,
      },
    }),
  );
}

function registerHealthPaths(registry: OpenAPIRegistry) {
  const healthJson = (schema: z.ZodType, example: unknown) => ({ 'application/json': { schema, example } });
  const polygon = { status: 'ok', head: 68123456, cursor: 68123455, lagBlocks: 1 };
  const report = (status: 'ok' | 'down') => ({
    status,
    db: status === 'ok' ? 'ok' : 'unreachable',
    migrations: status === 'ok' ? 'applied' : 'unknown',
    chains: { POLYGON: polygon, SOLANA: { status: 'not_configured', head: null, cursor: null, lagBlocks: null } },
    queue: { queued: 0, ready: 0 },
    webhooks: { oldestDueDeliverySeconds: null, oldestUnrelayedEventSeconds: null },
  });
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/health',
      operationId: 'getHealth',
      tags: [TAGS.health],
      summary: 'Service health (full report)',
      description:
        "Readiness, each chain (ok, unreachable or not_configured, and its watcher's lag in blocks), the job queue's depth and the age of the oldest webhook work waiting. 200 while the instance can serve, also when a chain is unreachable (status degraded); 503 when it cannot (status down).",
      security: NO_AUTH,
      responses: {
        200: { description: 'Serving: status ok or degraded.', content: healthJson(healthReportSchema, report('ok')) },
        503: {
          description: 'Not serving: status down (database unreachable or migrations pending).',
          content: healthJson(healthReportSchema, report('down')),
        },
      },
      samples: { curl: 'curl -s $CHARGEPORT_URL/api/health', node: 'const report = await (await fetch(`${url}/api/health`)).json();' },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/health/ready',
      operationId: 'getReadiness',
      tags: [TAGS.health],
      summary: 'Readiness probe',
      description: 'For load balancers: the database answers and every migration is applied. Chains are not checked.',
      security: NO_AUTH,
      responses: {
        200: { description: 'Ready.', content: healthJson(readinessSchema, { status: 'ready', db: 'ok', migrations: 'applied' }) },
        503: { description: 'Not ready.', content: healthJson(readinessSchema, { status: 'not_ready', db: 'ok', migrations: 'pending' }) },
      },
      samples: { curl: 'curl -s $CHARGEPORT_URL/api/health/ready', node: 'const ready = (await fetch(`${url}/api/health/ready`)).ok;' },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/health/live',
      operationId: 'getLiveness',
      tags: [TAGS.health],
      summary: 'Liveness probe',
      description: 'The process answers; nothing else is checked.',
      security: NO_AUTH,
      responses: { 200: { description: 'Alive.', content: healthJson(livenessSchema, { status: 'ok' }) } },
      samples: { curl: 'curl -s $CHARGEPORT_URL/api/health/live', node: 'const alive = (await fetch(`${url}/api/health/live`)).ok;' },
    }),
  );
}

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

function registerWebhooks(registry: OpenAPIRegistry) {
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

function apiDescription(): string {
  return `Crypto payments for games and apps: create a **charge**, send the buyer to its \`paymentUrl\` (the hosted checkout), and learn that it was paid from a **webhook**.

# Authentication

Send your API key in the \`x-api-key\` header. **Secret keys** (\`cp_test_…\`, \`cp_live_…\`) are for your server and can call every operation. **Publishable keys** (\`cp_pub_test_…\`, \`cp_pub_live_…\`) are safe in a browser and may only create charges paid to you and read them (\`createCharge\`, \`getCharge\`). The key decides the mode: a test key sees and makes only test charges (on test networks, no real money), a live key only live ones.

# Responses and errors

Every response is \`{ data, error }\`. On success \`error\` is null. On failure \`data\` is null, the HTTP status is not 200, and \`error\` is \`{ code, message, param? }\`: \`code\` is one of the stable codes below, \`message\` says what to fix, \`param\` is the dotted path of the field at fault (\`chargeData.items.0.amount\`). Every response carries \`x-request-id\`; quote it to support. Over the per-key rate limit you get \`429 rate_limited\` with \`Retry-After\` (seconds).

${errorTableMarkdown()}

# Idempotency

Send \`Idempotency-Key\` (1–255 printable characters) on a POST to retry it safely: the same key with the same body answers the first response again, with \`Idempotent-Replayed: true\`, for at least 24 hours; the same key with another body is \`409 idempotency_conflict\`. A failed request stores nothing. The Node SDK sends a generated key on every POST and reuses it for its retries.

# Pagination

Lists answer \`{ object: "list", data, has_more }\`, newest first. Ask for the next page with \`starting_after\` = the id of the last item while \`has_more\` is true. The Node SDK's \`list()\` methods are async iterators that do this.

# Prices in US dollars

\`chargeData.pricing: { currency: "USD", amount: "4.99" }\` instead of token amounts: at creation the price is converted to the token at its USD rate and **rounded up** to the token's smallest unit (the merchant never gets less than the price); the rate is recorded on the charge (\`pricing.rate\`, \`rateSource\`, \`rateAt\`) and **locked for its lifetime**. USD stablecoins (USDC, USDT) are at par. Other tokens use the price feed's last rate if it is at most 15 minutes old; otherwise the charge is refused with \`422 price_unavailable\`. With \`items\`, their \`amount\`s are USD unit prices that must add up to \`pricing.amount\`; each is converted on its own and the charge total is the sum of the lines. The arithmetic is exact (integers, never floats).

# Webhooks

Create an endpoint (\`POST /api/webhook-endpoints\`, or the dashboard) and Chargeport POSTs each event of its mode to it: the event types and their payloads are under **Webhooks** below; \`GET /api/events\` lists the same events.

## Signing

Every delivery carries three headers, per [Standard Webhooks](https://www.standardwebhooks.com):

- \`webhook-id\`: the event id, the same on every retry (deduplicate on it);
- \`webhook-timestamp\`: Unix seconds when this attempt was sent;
- \`webhook-signature\`: \`v1,<signature>\`, where the signature is the base64 HMAC-SHA256 of \`<webhook-id>.<webhook-timestamp>.<raw body>\` keyed with the base64-decoded part of your secret after \`whsec_\`. During a secret rotation two signatures are sent, separated by a space.

## Verifying

Verify the **raw** body (before any JSON parsing), refuse timestamps more than 5 minutes from your clock, compare signatures in constant time, and accept when any one matches. The SDKs do all of this:

\`\`\`js
// Node (@chargeport/node): returns the event, typed by its \`type\`, or throws
const event = chargeport.webhooks.constructEvent(rawBody, request.headers, process.env.CHARGEPORT_WEBHOOK_SECRET);
// Browser / edge runtimes (@chargeport/web)
const event = await verifyWebhook({ secret, body: rawBody, headers: request.headers });
\`\`\`

Any Standard Webhooks library works too. Answer 2xx within 10 seconds; anything else is retried for about three days (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h). \`410 Gone\` disables the endpoint.

## On your laptop

Test-mode endpoints may target \`http://localhost\` (outside production). To drive events without a wallet, create a test charge and pay it with \`POST /api/test_helpers/charges/{chargeId}/pay\`; to watch them live without a public URL, read \`GET /api/events/stream\` (\`chargeport.events.stream()\` in the Node SDK).
`;
}

/**
 * What an app calls with a "Sign in with Chargeport" access token (Authorization: Bearer), not an API
 * key: the user's balances and in-app pay. The OpenID endpoints themselves are described by discovery.
 */
function registerOAuthPaths(registry: OpenAPIRegistry, serverUrl: string) {
  registry.registerComponent('securitySchemes', 'ChargeportOAuth', {
    type: 'openIdConnect',
    openIdConnectUrl: `${serverUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`,
    description:
      'An access token from "Sign in with Chargeport" (authorization code with PKCE, or the device flow), sent as `Authorization: Bearer <token>`.',
  });
  const TOKEN_ERRORS = ['invalid_access_token', 'insufficient_scope', 'rate_limited', 'internal_error'] as const;
  const walletHome = z
    .object({
      wallets: z.array(
        z.object({
          id: z.string(),
          family: z.string().meta({ example: 'evm' }),
          address: z.string(),
          chains: z.array(
            z.object({
              chain: z.string().meta({ example: 'POLYGON' }),
              displayName: z.string(),
              isTestnet: z.boolean(),
              status: z.enum(['ok', 'not_connected', 'unreachable']),
              tokens: z.array(
                z.object({
                  symbol: z.string(),
                  name: z.string(),
                  tokenAddress: z.string(),
                  isNative: z.boolean(),
                  baseUnits: z.string().nullable().meta({ description: 'Base units as a decimal string; null when unreadable' }),
                  amount: z.string().nullable().meta({ example: '12.5' }),
                  usd: z.string().optional().meta({ example: '12.50' }),
                }),
              ),
            }),
          ),
        }),
      ),
      totalUsd: z.string().meta({ example: '1234.56' }),
      isTotalPartial: z.boolean(),
    })
    .meta({ id: 'WalletBalances' });
  const exampleRequest = {
    id: 'opr_4fRq9TQ1aQm2xA7bC3dE5f',
    chargeId: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG',
    status: 'pending',
    chargeStatus: 'pending',
    userCode: 'BCDF-GHJK',
    verificationUri: 'https://pay.example.com/oauth/pay',
    verificationUriComplete: 'https://pay.example.com/oauth/pay?code=BCDF-GHJK',
    expiresAt: '2026-11-24T12:10:00.000Z',
    interval: 2,
    txHash: null,
  };
  const bearer = `-H "Authorization: Bearer $ACCESS_TOKEN"`;
  const fetchSample = (method: string, path: string, body?: string) =>
    `// The app holds the user's access token ("Sign in with Chargeport"), never an API key.\nconst res = await fetch(\`\${CHARGEPORT_URL}${path}\`, {\n  method: '${method}',\n  headers: { Authorization: \`Bearer \${accessToken}\`${body ? ", 'Content-Type': 'application/json'" : ''} },${body ? `\n  body: JSON.stringify(${body}),` : ''}\n});`;
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/oauth/balances',
      operationId: 'getOAuthBalances',
      tags: [TAGS.inApp],
      summary: "The signed-in user's addresses and balances",
      description: 'Needs the `wallet:read` scope.',
      security: [{ ChargeportOAuth: ['wallet:read'] }],
      responses: {
        200: ok('Wallets, per chain and token.', envelope(walletHome, 'WalletBalancesResponse'), {
          wallets: [
            {
              id: 'wal_4Vd9TQ1aQm2xA7bC3dE5fG',
              family: 'evm',
              address: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
              chains: [
                {
                  chain: 'POLYGON',
                  displayName: 'Polygon',
                  isTestnet: false,
                  status: 'ok',
                  tokens: [
                    {
                      symbol: 'USDC',
                      name: 'USD Coin',
                      tokenAddress: POLYGON_USDC_EXAMPLE,
                      isNative: false,
                      baseUnits: '12500000',
                      amount: '12.5',
                      usd: '12.50',
                    },
                  ],
                },
              ],
            },
          ],
          totalUsd: '12.50',
          isTotalPartial: false,
        }),
        ...errorResponses([...TOKEN_ERRORS]),
      },
      samples: {
        curl: `curl -s $CHARGEPORT_URL/api/oauth/balances ${bearer}`,
        node: fetchSample('GET', '/api/oauth/balances'),
        web: `const balances = await chargeport.getBalances(); // after chargeport.signIn()`,
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/oauth/payment-requests',
      operationId: 'createPaymentRequest',
      tags: [TAGS.inApp],
      summary: "Ask the signed-in user to pay one of this app's merchant's charges",
      description:
        "Needs the `payments` scope. The user confirms with the PIN on Chargeport, never in the app: open `verificationUriComplete` in a popup (web), or show `userCode` and `verificationUri` (games, devices). Poll the request until `status` leaves pending. Another merchant's charge answers not_found. Asking again for the same charge returns the pending request.",
      security: [{ ChargeportOAuth: ['payments'] }],
      request: { body: { required: true, content: json(createPaymentRequestSchema, { chargeId: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG' }) } },
      responses: {
        201: { ...ok('The pending request.', envelope(paymentRequestSchema, 'PaymentRequestResponse'), exampleRequest) },
        ...errorResponses([...TOKEN_ERRORS, 'invalid_request', 'invalid_json', 'not_found', 'charge_not_payable']),
      },
      samples: {
        curl: `curl -s $CHARGEPORT_URL/api/oauth/payment-requests ${bearer} \\\n  -H 'Content-Type: application/json' -d '{"chargeId":"ch_4Vd9TQ1aQm2xA7bC3dE5fG"}'`,
        node: fetchSample('POST', '/api/oauth/payment-requests', "{ chargeId: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG' }"),
        web: `const result = await chargeport.pay('ch_4Vd9TQ1aQm2xA7bC3dE5fG'); // opens Chargeport's PIN popup`,
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/oauth/payment-requests/{requestId}',
      operationId: 'getPaymentRequest',
      tags: [TAGS.inApp],
      summary: 'A payment request (poll every `interval` seconds)',
      description: 'Needs the `payments` scope; only the app and user that created it see it.',
      security: [{ ChargeportOAuth: ['payments'] }],
      request: { params: z.object({ requestId: z.string().meta({ example: 'opr_4fRq9TQ1aQm2xA7bC3dE5f' }) }) },
      responses: {
        200: ok('The request.', envelope(paymentRequestSchema, 'PaymentRequestResponse'), { ...exampleRequest, status: 'confirmed' }),
        ...errorResponses([...TOKEN_ERRORS, 'not_found']),
      },
      samples: {
        curl: `curl -s $CHARGEPORT_URL/api/oauth/payment-requests/opr_4fRq9TQ1aQm2xA7bC3dE5f ${bearer}`,
        node: fetchSample('GET', '/api/oauth/payment-requests/opr_4fRq9TQ1aQm2xA7bC3dE5f'),
      },
    }),
  );
}
