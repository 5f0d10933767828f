import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '@/lib/errors';
import { chargeSchema, createChargeBodySchema, createChargeResultSchema } from '@/lib/charges/schemas';
import { refundSchema } from '@/lib/refunds/schemas';
import { webhookEndpointSchema } from '@/lib/webhooks/schemas';
import { webhookEventSchema, webhookEventSchemas } from '@/lib/api/webhook-event-schemas';
import { WEBHOOK_EVENT_TYPES } from '@/lib/webhooks/event-types';
import {
  exampleCharge,
  exampleCreateChargeRequest,
  exampleCreateChargeResult,
  exampleEvent,
  examplePaidCharge,
  exampleRefund,
  exampleUsdPricedRequest,
  exampleWebhookEndpoint,
} from '@/lib/api/openapi-examples';
import { GET } from './route';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** The probes, the metrics, this document and the providers' webhooks answer in their own formats, not the API's envelope. */
const OWN_FORMAT = ['/api/health', '/api/metrics', '/api/openapi.json', '/api/onramp/webhooks/'];
/** Public routes that no key (and so no per-key rate limit) guards: keyless reads or others' signatures. */
const KEYLESS = [...OWN_FORMAT, '/api/onramp/', '/api/checkout/'];

async function documentJson() {
  return GET().json();
}

function operations(doc: any): [string, string, any][] {
  return Object.entries(doc.paths as Record<string, any>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => [path, method, item[method]] as [string, string, any]),
  );
}

describe('GET /api/openapi.json', () => {
  it('is an OpenAPI 3.1 document of every route, generated from the zod schemas', async () => {
    const doc = await documentJson();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api/charges',
        '/api/charges/{chargeId}',
        '/api/charges/{chargeId}/cancel',
        '/api/charges/{chargeId}/refunds',
        '/api/checkout/{chargeId}/events',
        '/api/checkout/{chargeId}/status',
        '/api/createCharge',
        '/api/events',
        '/api/events/stream',
        '/api/health',
        '/api/health/live',
        '/api/health/ready',
        '/api/metrics',
        '/api/oauth/balances',
        '/api/oauth/payment-requests',
        '/api/oauth/payment-requests/{requestId}',
        '/api/onramp/orders/{orderId}',
        '/api/onramp/quote',
        '/api/onramp/webhooks/{providerId}',
        '/api/openapi.json',
        '/api/test_helpers/charges/{chargeId}/pay',
        '/api/webhook-endpoints',
        '/api/webhook-endpoints/{endpointId}',
        '/api/webhook-endpoints/{endpointId}/rotate-secret',
      ].sort(),
    );
    // In-app pay is called with a "Sign in with Chargeport" access token, never an API key.
    expect(doc.components.securitySchemes.ChargeportOAuth).toMatchObject({ type: 'openIdConnect' });
    expect(doc.paths['/api/oauth/payment-requests'].post.security).toEqual([{ ChargeportOAuth: ['payments'] }]);
    expect(doc.paths['/api/oauth/balances'].get.security).toEqual([{ ChargeportOAuth: ['wallet:read'] }]);
    const request = doc.components.schemas.CreateChargeRequest;
    expect(request.required).toEqual(['chargeData']);
    expect(Object.keys(request.properties).sort()).toEqual(['chargeData', 'isDirectTransfer', 'isTest']);
    const chargeData = doc.components.schemas.ChargeData;
    expect(chargeData.required.sort()).toEqual(['chain', 'symbol', 'tokenAddress']);
    expect(Object.keys(chargeData.properties)).toEqual(
      expect.arrayContaining(['symbol', 'chain', 'tokenAddress', 'successUrl', 'cancelUrl', 'items', 'amount', 'pricing', 'toAddress']),
    );
    expect(doc.components.schemas.ChargeItem.required.sort()).toEqual(['amount', 'name', 'quantity']);
  });

  it('says which key each operation takes: secret, or secret or publishable (createCharge, getCharge); none for health and the on-ramp pages', async () => {
    const doc = await documentJson();
    expect(doc.components.securitySchemes).toEqual({
      SecretKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
      PublishableKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
      ChargeportOAuth: expect.objectContaining({ type: 'openIdConnect' }),
      MetricsToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(doc.paths['/api/metrics'].get.security).toEqual([{ MetricsToken: [] }]);
    for (const [path, method, op] of operations(doc)) {
      if (path.startsWith('/api/oauth/') || path === '/api/metrics') continue; // access token, operator token: checked above
      const expected = KEYLESS.some((prefix) => path.startsWith(prefix))
        ? []
        : ['createCharge', 'getCharge'].includes(op.operationId)
          ? [{ SecretKey: [] }, { PublishableKey: [] }]
          : [{ SecretKey: [] }];
      expect(op.security, `${method} ${path}`).toEqual(expected);
    }
  });

  it('gives every operation a tag, a summary, code samples (curl and the Node SDK), and response headers', async () => {
    const doc = await documentJson();
    const tagNames = doc.tags.map((tag: { name: string }) => tag.name);
    for (const [path, method, op] of operations(doc)) {
      const where = `${method} ${path}`;
      expect(op.tags?.length, where).toBe(1);
      expect(tagNames, where).toContain(op.tags[0]);
      expect(op.summary, where).toBeTruthy();
      expect(
        op['x-codeSamples'].map((s: { label: string }) => s.label),
        where,
      ).toEqual(expect.arrayContaining(['curl', 'Node SDK']));
      if (OWN_FORMAT.some((prefix) => path.startsWith(prefix))) continue;
      const usesKey = (op.security ?? []).some((scheme: object) => 'SecretKey' in scheme || 'PublishableKey' in scheme);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        expect(response.headers?.['x-request-id'], `${where} ${status}`).toEqual({ $ref: '#/components/headers/RequestId' });
        if (status === '429') expect(response.headers['Retry-After'], `${where} 429`).toEqual({ $ref: '#/components/headers/RetryAfter' });
        // x-api-key operations: the API version and the key's budget on every answer (lib/api/with-api-key.ts).
        if (!usesKey) continue;
        for (const header of ['ChargeportVersion', 'RateLimitLimit', 'RateLimitRemaining', 'RateLimitReset']) {
          const name = header.replace(/^ChargeportVersion$/, 'Chargeport-Version').replace(/^RateLimit(?=[A-Z])/, 'RateLimit-');
          expect(response.headers[name], `${where} ${status} ${name}`).toEqual({ $ref: `#/components/headers/${header}` });
        }
      }
      if (usesKey) {
        expect(op.parameters, `${where} Chargeport-Version`).toContainEqual({ $ref: '#/components/parameters/ChargeportVersion' });
        expect(op.responses['400']?.description, `${where} documents unsupported_api_version`).toContain('unsupported_api_version');
      }
      // Keyless reads by an unguessable id: no per-key rate limit.
      if (['/api/onramp/orders/{orderId}', '/api/checkout/{chargeId}/status'].includes(path)) continue;
      expect(op.responses['429'], `${where} documents rate_limited`).toBeDefined();
    }
    for (const id of ['createCharge', 'createRefund', 'payTestCharge']) {
      const [, , op] = operations(doc).find(([, , o]) => o.operationId === id)!;
      expect(op.responses['200'].headers['Idempotent-Replayed'], id).toEqual({ $ref: '#/components/headers/IdempotentReplayed' });
    }
    expect(Object.keys(doc.components.headers).sort()).toEqual([
      'ChargeportVersion',
      'IdempotentReplayed',
      'RateLimitLimit',
      'RateLimitRemaining',
      'RateLimitReset',
      'RequestId',
      'RetryAfter',
    ]);
    const web = operations(doc).find(([, , o]) => o.operationId === 'createCharge')![2]['x-codeSamples'];
    expect(web.map((s: { label: string }) => s.label)).toContain('Web SDK');
  });

  it('has an example for every request body and every response with content', async () => {
    const doc = await documentJson();
    const hasExample = (media: any) => media.example !== undefined || Object.keys(media.examples ?? {}).length > 0;
    for (const [path, method, op] of operations(doc)) {
      for (const media of Object.values(op.requestBody?.content ?? {})) expect(hasExample(media), `${method} ${path} request`).toBe(true);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        for (const media of Object.values(response.content ?? {})) expect(hasExample(media), `${method} ${path} ${status}`).toBe(true);
      }
    }
    for (const [type, item] of Object.entries(doc.webhooks as Record<string, any>)) {
      expect(hasExample(item.post.requestBody.content['application/json']), type).toBe(true);
    }
  });

  it("error.code is a closed enum: exactly the codes of lib/errors.ts's ERROR_STATUS", async () => {
    const doc = await documentJson();
    expect(doc.components.schemas.Error.properties.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    expect(doc.components.schemas.ErrorCode.enum).toEqual(ERROR_CODES);
    // The description's table lists every code too.
    for (const code of ERROR_CODES) expect(doc.info.description).toContain(`\`${code}\``);
  });

  it('documents every error code that createCharge can answer', async () => {
    const doc = await documentJson();
    const documented = Object.values(doc.paths['/api/createCharge'].post.responses)
      .map((r: any) => r.description as string)
      .join(' ');
    for (const code of [
      'missing_api_key',
      'invalid_api_key',
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
      'amount_below_minimum',
      'price_unavailable',
      'test_key_required',
      'live_key_required',
      'verification_required',
      'key_not_permitted',
      'origin_not_allowed',
      'redirect_not_allowed',
      'open_charge_limit',
      'idempotency_conflict',
      'rate_limited',
      'internal_error',
    ]) {
      expect(documented, code).toContain(`\`${code}\``);
    }
  });

  it('declares 403 origin_not_allowed on every route that lets a publishable key in (withApiKey allowPublishable)', async () => {
    const doc = await documentJson();
    const routes = readdirSync(path.resolve('app/api'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('route.ts'))
      .filter((file) => /allowPublishable:\s*true/.test(readFileSync(path.resolve('app/api', file), 'utf8')))
      .map((file) => `/api/${path.dirname(file).split(path.sep).join('/')}`.replace(/\[(\w+)\]/g, '{$1}'));
    expect(routes.sort()).toEqual(['/api/charges/{chargeId}', '/api/createCharge']);
    const publishable = operations(doc).filter(([, , op]) => op.security.some((s: object) => 'PublishableKey' in s));
    expect(publishable.map(([p]) => p).sort()).toEqual(routes);
    for (const [p, method, op] of publishable) {
      expect(op.responses['403']?.description, `${method} ${p}`).toContain('`origin_not_allowed`');
    }
  });

  it('writes dates as date-time strings', async () => {
    const doc = await documentJson();
    const { Charge, Refund, WebhookEndpoint, ChargeSucceededEvent } = doc.components.schemas;
    for (const field of ['createdAt', 'updatedAt', 'expiresAt'])
      expect(Charge.properties[field], field).toMatchObject({ format: 'date-time' });
    expect(Refund.properties.createdAt).toMatchObject({ format: 'date-time' });
    expect(WebhookEndpoint.properties.createdAt).toMatchObject({ format: 'date-time' });
    expect(ChargeSucceededEvent.properties.createdAt).toMatchObject({ format: 'date-time' });
    const created = doc.paths['/api/charges'].get.parameters.find((p: any) => p.name === 'created_gte');
    expect(created.schema).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('describes one typed payload per webhook event type, with the Standard Webhooks headers', async () => {
    const doc = await documentJson();
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const schemas = doc.components.schemas;
    for (const type of WEBHOOK_EVENT_TYPES) {
      const post = doc.webhooks[type].post;
      const ref = post.requestBody.content['application/json'].schema.$ref as string;
      const payload = schemas[ref.split('/').pop()!];
      expect(payload.properties.type, type).toMatchObject({ enum: [type] });
      expect(Object.keys(payload.properties.data.properties).sort(), type).toEqual(
        type === 'payment.failed'
          ? ['charge', 'paymentAttempt']
          : type === 'charge.payment_reversed'
            ? ['charge', 'reversedPayment']
            : type.startsWith('refund.')
              ? ['charge', 'refund']
              : type.startsWith('fulfilment.')
                ? ['charge', 'fulfilment']
                : ['charge'],
      );
      expect(payload.properties.data.required, type).toEqual(Object.keys(payload.properties.data.properties));
      expect(post.parameters.map((p: any) => `${p.in}:${p.name}`).sort(), type).toEqual([
        'header:webhook-id',
        'header:webhook-signature',
        'header:webhook-timestamp',
      ]);
    }
    expect(schemas.WebhookEvent.discriminator.propertyName).toBe('type');
    expect(schemas.WebhookEvent.oneOf).toHaveLength(WEBHOOK_EVENT_TYPES.length);
    expect(schemas.WebhookEventList.properties.data.items).toEqual({ $ref: '#/components/schemas/WebhookEvent' });
    expect(doc.info.description).toMatch(/## Signing[\s\S]*webhook-signature[\s\S]*## Verifying/);
  });

  it('says what createCharge returns: chargeId and paymentUrl', async () => {
    const doc = await documentJson();
    const op = doc.paths['/api/createCharge'].post;
    expect(op.description).toContain('paymentUrl');
    expect(op.responses['200'].content['application/json'].example.data).toEqual(exampleCreateChargeResult());
    expect(doc.components.schemas.CreateChargeResult.required.sort()).toEqual(['chargeId', 'paymentUrl']);
  });
});

describe('the examples', () => {
  it('are valid for the schemas they illustrate', () => {
    expect(createChargeBodySchema.safeParse(exampleCreateChargeRequest()).success).toBe(true);
    expect(createChargeBodySchema.safeParse(exampleUsdPricedRequest()).success).toBe(true);
    expect(createChargeResultSchema.safeParse(exampleCreateChargeResult()).success).toBe(true);
    expect(chargeSchema.safeParse(exampleCharge()).success).toBe(true);
    expect(chargeSchema.safeParse(examplePaidCharge()).success).toBe(true);
    expect(refundSchema.safeParse(exampleRefund()).success).toBe(true);
    expect(webhookEndpointSchema.safeParse(exampleWebhookEndpoint()).success).toBe(true);
    for (const type of WEBHOOK_EVENT_TYPES) {
      const event = JSON.parse(JSON.stringify(exampleEvent(type)));
      expect(webhookEventSchemas[type].safeParse(event).error, type).toBeUndefined();
      expect(webhookEventSchema.safeParse(event).success, type).toBe(true);
    }
  });
});
