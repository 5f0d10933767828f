import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '@/lib/errors';
import { GET } from './route';

describe('GET /api/openapi.json', () => {
  it('is an OpenAPI 3.1 document of every route, generated from the zod schemas', async () => {
    const doc = await GET().json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api/charges',
        '/api/charges/{chargeId}',
        '/api/charges/{chargeId}/cancel',
        '/api/charges/{chargeId}/refunds',
        '/api/createCharge',
        '/api/events',
        '/api/health',
        '/api/health/live',
        '/api/health/ready',
        '/api/oauth/balances',
        '/api/oauth/payment-requests',
        '/api/oauth/payment-requests/{requestId}',
        '/api/webhook-endpoints',
        '/api/webhook-endpoints/{endpointId}',
        '/api/webhook-endpoints/{endpointId}/rotate-secret',
      ].sort(),
    );
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      'charge.canceled',
      'charge.created',
      'charge.expired',
      'charge.failed',
      'charge.processing',
      'charge.succeeded',
      'fulfilment.failed',
      'fulfilment.succeeded',
      'payment.failed',
      'refund.created',
      'refund.failed',
      'refund.succeeded',
    ]);
    expect(doc.components.schemas.WebhookEvent.properties.data.properties.charge).toEqual({ $ref: '#/components/schemas/Charge' });
    expect(doc.components.securitySchemes.ApiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
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
      expect.arrayContaining(['symbol', 'chain', 'tokenAddress', 'successUrl', 'cancelUrl', 'items', 'amount', 'toAddress']),
    );
    expect(doc.components.schemas.ChargeItem.required.sort()).toEqual(['amount', 'name', 'quantity']);
  });

  it('documents every error code that createCharge can answer', async () => {
    const doc = await GET().json();
    const documented = Object.values(doc.paths['/api/createCharge'].post.responses)
      .map((r: any) => r.description as string)
      .join(' ');
    const createChargeCodes = [
      'missing_api_key',
      'invalid_api_key',
      'invalid_request',
      'invalid_json',
      'payload_too_large',
      'unsupported_media_type',
      'unsupported_chain',
      'unsupported_token',
      'invalid_address',
      'invalid_amount',
      'amount_mismatch',
      'test_key_required',
      'live_key_required',
      'verification_required',
      'key_not_permitted',
      'idempotency_conflict',
      'rate_limited',
      'internal_error',
    ];
    for (const code of createChargeCodes) {
      expect(ERROR_CODES, code).toContain(code);
      expect(documented, code).toContain(code);
    }
  });
});
