/**
 * One table of error kinds for both TypeScript SDKs: which subclass an answer's status and code
 * become, the fields every kind carries, and that @chargeport/web and @chargeport/node export the
 * same classes (a team using both catches the same names).
 */
import { describe, expect, it } from 'vitest';
import * as node from '../node/src/index';
import * as web from '../src/index';

const KINDS = [
  'AuthenticationError',
  'PermissionError',
  'InvalidRequestError',
  'IdempotencyError',
  'RateLimitError',
  'APIError',
  'ConnectionError',
  'TimeoutError',
  'SignatureVerificationError',
] as const;

const TABLE: [status: number, code: string, kind: (typeof KINDS)[number]][] = [
  [401, 'missing_api_key', 'AuthenticationError'],
  [401, 'invalid_api_key', 'AuthenticationError'],
  [403, 'key_not_permitted', 'PermissionError'],
  [403, 'origin_not_allowed', 'PermissionError'],
  [400, 'invalid_request', 'InvalidRequestError'],
  [404, 'not_found', 'InvalidRequestError'],
  [409, 'charge_not_cancelable', 'InvalidRequestError'],
  [422, 'unsupported_chain', 'InvalidRequestError'],
  [409, 'idempotency_conflict', 'IdempotencyError'],
  [429, 'rate_limited', 'RateLimitError'],
  [500, 'internal_error', 'APIError'],
  [503, 'service_unavailable', 'APIError'],
  [502, 'invalid_response', 'APIError'],
  [0, 'network_error', 'ConnectionError'],
  [0, 'timeout', 'TimeoutError'],
  [0, 'invalid_webhook_signature', 'SignatureVerificationError'],
];

describe.each([
  ['@chargeport/web', web as unknown as Record<string, unknown>],
  ['@chargeport/node', node as unknown as Record<string, unknown>],
] as const)('%s error classes', (_name, sdk) => {
  const Base = sdk.ChargeportError as typeof web.ChargeportError;

  it('exports every kind, each a ChargeportError', () => {
    for (const kind of KINDS) {
      const Kind = sdk[kind] as typeof web.ChargeportError;
      expect(Kind, kind).toBeTypeOf('function');
      expect(Kind.prototype, kind).toBeInstanceOf(Base);
    }
    expect((sdk.TimeoutError as typeof web.TimeoutError).prototype).toBeInstanceOf(sdk.ConnectionError as typeof web.ConnectionError);
  });

  it.each(TABLE)('HTTP %i %s → %s, with code, status, requestId and param', (status, code, kind) => {
    const error = Base.generate({
      status,
      code: code as web.ChargeportError['code'],
      message: 'what to fix',
      param: 'chargeData.chain',
      requestId: 'req_1',
    });
    expect(error).toBeInstanceOf(sdk[kind] as typeof web.ChargeportError);
    expect(error).toBeInstanceOf(Base);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: kind, status, code, param: 'chargeData.chain', requestId: 'req_1', message: 'what to fix' });
  });

  it('RateLimitError carries Retry-After', () => {
    expect(Base.generate({ status: 429, code: 'rate_limited', message: 'x', retryAfter: 7 })).toMatchObject({ retryAfter: 7 });
  });
});
