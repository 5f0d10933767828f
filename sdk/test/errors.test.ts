import { afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { ErrorCode } from '@/lib/errors';
import { NATIVE_EVM, POLYGON_USDC, newMerchant, newPublishableKey, type TestMerchant } from '@/test/fixtures';
import {
  AuthenticationError,
  Chargeport,
  ChargeportError,
  ConnectionError,
  IdempotencyError,
  InvalidRequestError,
  PermissionError,
  APIError,
  isChargeportError,
  type ApiErrorCode,
  type FetchLike,
  type SdkErrorCode,
} from '../src/index';
import { TEST_BASE_URL, routeFetch } from './route-fetch';

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await newMerchant({ verified: true });
});

// No retries: each test sees the answer of one attempt (sdk/test/retries.test.ts covers retrying).
function client(apiKey: string, fetch: FetchLike = routeFetch().fetch) {
  return new Chargeport({ apiKey, baseUrl: TEST_BASE_URL, fetch, maxRetries: 0 });
}

/** The rejection of `promise`, which must be a ChargeportError. */
async function failure(promise: Promise<unknown>): Promise<ChargeportError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ChargeportError);
  return error as ChargeportError;
}

const usdc = { chain: 'POLYGON' as const, symbol: 'USDC', tokenAddress: POLYGON_USDC, amount: '4.99' };

describe('ChargeportError from the real API', () => {
  it('an unsupported chain: 422 unsupported_chain on chargeData.chain, with the request id', async () => {
    // A chain the SDK's types do not know fails to compile; at run time the API refuses it.
    const error = await failure(client(merchant.liveKey!).createCharge({ ...usdc, chain: 'ETHEREUM' as 'POLYGON' }));
    expect(error).toMatchObject({ name: 'InvalidRequestError', status: 422, code: 'unsupported_chain', param: 'chargeData.chain' });
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toMatch(/Supported chains: POLYGON/);
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error).toBeInstanceOf(Error);
    expect(isChargeportError(error)).toBe(true);
  });

  it('no API key: 401 missing_api_key', async () => {
    const error = await failure(client('').createCharge(usdc));
    expect(error).toMatchObject({ status: 401, code: 'missing_api_key' });
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.param).toBeUndefined();
  });

  it('a key nobody issued: 401 invalid_api_key', async () => {
    const error = await failure(client('cp_live_0000000000000000000000000000000A').getCharge('ch_0000000000000000000000'));
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(error).toBeInstanceOf(AuthenticationError);
  });

  it('a field the API does not know: 400 invalid_request naming it', async () => {
    const error = await failure(client(merchant.liveKey!).createCharge({ ...usdc, colour: 'red' } as typeof usdc));
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', param: 'chargeData.colour' });
    expect(error).toBeInstanceOf(InvalidRequestError);
  });

  it('a test charge with a production key: 403 test_key_required', async () => {
    const error = await failure(
      client(merchant.liveKey!).createCharge({
        chargeData: { chain: 'POLYGON', symbol: 'POL', tokenAddress: NATIVE_EVM, amount: '1' },
        isTest: true,
      }),
    );
    expect(error).toMatchObject({ status: 403, code: 'test_key_required' });
    expect(error).toBeInstanceOf(PermissionError);
  });

  it('a publishable key cannot redirect funds: 403 key_not_permitted for toAddress and isDirectTransfer', async () => {
    const sdk = client(await newPublishableKey(merchant.id, 'live'));
    const to = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const withToAddress = await failure(sdk.createCharge({ ...usdc, toAddress: to }));
    expect(withToAddress).toMatchObject({ status: 403, code: 'key_not_permitted', param: 'chargeData.toAddress' });
    const direct = await failure(sdk.createCharge({ chargeData: { ...usdc, toAddress: to }, isDirectTransfer: true }));
    expect(direct).toMatchObject({ status: 403, code: 'key_not_permitted' });
  });

  it('reusing an idempotency key for other parameters: 409 idempotency_conflict', async () => {
    const sdk = client(merchant.liveKey!);
    const idempotencyKey = `order-${crypto.randomUUID()}`;
    await sdk.createCharge(usdc, { idempotencyKey });
    const error = await failure(sdk.createCharge({ ...usdc, amount: '5' }, { idempotencyKey }));
    expect(error).toMatchObject({ name: 'IdempotencyError', status: 409, code: 'idempotency_conflict' });
    expect(error).toBeInstanceOf(IdempotencyError);
  });

  it("another merchant's charge: 404 not_found", async () => {
    const { chargeId } = await client(merchant.liveKey!).createCharge(usdc);
    const stranger = await newMerchant({ verified: true });
    const error = await failure(client(stranger.liveKey!).getCharge(chargeId));
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect(error).toBeInstanceOf(InvalidRequestError);
  });
});

describe("ChargeportError for answers that are not the API's envelope", () => {
  const answering =
    (body: string, init: ResponseInit): FetchLike =>
    async () =>
      new Response(body, init);

  it('an HTML error page from a proxy: invalid_response with the status and the start of the body', async () => {
    const html = '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>';
    const sdk = client(merchant.liveKey!, answering(html, { status: 502, headers: { 'content-type': 'text/html' } }));
    const error = await failure(sdk.createCharge(usdc));
    expect(error).toMatchObject({ status: 502, code: 'invalid_response' });
    expect(error).toBeInstanceOf(APIError);
    expect(error.message).toContain('HTTP 502 (text/html)');
    expect(error.message).toContain('502 Bad Gateway');
  });

  it('checks error before the status: an error member wins even on a 200', async () => {
    const body = JSON.stringify({ data: null, error: { code: 'internal_error', message: 'Something went wrong.' } });
    const error = await failure(client('k', answering(body, { status: 200, headers: { 'x-request-id': 'req-1' } })).getCharge('ch_1'));
    expect(error).toMatchObject({ status: 200, code: 'internal_error', message: 'Something went wrong.', requestId: 'req-1' });
  });

  it('a non-200 status without an error member is still a failure', async () => {
    const error = await failure(
      client('k', answering(JSON.stringify({ data: { id: 'ch_1' }, error: null }), { status: 500 })).getCharge('ch_1'),
    );
    expect(error).toMatchObject({ status: 500, code: 'invalid_response' });
  });

  it('a 200 whose data lacks chargeId/paymentUrl: invalid_response', async () => {
    const error = await failure(client('k', answering(JSON.stringify({ data: {}, error: null }), { status: 200 })).createCharge(usdc));
    expect(error).toMatchObject({ code: 'invalid_response' });
  });

  it('no answer at all: network_error with status 0 and the cause', async () => {
    const cause = new TypeError('fetch failed');
    const error = await failure(client('k', async () => Promise.reject(cause)).createCharge(usdc));
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.cause).toBe(cause);
    expect(error.message).toContain(TEST_BASE_URL);
  });
});

describe('secret keys in a browser', () => {
  const globals = globalThis as { window?: unknown; document?: unknown };
  afterEach(() => {
    delete globals.window;
    delete globals.document;
  });

  it('refuses a secret key where window and document exist, and accepts a publishable key there', () => {
    globals.window = {};
    globals.document = {};
    const construct = (apiKey: string) => () => new Chargeport({ apiKey, baseUrl: TEST_BASE_URL, fetch: routeFetch().fetch });
    expect(construct('cp_live_abc')).toThrow(expect.objectContaining({ code: 'secret_key_in_browser' }));
    expect(construct('cp_test_abc')).toThrow(ChargeportError);
    expect(construct('cp_pub_live_abc')).not.toThrow();
  });

  it('accepts a secret key on a server (no window)', () => {
    expect(() => new Chargeport({ apiKey: 'cp_live_abc', baseUrl: TEST_BASE_URL })).not.toThrow();
  });
});

describe('typed error codes', () => {
  it("ChargeportError.code is exactly the API's ErrorCode table plus the SDK's own codes (checked by tsc)", () => {
    expectTypeOf<ApiErrorCode>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<ChargeportError['code']>().toEqualTypeOf<ErrorCode | SdkErrorCode>();
    expect(new ChargeportError({ status: 409, code: 'idempotency_conflict', message: 'x' }).code).toBe('idempotency_conflict');
  });
});
