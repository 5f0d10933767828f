/**
 * The response validation every route test goes through (callRoute → test/openapi-responses.ts): an
 * undeclared status or a body that does not match the declared schema fails, with a message that says
 * which. The last test mocks the document so a real route's real answer becomes undeclared.
 */
import { describe, expect, it, vi } from 'vitest';
import { buildOpenApiDocument } from '@/lib/api/openapi';
import type * as OpenApiModule from '@/lib/api/openapi';
import { callRoute } from './fixtures';
import { openApiResponseValidator } from './openapi-responses';

vi.mock('@/lib/api/openapi', async (importOriginal) => {
  const original = await importOriginal<typeof OpenApiModule>();
  return {
    buildOpenApiDocument: (serverUrl: string) => {
      const document = original.buildOpenApiDocument(serverUrl);
      // As if the document forgot the liveness probe's 200: callRoute must refuse the route's real answer.
      const live = structuredClone(document.paths!['/api/health/live']!);
      delete live.get!.responses!['200'];
      live.get!.responses!['503'] = { description: 'Not alive.' };
      return { ...document, paths: { ...document.paths, '/api/health/live': live } };
    },
  };
});

const real = await vi.importActual<typeof OpenApiModule>('@/lib/api/openapi');
const openApi = openApiResponseValidator(real.buildOpenApiDocument('http://localhost:3999'));
const envelope = (code: string) => ({ data: null, error: { code, message: 'x' } });
const JSON_TYPE = 'application/json';

describe('OpenAPI response validation', () => {
  it('accepts what the document declares', () => {
    expect(
      openApi.problems({ method: 'GET', path: '/api/health/live', status: 200, contentType: JSON_TYPE, body: { status: 'ok' } }),
    ).toEqual([]);
    expect(
      openApi.problems({
        method: 'GET',
        path: '/api/charges/ch_x',
        status: 404,
        contentType: 'application/json; charset=utf-8',
        body: envelope('not_found'),
      }),
    ).toEqual([]);
  });

  it('refuses a status the operation does not declare, naming the declared ones', () => {
    const [problem] = openApi.problems({
      method: 'GET',
      path: '/api/charges/{chargeId}',
      status: 409,
      contentType: JSON_TYPE,
      body: envelope('idempotency_conflict'),
    });
    expect(problem).toContain(
      'GET /api/charges/{chargeId} answered 409 (idempotency_conflict), which the OpenAPI document does not declare',
    );
    expect(problem).toContain('200, 400, 401, 403, 404, 429, 500');
  });

  it('refuses a body that does not match the schema, with the path of the field', () => {
    const [problem] = openApi.problems({
      method: 'GET',
      path: '/api/health/live',
      status: 200,
      contentType: JSON_TYPE,
      body: { status: 'fine', extra: 1 },
    });
    expect(problem).toContain('the body does not match');
    expect(problem).toContain('body.status');
    const [envelopeProblem] = openApi.problems({
      method: 'GET',
      path: '/api/charges',
      status: 401,
      contentType: JSON_TYPE,
      body: { error: 'nope' },
    });
    expect(envelopeProblem).toContain('the body does not match');
  });

  it('refuses a content type the document does not declare, and a path it does not have', () => {
    expect(openApi.problems({ method: 'GET', path: '/api/health/live', status: 200, contentType: 'text/html', body: '<p>' })[0]).toContain(
      'answered text/html',
    );
    expect(openApi.problems({ method: 'GET', path: '/api/nowhere', status: 200, contentType: JSON_TYPE, body: {} })[0]).toContain(
      'GET /api/nowhere is not in the OpenAPI document',
    );
  });

  it('refuses an answer without a header the document requires (x-request-id; Retry-After on 429)', () => {
    const sample = { method: 'POST', path: '/api/createCharge', contentType: JSON_TYPE };
    const withId = new Headers({ 'x-request-id': 'r1', 'chargeport-version': '2026-11-27' });
    expect(openApi.problems({ ...sample, status: 400, body: envelope('invalid_request'), headers: withId })).toEqual([]);
    expect(openApi.problems({ ...sample, status: 400, body: envelope('invalid_request'), headers: new Headers() })[0]).toContain(
      'lacks the header(s) the document requires: x-request-id',
    );
    expect(openApi.problems({ ...sample, status: 429, body: envelope('rate_limited'), headers: withId })[0]).toContain('Retry-After');
  });

  it('405 and unknown-path answers are held to the error envelope', () => {
    expect(openApi.errorEnvelopeProblems(envelope('method_not_allowed'))).toEqual([]);
    expect(openApi.errorEnvelopeProblems({ error: 'method not allowed' })[0]).toContain('not the error envelope');
  });

  it('callRoute fails a test whose route answers what the document does not declare', async () => {
    const { GET } = await import('@/app/api/health/live/route');
    await expect(callRoute(GET as never, { path: '/api/health/live' })).rejects.toThrow(
      /GET \/api\/health\/live answered 200, which the OpenAPI document does not declare \(it declares 503\)/,
    );
    // The mocked document is the one callRoute reads: the real one declares the 200.
    expect(Object.keys(buildOpenApiDocument('http://x').paths!['/api/health/live']!.get!.responses!)).toEqual(['503']);
  });
});
