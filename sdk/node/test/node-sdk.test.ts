/**
 * @chargeport/node against the real route handlers and PostgreSQL: charges (auto-pagination, cancel),
 * refunds, webhook endpoints, events, test helpers; idempotency keys reused across retries (one charge
 * however often the network fails), back-off on 503, timeouts and typed errors; constructEvent against
 * signatures made by the Standard Webhooks reference library.
 */
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { createPublicClient, http, parseEther, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { charges, payments } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { pollChain } from '@/lib/payments/poll-chain';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { newMerchant, storedCounts, type TestMerchant } from '@/test/fixtures';
import {
  AuthenticationError,
  Chargeport,
  ChargeportError,
  ConnectionError,
  InvalidRequestError,
  TimeoutError,
  type FetchLike,
  type WebhookEvent,
} from '../src/index';
import { TEST_BASE_URL, routeFetch } from './route-fetch';

const NATIVE = '0x0000000000000000000000000000000000000000';
const testCharge = (amount = '0.1') => ({
  chargeData: { chain: 'POLYGON' as const, symbol: 'POL', tokenAddress: NATIVE, amount },
  isTest: true,
});
let merchant: TestMerchant;
const client = (fetch: FetchLike = routeFetch().fetch, options: { maxRetries?: number; timeoutMs?: number } = {}) =>
  new Chargeport({ apiKey: merchant.testKey, baseUrl: TEST_BASE_URL, fetch, ...options });

beforeAll(async () => {
  merchant = await newMerchant({ verified: true });
});

const caught = async (promise: Promise<unknown>): Promise<ChargeportError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChargeportError);
  return error as ChargeportError;
};

describe('@chargeport/node', () => {
  it('flat form: the charge fields at the top level are sent as chargeData', async () => {
    const { fetch, requests } = routeFetch();
    const { chargeId } = await client(fetch).charges.create(testCharge().chargeData);
    expect(await requests[0]!.json()).toEqual({ chargeData: testCharge().chargeData });
    expect(await client().charges.retrieve(chargeId)).toMatchObject({ id: chargeId, mode: 'test' });
  });

  it('creates, retrieves, lists every page of and cancels charges; POSTs carry an idempotency key', async () => {
    const { fetch, requests } = routeFetch();
    const chargeport = client(fetch);
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await chargeport.charges.create(testCharge()));
    expect(created[0]!.paymentUrl).toContain(`/checkout/${created[0]!.chargeId}`);
    expect(requests.filter((r) => r.method === 'POST').every((r) => (r.headers.get('idempotency-key') ?? '').length > 10)).toBe(true);

    const charge = await chargeport.charges.retrieve(created[0]!.chargeId);
    expect(charge).toMatchObject({ id: created[0]!.chargeId, status: 'pending', amount: '0.1' });

    const seen: string[] = [];
    for await (const listed of chargeport.charges.list({ limit: 1, mode: 'test' })) seen.push(listed.id);
    expect(seen.slice(0, 3)).toEqual(created.map((c) => c.chargeId).reverse());
    expect(requests.filter((r) => new URL(r.url).pathname === '/api/charges').length).toBeGreaterThanOrEqual(3);

    const canceled = await chargeport.charges.cancel(created[1]!.chargeId);
    expect(canceled.status).toBe('canceled');
  });

  it('retries network errors and 503 with the same idempotency key: one charge, however often the network failed', async () => {
    const { fetch: real } = routeFetch();
    const keys: string[] = [];
    let calls = 0;
    const flaky: FetchLike = async (url, init) => {
      calls++;
      keys.push(new Headers(init.headers).get('idempotency-key')!);
      if (calls === 1) throw new TypeError('fetch failed');
      const response = await real(url, init);
      // The first real answer is lost on the way back: the server made the charge, the client saw a 503.
      if (calls === 2) return new Response('{"data":null,"error":{"code":"service_unavailable","message":"x"}}', { status: 503 });
      return response;
    };
    const before = await storedCounts(merchant.id);
    const created = await client(flaky, { maxRetries: 3 }).charges.create(testCharge());
    expect(calls).toBe(3);
    expect(new Set(keys).size).toBe(1);
    expect((await storedCounts(merchant.id)).charges).toBe(before.charges + 1);
    expect(created.chargeId).toMatch(/^ch_/);
  });

  it('typed errors: the API code, status, param and request id; timeouts and unreachable servers', async () => {
    const error = await caught(
      client().charges.create({ chargeData: { ...testCharge().chargeData, chain: 'ETHEREUM' as 'POLYGON' }, isTest: true }),
    );
    expect(error).toMatchObject({ status: 422, code: 'unsupported_chain', param: 'chargeData.chain' });
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.requestId).toBeTruthy();

    const unknownKey = await caught(
      new Chargeport({
        apiKey: 'cp_test_0000000000000000000000000000000A',
        baseUrl: TEST_BASE_URL,
        fetch: routeFetch().fetch,
      }).charges.retrieve('ch_x'),
    );
    expect(unknownKey).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(unknownKey).toBeInstanceOf(AuthenticationError);

    const missing = await caught(client().charges.retrieve('ch_doesnotexist'));
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });

    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason as Error)));
    const timeout = await caught(client(hanging, { maxRetries: 1, timeoutMs: 50 }).charges.retrieve('ch_x'));
    expect(timeout).toMatchObject({ status: 0, code: 'timeout' });
    expect(timeout).toBeInstanceOf(TimeoutError);

    const down: FetchLike = () => Promise.reject(new TypeError('fetch failed'));
    const unreachable = await caught(client(down, { maxRetries: 0 }).charges.retrieve('ch_x'));
    expect(unreachable).toMatchObject({ status: 0, code: 'network_error' });
    expect(unreachable).toBeInstanceOf(ConnectionError);
  });

  it('webhook endpoints, events and refunds', async () => {
    const chargeport = client();
    const endpoint = await chargeport.webhookEndpoints.create({ url: 'http://localhost:4000/webhooks', eventTypes: ['charge.succeeded'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await chargeport.webhookEndpoints.retrieve(endpoint.id)).url).toBe('http://localhost:4000/webhooks');
    expect((await chargeport.webhookEndpoints.list()).data.map((e) => e.id)).toContain(endpoint.id);
    expect((await chargeport.webhookEndpoints.update(endpoint.id, { enabled: false })).enabled).toBe(false);
    expect((await chargeport.webhookEndpoints.delete(endpoint.id)).deleted).toBe(true);

    const { chargeId } = await chargeport.charges.create(testCharge());
    const events: WebhookEvent['type'][] = [];
    for await (const event of chargeport.events.list({ type: 'charge.created', limit: 2 })) {
      if (event.data.charge.id === chargeId) events.push(event.type);
      if (events.length) break;
    }
    expect(events).toEqual(['charge.created']);

    const refunds = await chargeport.refunds.list(chargeId);
    expect(refunds.data).toEqual([]);
    // Not yet paid: nothing to refund, and an open charge is never refunded.
    const refused = await caught(chargeport.refunds.create(chargeId, { amount: '0.1' }));
    expect(refused).toMatchObject({ status: 409, code: 'charge_not_settled' });
  });

  it('events.stream: the events after a given one, live, only the types asked for', async () => {
    const chargeport = client();
    const first = await chargeport.charges.create(testCharge());
    const second = await chargeport.charges.create(testCharge());
    let after: string | undefined;
    for await (const event of chargeport.events.list({ type: 'charge.created', limit: 5 }))
      if (event.data.charge.id === first.chargeId) {
        after = event.id;
        break;
      }
    expect(after).toBeDefined();

    const controller = new AbortController();
    const stream = chargeport.events.stream({ types: ['charge.canceled'], startingAfter: after!, signal: controller.signal });
    await chargeport.charges.cancel(second.chargeId);
    await chargeport.charges.cancel(first.chargeId);
    const seen: string[] = [];
    for await (const event of stream) {
      if (event.type !== 'charge.canceled') throw new Error(`the stream sent ${event.type}, which was not asked for`);
      if ([first.chargeId, second.chargeId].includes(event.data.charge.id)) seen.push(event.data.charge.id);
      if (seen.length === 2) controller.abort();
    }
    expect(seen).toEqual([second.chargeId, first.chargeId]);
  });

  it('refunds a paid test charge: one refund however often the call is retried, and it reaches the payer on chain', async () => {
    const chargeport = client();
    const { chargeId } = await chargeport.charges.create(testCharge('0.3'));
    await chargeport.testHelpers.payCharge(chargeId);
    const statusOf = async () => (await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status;
    for (let i = 0; i < 40 && (await statusOf()) !== 'succeeded'; i++) await pollChain('POLYGON_AMOY');
    expect(await statusOf()).toBe('succeeded');

    // Refunds go back to whoever paid: an address of the caller's choosing is refused.
    const stranger: Address = privateKeyToAccount(generatePrivateKey()).address;
    expect(await caught(chargeport.refunds.create(chargeId, { amount: '0.1', toAddress: stranger }))).toMatchObject({
      status: 403,
      code: 'refund_destination_not_payer',
    });
    const [payment] = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
    const payer = payment!.fromAddress as Address;
    const idempotencyKey = `refund-${chargeId}`;
    const refund = await chargeport.refunds.create(chargeId, { amount: '0.1', reason: 'player asked' }, { idempotencyKey });
    expect(refund).toMatchObject({ chargeId, amount: '0.1', amountBaseUnits: parseEther('0.1').toString(), destination: payer });
    const retried = await chargeport.refunds.create(chargeId, { amount: '0.1', reason: 'player asked' }, { idempotencyKey });
    expect(retried.id).toBe(refund.id);
    const listed = await chargeport.refunds.list(chargeId);
    expect(listed.data.map((r) => r.id)).toEqual([refund.id]);
    expect(listed.refundable.amount).toBe('0.2');

    const refundStatus = async () => (await chargeport.refunds.list(chargeId)).data[0]!.status;
    for (let i = 0; i < 20 && (await refundStatus()) !== 'succeeded'; i++) {
      await reconcileDueTransfers({ ignoreSchedule: true });
      await pollChain('POLYGON_AMOY');
    }
    expect(await refundStatus()).toBe('succeeded');
    // On chain: the refund's transaction moved 0.1 to the payer.
    const amoy = createPublicClient({ transport: http(rpcUrl('POLYGON_AMOY')!) });
    const mined = await amoy.getTransaction({ hash: (await chargeport.refunds.list(chargeId)).data[0]!.transactionHash as `0x${string}` });
    expect({ to: mined.to?.toLowerCase(), value: mined.value }).toEqual({ to: payer.toLowerCase(), value: parseEther('0.1') });
  }, 60_000);

  it('constructEvent: a typed event from a valid signature; tampered, stale or unsigned deliveries are refused', () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'charge.succeeded',
      createdAt: new Date().toISOString(),
      mode: 'test',
      data: { charge: { id: 'ch_1' } },
    });
    const now = new Date();
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('evt_1', now, body),
    };
    const chargeport = client();
    const event = chargeport.webhooks.constructEvent(body, headers, secret);
    expect(event.type).toBe('charge.succeeded');
    if (event.type === 'charge.succeeded') expect(event.data.charge.id).toBe('ch_1');
    // Rotation: any of several secrets may match; a Headers object works too.
    expect(chargeport.webhooks.constructEvent(Buffer.from(body), new Headers(headers), ['whsec_b3RoZXI=', secret]).id).toBe('evt_1');

    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return (error as ChargeportError).code;
      }
      return 'accepted';
    };
    expect(refusal(() => chargeport.webhooks.constructEvent(body.replace('ch_1', 'ch_2'), headers, secret))).toBe(
      'invalid_webhook_signature',
    );
    expect(refusal(() => chargeport.webhooks.constructEvent(body, headers, secret, { now: new Date(now.getTime() + 10 * 60_000) }))).toBe(
      'invalid_webhook_signature',
    );
    expect(refusal(() => chargeport.webhooks.constructEvent(body, { ...headers, 'webhook-signature': undefined }, secret))).toBe(
      'invalid_webhook_signature',
    );
    expect(refusal(() => chargeport.webhooks.constructEvent(body, headers, 'not-a-secret'))).toBe('invalid_webhook_secret');
  });
});
