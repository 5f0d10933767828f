/**
 * Both TypeScript SDKs over a real socket (a node:http server on 127.0.0.1): timeouts, retries with
 * back-off on 5xx and connection errors, Retry-After on 429, the same Idempotency-Key on every
 * attempt of a POST, no retry of a request that is not safe to repeat, and the SDK identity headers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as node from '../node/src/index';
import * as web from '../src/index';
import { CURRENT_API_VERSION } from '@/lib/api/resolve-api-version';
import { envelope, failure, startLocalServer, type LocalServer } from './local-server';

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(() => server.close());
afterEach(() => vi.unstubAllGlobals());

const CHARGE = { id: 'ch_1', status: 'pending' };
const CREATED = { chargeId: 'ch_1', paymentUrl: 'https://pay.example/checkout/ch_1' };
const chargeData = { chain: 'POLYGON', symbol: 'POL', tokenAddress: '0x0000000000000000000000000000000000000000', amount: '1' } as const;

interface Sdk {
  name: string;
  identity: { userAgent: RegExp; client: string };
  get(options: { timeoutMs?: number; maxRetries?: number }, baseUrl?: string): Promise<unknown>;
  post(options: { timeoutMs?: number; maxRetries?: number }): Promise<unknown>;
}

const sdks: Sdk[] = [
  {
    name: '@chargeport/web',
    identity: { userAgent: /^chargeport-web\/1\.0\.0 node\/\d+\.\d+\.\d+$/, client: `web/${web.VERSION}` },
    get: (options, baseUrl = server.url) => new web.Chargeport({ apiKey: 'cp_test_x', baseUrl, ...options }).getCharge('ch_1'),
    post: (options) => new web.Chargeport({ apiKey: 'cp_test_x', baseUrl: server.url, ...options }).createCharge(chargeData),
  },
  {
    name: '@chargeport/node',
    identity: { userAgent: /^chargeport-node\/1\.0\.0 node\/\d+\.\d+\.\d+$/, client: `node/${node.VERSION}` },
    get: (options, baseUrl = server.url) => new node.Chargeport({ apiKey: 'cp_test_x', baseUrl, ...options }).charges.retrieve('ch_1'),
    post: (options) => new node.Chargeport({ apiKey: 'cp_test_x', baseUrl: server.url, ...options }).charges.create({ chargeData }),
  },
];

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe.each(sdks)('$name over a real socket', (sdk) => {
  const Errors = sdk.name === '@chargeport/web' ? web : node;

  it('503 then 200: retried after a back-off, and every attempt names the SDK (User-Agent, Chargeport-Client) and the API version', async () => {
    server.script({ status: 503, body: failure('service_unavailable') }, { status: 200, body: envelope(CHARGE) });
    const started = Date.now();
    expect(await sdk.get({})).toMatchObject({ id: 'ch_1' });
    expect(server.requests).toHaveLength(2);
    // The first back-off is 0.5 s ± 25 %.
    expect(Date.now() - started).toBeGreaterThanOrEqual(370);
    for (const request of server.requests) {
      expect(request.headers['user-agent']).toMatch(sdk.identity.userAgent);
      expect(request.headers['chargeport-client']).toBe(sdk.identity.client);
      // The version the SDK's types were generated for: the server's current one (sdk:generate keeps them equal).
      expect(request.headers['chargeport-version']).toBe(CURRENT_API_VERSION);
    }
  });

  it('a POST is retried with the same Idempotency-Key, so the API answers the first result instead of acting twice', async () => {
    server.script({ status: 502, body: failure('internal_error') }, { status: 200, body: envelope(CREATED) });
    expect(await sdk.post({})).toMatchObject(CREATED);
    const keys = server.requests.map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it('429 with Retry-After: waits as long as asked, then succeeds', async () => {
    server.script({ status: 429, body: failure('rate_limited'), headers: { 'retry-after': '1' } }, { status: 200, body: envelope(CHARGE) });
    const started = Date.now();
    expect(await sdk.get({})).toMatchObject({ id: 'ch_1' });
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('429 for longer than the client waits (Retry-After: 120): no retry, a RateLimitError carrying retryAfter', async () => {
    server.script({ status: 429, body: failure('rate_limited', 'Slow down'), headers: { 'retry-after': '120' } });
    const error = await rejection(sdk.get({}));
    expect(error).toBeInstanceOf(Errors.RateLimitError);
    expect(error).toBeInstanceOf(Errors.ChargeportError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 120, requestId: 'req_1' });
    expect(server.requests).toHaveLength(1);
  });

  it('5xx every time: maxRetries + 1 attempts, then an APIError', async () => {
    server.script({ status: 500, body: failure('internal_error', 'boom') });
    const error = await rejection(sdk.get({ maxRetries: 1 }));
    expect(error).toBeInstanceOf(Errors.APIError);
    expect(error).toMatchObject({ status: 500, code: 'internal_error', requestId: 'req_2' });
    expect(server.requests).toHaveLength(2);
  });

  it('a server that never answers: each attempt times out, then a TimeoutError', async () => {
    server.script('hang');
    const started = Date.now();
    const error = await rejection(sdk.get({ timeoutMs: 200, maxRetries: 1 }));
    expect(error).toBeInstanceOf(Errors.TimeoutError);
    expect(error).toBeInstanceOf(Errors.ConnectionError);
    expect(error).toMatchObject({ status: 0, code: 'timeout' });
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('nothing listening: a ConnectionError after the retries', async () => {
    const closed = await startLocalServer();
    await closed.close();
    const error = await rejection(sdk.get({ maxRetries: 1 }, closed.url));
    expect(error).toBeInstanceOf(Errors.ConnectionError);
    expect(error).not.toBeInstanceOf(Errors.TimeoutError);
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
  });

  it('maxRetries: 0 turns retries off', async () => {
    server.script({ status: 503, body: failure('service_unavailable') }, { status: 200, body: envelope(CHARGE) });
    expect(await rejection(sdk.get({ maxRetries: 0 }))).toBeInstanceOf(Errors.APIError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('requests that are not safe to repeat are sent once', () => {
  it('@chargeport/node: a PATCH (no idempotency key) is not retried after a 503', async () => {
    server.script({ status: 503, body: failure('service_unavailable') }, { status: 200, body: envelope({ id: 'we_1' }) });
    const chargeport = new node.Chargeport({ apiKey: 'cp_test_x', baseUrl: server.url });
    expect(await rejection(chargeport.webhookEndpoints.update('we_1', { enabled: false }))).toBeInstanceOf(node.APIError);
    expect(server.requests.map((request) => request.method)).toEqual(['PATCH']);
  });

  it('@chargeport/web: without crypto.randomUUID (an insecure context) a createCharge has no key and is not retried', async () => {
    vi.stubGlobal('crypto', {});
    server.script({ status: 503, body: failure('service_unavailable') }, { status: 200, body: envelope(CREATED) });
    const chargeport = new web.Chargeport({ apiKey: 'cp_test_x', baseUrl: server.url });
    expect(await rejection(chargeport.createCharge(chargeData))).toBeInstanceOf(web.APIError);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('@chargeport/web: a key of your own is kept and reused by the retries', async () => {
    server.script({ status: 503, body: failure('service_unavailable') }, { status: 200, body: envelope(CREATED) });
    const chargeport = new web.Chargeport({ apiKey: 'cp_test_x', baseUrl: server.url });
    await chargeport.createCharge(chargeData, { idempotencyKey: 'order-1001' });
    expect(server.requests.map((request) => request.headers['idempotency-key'])).toEqual(['order-1001', 'order-1001']);
  });
});
