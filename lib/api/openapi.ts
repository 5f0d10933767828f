/**
 * The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. Served at
 * /api/openapi.json, rendered at /docs/api, and the source of the SDK's generated types.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  chargeListSchema,
  chargeSchema,
  createChargeBodySchema,
  createChargeResultSchema,
  errorSchema,
  listChargesQuerySchema,
} from '@/lib/charges/schemas';
import { ERROR_STATUS } from '@/lib/errors';
import { healthReportSchema, livenessSchema, readinessSchema } from '@/lib/health/schemas';
import { createRefundBodySchema, refundListSchema, refundSchema } from '@/lib/refunds/schemas';
import {
  createWebhookEndpointBodySchema,
  deletedWebhookEndpointSchema,
  listEventsQuerySchema,
  rotateWebhookSecretBodySchema,
  updateWebhookEndpointBodySchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
  webhookEventListSchema,
  webhookEventSchema,
} from '@/lib/webhooks/schemas';
import { WEBHOOK_EVENT_TYPES } from '@/lib/webhooks/event-types';
import { createPaymentRequestSchema, paymentRequestSchema } from '@/lib/oauth/schemas';

const envelope = <T extends z.ZodType>(data: T, id: string) => z.object({ data, error: z.null() }).meta({ id });
const errorEnvelope = z.object({ data: z.null(), error: errorSchema }).meta({ id: 'ErrorResponse' });

function errorResponses(codes: (keyof typeof ERROR_STATUS)[]) {
  const byStatus = new Map<number, string[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      { description: `error.code: ${list.join(', ')}`, content: { 'application/json': { schema: errorEnvelope } } },
    ]),
  );
}

const AUTH_ERRORS = ['missing_api_key', 'invalid_api_key', 'rate_limited', 'internal_error'] as const;
const chargeIdParam = z.object({ chargeId: z.string().meta({ example: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG' }) });
const endpointIdParam = z.object({ endpointId: z.string().meta({ example: 'we_4Vd9TQ1aQm2xA7bC3dE5fG' }) });
/** Routes only secret keys may call. */
const SECRET_KEY_ERRORS = [...AUTH_ERRORS, 'key_not_permitted'] as const;

export function buildOpenApiDocument(serverUrl: string) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', { type: 'apiKey', in: 'header', name: 'x-api-key' });
  const security = [{ ApiKey: [] }];

  registry.registerPath({
    method: 'post',
    path: '/api/createCharge',
    operationId: 'createCharge',
    summary: 'Create a charge',
    description:
      "Creates a charge for the merchant that owns the key and returns its hosted-checkout URL. A test key makes test charges (on the chain's test network, native token only); a production key makes live charges. Send an Idempotency-Key header to retry safely. Publishable keys may call this from a browser but cannot set toAddress or isDirectTransfer.",
    security,
    request: {
      headers: z.object({
        'Idempotency-Key': z
          .string()
          .max(255)
          .optional()
          .meta({ description: 'Same key + same body → the same response again (kept ≥ 24 h); same key + other body → 409.' }),
      }),
      body: { required: true, content: { 'application/json': { schema: createChargeBodySchema } } },
    },
    responses: {
      200: {
        description: 'Charge created.',
        content: { 'application/json': { schema: envelope(createChargeResultSchema, 'CreateChargeResponse') } },
      },
      ...errorResponses([
        ...AUTH_ERRORS,
        'invalid_request',
        'invalid_json',
        'payload_too_large',
        'unsupported_media_type',
        'unsupported_chain',
        'chain_not_configured',
        'unsupported_token',
        'invalid_address',
        'invalid_amount',
        'amount_mismatch',
        'test_key_required',
        'live_key_required',
        'verification_required',
        'key_not_permitted',
        'idempotency_conflict',
      ]),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/api/charges/{chargeId}',
    operationId: 'getCharge',
    summary: 'Retrieve a charge',
    description: "One charge of the key's merchant and mode, with its timeline. Other merchants' charges are 404.",
    security,
    request: { params: chargeIdParam },
    responses: {
      200: { description: 'The charge.', content: { 'application/json': { schema: envelope(chargeSchema, 'ChargeResponse') } } },
      ...errorResponses([...AUTH_ERRORS, 'not_found']),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/api/charges',
    operationId: 'listCharges',
    summary: 'List charges',
    description: "The key's charges, newest first. Page with `starting_after` = the last id of the previous page while `has_more` is true.",
    security,
    request: { query: listChargesQuerySchema },
    responses: {
      200: {
        description: 'A page of charges.',
        content: { 'application/json': { schema: envelope(chargeListSchema, 'ChargeListResponse') } },
      },
      ...errorResponses([...AUTH_ERRORS, 'invalid_request', 'key_not_permitted', 'test_key_required', 'live_key_required']),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/api/charges/{chargeId}/cancel',
    operationId: 'cancelCharge',
    summary: 'Cancel a pending charge',
    security,
    request: { params: chargeIdParam },
    responses: {
      200: {
        description: 'The canceled charge.',
        content: { 'application/json': { schema: envelope(chargeSchema, 'CanceledChargeResponse') } },
      },
      ...errorResponses([...AUTH_ERRORS, 'not_found', 'charge_not_cancelable', 'payment_in_progress', 'key_not_permitted']),
    },
  });

  registerRefundPaths(registry, security);
  registerWebhookPaths(registry, security);
  registerOAuthPaths(registry, serverUrl);

  const healthJson = (schema: z.ZodType) => ({ 'application/json': { schema } });
  registry.registerPath({
    method: 'get',
    path: '/api/health',
    operationId: 'getHealth',
    summary: 'Service health (full report)',
    description:
      "Readiness, each chain (ok, unreachable or not_configured, and its watcher's lag in blocks), the job queue's depth and the age of the oldest webhook work waiting. 200 while the instance can serve, also when a chain is unreachable (status degraded); 503 when it cannot (status down).",
    responses: {
      200: { description: 'Serving: status ok or degraded.', content: healthJson(healthReportSchema) },
      503: {
        description: 'Not serving: status down (database unreachable or migrations pending).',
        content: healthJson(healthReportSchema),
      },
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/health/ready',
    operationId: 'getReadiness',
    summary: 'Readiness probe',
    description: 'For load balancers: the database answers and every migration is applied. Chains are not checked.',
    responses: {
      200: { description: 'Ready.', content: healthJson(readinessSchema) },
      503: { description: 'Not ready.', content: healthJson(readinessSchema) },
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/health/live',
    operationId: 'getLiveness',
    summary: 'Liveness probe',
    description: 'The process answers; nothing else is checked.',
    responses: { 200: { description: 'Alive.', content: healthJson(livenessSchema) } },
  });

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Chargeport API',
      version: '1.0.0',
      description:
        'Create charges and follow them. Every response is `{ data, error }`: on success `error` is null; on failure `data` is null, `error` has a stable `code`, a `message`, and `param` when a field is at fault, and the HTTP status is not 200.',
    },
    servers: [{ url: serverUrl }],
  });
}

function registerRefundPaths(registry: OpenAPIRegistry, security: { ApiKey: never[] }[]) {
  const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });
  registry.registerPath({
    method: 'post',
    path: '/api/charges/{chargeId}/refunds',
    operationId: 'createRefund',
    summary: 'Refund a charge',
    description:
      "Refunds (part of) what a charge received — over- and late payments included — back to the address that paid (or `toAddress`). Paid from the charge's deposit address before its sweep, from your merchant wallet after it; the network fee is covered. The refund is `pending`, then `submitted`, then `succeeded` or `failed` (webhooks refund.created, refund.succeeded, refund.failed). Send an Idempotency-Key header to retry safely: the same key is the same refund. Secret keys only.",
    security,
    request: {
      params: chargeIdParam,
      headers: z.object({
        'Idempotency-Key': z
          .string()
          .max(255)
          .optional()
          .meta({ description: 'Same key → the same refund; same key with another amount or destination → 409.' }),
      }),
      body: { required: false, content: json(createRefundBodySchema) },
    },
    responses: {
      200: { description: 'The refund.', content: json(envelope(refundSchema, 'RefundResponse')) },
      ...errorResponses([
        ...SECRET_KEY_ERRORS,
        'invalid_request',
        'invalid_json',
        'invalid_amount',
        'invalid_address',
        'not_found',
        'refund_exceeds_refundable',
        'refund_destination_required',
        'refund_not_possible',
        'idempotency_conflict',
        'insufficient_balance',
        'gas_sponsorship_limit',
        'gas_tank_empty',
        'chain_unavailable',
      ]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/charges/{chargeId}/refunds',
    operationId: 'listRefunds',
    summary: "List a charge's refunds",
    description: 'The refunds of a charge, oldest first, and what can still be refunded.',
    security,
    request: { params: chargeIdParam },
    responses: {
      200: { description: 'The refunds.', content: json(envelope(refundListSchema, 'RefundListResponse')) },
      ...errorResponses([...SECRET_KEY_ERRORS, 'not_found']),
    },
  });
}

function registerWebhookPaths(registry: OpenAPIRegistry, security: { ApiKey: never[] }[]) {
  const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });
  registry.registerPath({
    method: 'post',
    path: '/api/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description:
      "Creates an endpoint in the key's mode and returns it with its signing secret (`whsec_…`), shown only in this response. Live endpoints must be https:// to a public address. Deliveries are signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature headers).",
    security,
    request: { body: { required: true, content: json(createWebhookEndpointBodySchema) } },
    responses: {
      200: {
        description: 'The endpoint and its secret.',
        content: json(envelope(webhookEndpointWithSecretSchema, 'WebhookEndpointWithSecretResponse')),
      },
      ...errorResponses([
        ...SECRET_KEY_ERRORS,
        'invalid_request',
        'invalid_json',
        'payload_too_large',
        'unsupported_media_type',
        'invalid_webhook_url',
        'webhook_endpoint_limit',
      ]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    description: "The key's endpoints (its merchant and mode), oldest first.",
    security,
    responses: {
      200: { description: 'The endpoints.', content: json(envelope(webhookEndpointListSchema, 'WebhookEndpointListResponse')) },
      ...errorResponses([...SECRET_KEY_ERRORS]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/webhook-endpoints/{endpointId}',
    operationId: 'getWebhookEndpoint',
    summary: 'Retrieve a webhook endpoint',
    security,
    request: { params: endpointIdParam },
    responses: {
      200: { description: 'The endpoint.', content: json(envelope(webhookEndpointSchema, 'WebhookEndpointResponse')) },
      ...errorResponses([...SECRET_KEY_ERRORS, 'not_found']),
    },
  });
  registry.registerPath({
    method: 'patch',
    path: '/api/webhook-endpoints/{endpointId}',
    operationId: 'updateWebhookEndpoint',
    summary: 'Update a webhook endpoint',
    description:
      'Changes its URL, event types, description or enabled flag. Enabling an endpoint that a 410 answer disabled makes it active again.',
    security,
    request: { params: endpointIdParam, body: { required: true, content: json(updateWebhookEndpointBodySchema) } },
    responses: {
      200: { description: 'The updated endpoint.', content: json(envelope(webhookEndpointSchema, 'UpdatedWebhookEndpointResponse')) },
      ...errorResponses([
        ...SECRET_KEY_ERRORS,
        'not_found',
        'invalid_request',
        'invalid_json',
        'payload_too_large',
        'unsupported_media_type',
        'invalid_webhook_url',
      ]),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/webhook-endpoints/{endpointId}',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    security,
    request: { params: endpointIdParam },
    responses: {
      200: { description: 'Deleted.', content: json(envelope(deletedWebhookEndpointSchema, 'DeletedWebhookEndpointResponse')) },
      ...errorResponses([...SECRET_KEY_ERRORS, 'not_found']),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/webhook-endpoints/{endpointId}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook endpoint's signing secret",
    description:
      'Returns a new secret, shown only in this response. The previous secret keeps signing next to it for `overlapHours` (default 24), so every delivery meanwhile carries both signatures.',
    security,
    request: { params: endpointIdParam, body: { required: false, content: json(rotateWebhookSecretBodySchema) } },
    responses: {
      200: {
        description: 'The endpoint and its new secret.',
        content: json(envelope(webhookEndpointWithSecretSchema, 'RotatedWebhookSecretResponse')),
      },
      ...errorResponses([
        ...SECRET_KEY_ERRORS,
        'not_found',
        'invalid_request',
        'invalid_json',
        'payload_too_large',
        'unsupported_media_type',
      ]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/events',
    operationId: 'listEvents',
    summary: 'List webhook events',
    description:
      "Every webhook event of the key's merchant and mode, newest first, exactly as delivered, whether or not an endpoint received it: reconcile missed deliveries from here. Page with `starting_after` = the last id of the previous page while `has_more` is true.",
    security,
    request: { query: listEventsQuerySchema },
    responses: {
      200: { description: 'A page of events.', content: json(envelope(webhookEventListSchema, 'WebhookEventListResponse')) },
      ...errorResponses([...SECRET_KEY_ERRORS, 'invalid_request']),
    },
  });
  for (const type of WEBHOOK_EVENT_TYPES) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `webhook_${type.replace('.', '_')}`,
      summary: `${type} event`,
      description:
        'POSTed to each enabled endpoint subscribed to this type, signed per Standard Webhooks. Answer 2xx within 10 s; other answers are retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (±20%); 410 disables the endpoint.',
      request: { body: { required: true, content: json(webhookEventSchema) } },
      responses: { 200: { description: 'Any 2xx: delivered.' } },
    });
  }
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
  const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });
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
  registry.registerPath({
    method: 'get',
    path: '/api/oauth/balances',
    operationId: 'getOAuthBalances',
    summary: "The signed-in user's addresses and balances",
    description: 'Needs the `wallet:read` scope.',
    security: [{ ChargeportOAuth: ['wallet:read'] }],
    responses: {
      200: { description: 'Wallets, per chain and token.', content: json(envelope(walletHome, 'WalletBalancesResponse')) },
      ...errorResponses([...TOKEN_ERRORS]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/oauth/payment-requests',
    operationId: 'createPaymentRequest',
    summary: "Ask the signed-in user to pay one of this app's merchant's charges",
    description:
      "Needs the `payments` scope. The user confirms with the PIN on Chargeport, never in the app: open `verificationUriComplete` in a popup (web), or show `userCode` and `verificationUri` (games, devices). Poll the request until `status` leaves pending. Another merchant's charge answers not_found. Asking again for the same charge returns the pending request.",
    security: [{ ChargeportOAuth: ['payments'] }],
    request: { body: { required: true, content: json(createPaymentRequestSchema) } },
    responses: {
      201: { description: 'The pending request.', content: json(envelope(paymentRequestSchema, 'PaymentRequestResponse')) },
      ...errorResponses([...TOKEN_ERRORS, 'invalid_request', 'not_found', 'charge_not_payable']),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/oauth/payment-requests/{requestId}',
    operationId: 'getPaymentRequest',
    summary: 'A payment request (poll every `interval` seconds)',
    description: 'Needs the `payments` scope; only the app and user that created it see it.',
    security: [{ ChargeportOAuth: ['payments'] }],
    request: { params: z.object({ requestId: z.string().meta({ example: 'opr_4fR…' }) }) },
    responses: {
      200: { description: 'The request.', content: json(envelope(paymentRequestSchema, 'PaymentRequestResponse')) },
      ...errorResponses([...TOKEN_ERRORS, 'not_found']),
    },
  });
}
