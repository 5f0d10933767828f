import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { eventStreamLeases } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { callRoute, expectDeclaredResponse, newMerchant, newPublishableKey, testCharge, type TestMerchant } from '@/test/fixtures';
import { POST as cancelRoute } from '../../charges/[chargeId]/cancel/route';
import { POST as createChargeRoute } from '../../createCharge/route';
import { GET as streamRoute } from './route';

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await newMerchant();
});

interface SseMessage {
  id?: string;
  event?: string;
  data?: any;
}

/** Opens the stream through the route handler, as Next.js would, and reads its messages as they come. */
async function openStream(options: { query?: string; apiKey?: string; headers?: Record<string, string> } = {}) {
  const abort = new AbortController();
  const request = new Request(`http://localhost:3999/api/events/stream${options.query ?? ''}`, {
    headers: { 'x-api-key': options.apiKey ?? merchant.testKey, ...options.headers },
    signal: abort.signal,
  });
  const response = await streamRoute(request, { params: Promise.resolve({}) });
  await expectDeclaredResponse(streamRoute, {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: undefined,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const messages: SseMessage[] = [];
  async function next(timeoutMs = 8_000): Promise<SseMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = buffer.indexOf('\n\n');
      if (at >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const message: SseMessage = {};
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) message.id = line.slice(4);
          else if (line.startsWith('event: ')) message.event = line.slice(7);
          else if (line.startsWith('data: ')) message.data = JSON.parse(line.slice(6));
        }
        if (message.event) {
          messages.push(message);
          return message;
        }
        continue;
      }
      if (Date.now() > deadline) throw new Error('no message in time');
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), deadline - Date.now())),
      ]);
      if (chunk.done) throw new Error('stream ended');
      buffer += chunk.value;
    }
  }
  return { response, next, messages, close: () => abort.abort(), reader };
}

async function createTestCharge(apiKey = merchant.testKey): Promise<string> {
  return (await callRoute(createChargeRoute, { apiKey, body: testCharge() })).json.data.chargeId;
}

describe('GET /api/events/stream', () => {
  it("streams the key's new events as they happen, as server-sent events carrying the delivered payload", async () => {
    const before = await createTestCharge();
    const stream = await openStream();
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers.get('x-request-id')).toBeTruthy();
    const chargeId = await createTestCharge();
    const created = await stream.next();
    expect(created).toMatchObject({ event: 'charge.created', data: { object: 'event', type: 'charge.created', mode: 'test' } });
    expect(created.id).toBe(created.data.id);
    // Only events from the moment of the request: the charge made before is not replayed.
    expect(created.data.data.charge.id).toBe(chargeId);
    expect(created.data.data.charge.id).not.toBe(before);
    await callRoute(cancelRoute, { apiKey: merchant.testKey, params: { chargeId } });
    expect(await stream.next()).toMatchObject({
      event: 'charge.canceled',
      data: { data: { charge: { id: chargeId, status: 'canceled' } } },
    });
    stream.close();
  });

  it('resumes after Last-Event-ID (or starting_after) without losing or repeating an event', async () => {
    const first = await createTestCharge();
    const second = await createTestCharge();
    const stream = await openStream({ query: '?type=charge.created' });
    const third = await createTestCharge();
    const seen = await stream.next();
    expect(seen.data.data.charge.id).toBe(third);
    stream.close();
    const { json } = await callRoute((await import('../route')).GET, {
      apiKey: merchant.testKey,
      path: '/api/events?type=charge.created&limit=100',
    });
    const firstEvent = json.data.data.find((e: any) => e.data.charge.id === first);
    const resumed = await openStream({ query: '?type=charge.created', headers: { 'last-event-id': firstEvent.id } });
    const ids = [(await resumed.next()).data.data.charge.id, (await resumed.next()).data.data.charge.id];
    expect(ids).toEqual([second, third]);
    resumed.close();
    // `types`, the filter's former name, still works.
    const byQuery = await openStream({ query: `?types=charge.created&starting_after=${firstEvent.id}` });
    expect((await byQuery.next()).data.data.charge.id).toBe(second);
    byQuery.close();
  });

  it("never shows another merchant's or the other mode's events", async () => {
    const other = await newMerchant();
    const stream = await openStream();
    await createTestCharge(other.testKey);
    const live = await callRoute(createChargeRoute, {
      apiKey: merchant.liveKey,
      body: { chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', amount: '1' } },
    });
    expect(live.status).toBe(200);
    const mine = await createTestCharge();
    const message = await stream.next();
    expect(message.data.data.charge.id).toBe(mine);
    stream.close();
  });

  it('ends the stream after max_seconds', async () => {
    const stream = await openStream({ query: '?max_seconds=1' });
    const started = Date.now();
    for (;;) {
      const chunk = await stream.reader.read();
      if (chunk.done) break;
    }
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  const refusals: [string, () => Promise<{ query?: string; apiKey?: string; headers?: Record<string, string> }>, number, string][] = [
    ['a publishable key', async () => ({ apiKey: await newPublishableKey(merchant.id) }), 403, 'key_not_permitted'],
    ['no key', async () => ({ apiKey: '' }), 401, 'missing_api_key'],
    ['an unknown event type', async () => ({ query: '?type=charge.paid' }), 400, 'invalid_request'],
    ['an unknown event type under the former name', async () => ({ query: '?types=charge.paid' }), 400, 'invalid_request'],
    ['type and types together', async () => ({ query: '?type=charge.created&types=charge.canceled' }), 400, 'invalid_request'],
    [
      'a cursor of another merchant',
      async () => {
        const other = await newMerchant();
        await createTestCharge(other.testKey);
        const { GET } = await import('../route');
        const { json } = await callRoute(GET, { apiKey: other.testKey, path: '/api/events' });
        return { headers: { 'last-event-id': json.data.data[0].id } };
      },
      400,
      'invalid_request',
    ],
    ['max_seconds out of range', async () => ({ query: '?max_seconds=0' }), 400, 'invalid_request'],
  ];

  it.each(refusals)('refuses %s with %i %s before streaming', async (_name, setup, status, code) => {
    const options = await setup();
    const request = new Request(`http://localhost:3999/api/events/stream${options.query ?? ''}`, {
      headers: { ...(options.apiKey === '' ? {} : { 'x-api-key': options.apiKey ?? merchant.testKey }), ...options.headers },
    });
    const response = await streamRoute(request, { params: Promise.resolve({}) });
    expect(response.status).toBe(status);
    const body = await response.json();
    await expectDeclaredResponse(streamRoute, {
      status: response.status,
      contentType: response.headers.get('content-type'),
      body,
      headers: response.headers,
    });
    expect(body.error.code).toBe(code);
  });
});

describe('concurrent streams are capped per key and per merchant (N9)', () => {
  afterEach(() => {
    delete process.env.EVENT_STREAMS_PER_KEY;
    delete process.env.EVENT_STREAMS_PER_MERCHANT;
    resetEnvCache();
  });

  // A closed stream deletes its lease without holding the client up (the delete runs after the response ends).
  const LEASE_RELEASE_WAIT = { timeout: 15_000, interval: 100 };
  const leasesOf = async (merchantId: string) =>
    (await getDb().select().from(eventStreamLeases).where(eq(eventStreamLeases.merchantId, merchantId))).length;

  async function refusal(apiKey: string): Promise<Response> {
    const response = await streamRoute(new Request('http://localhost:3999/api/events/stream', { headers: { 'x-api-key': apiKey } }), {
      params: Promise.resolve({}),
    });
    expect(response.status).toBe(429);
    const body: unknown = await response.clone().json();
    await expectDeclaredResponse(streamRoute, {
      status: response.status,
      contentType: response.headers.get('content-type'),
      body,
      headers: response.headers,
    });
    return response;
  }

  it('the 6th stream of one key gets 429 too_many_streams with Retry-After; a closed stream frees its slot', async () => {
    const owner = await newMerchant();
    const streams = [];
    for (let i = 0; i < 5; i++) {
      const stream = await openStream({ apiKey: owner.testKey });
      expect(stream.response.status).toBe(200);
      streams.push(stream);
    }
    expect(await leasesOf(owner.id)).toBe(5);
    const refused = await refusal(owner.testKey);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = await refused.json();
    expect(body.error).toMatchObject({ code: 'too_many_streams', message: expect.stringMatching(/already has 5 event streams open/) });

    // The client goes away: its slot is free again.
    streams.pop()!.close();
    await expect.poll(() => leasesOf(owner.id), LEASE_RELEASE_WAIT).toBe(4);
    const again = await openStream({ apiKey: owner.testKey });
    expect(again.response.status).toBe(200);
    // A consumer that cancels its reader frees its slot too.
    await streams.pop()!.reader.cancel();
    await expect.poll(() => leasesOf(owner.id), LEASE_RELEASE_WAIT).toBe(4);
    for (const stream of [...streams, again]) stream.close();
    await expect.poll(() => leasesOf(owner.id), LEASE_RELEASE_WAIT).toBe(0);
  });

  it('a client that goes away frees its slot even after the Request object itself was garbage-collected', async () => {
    // undici stops passing an abort on to request.signal once the Request is collected; the stream holds it.
    const owner = await newMerchant();
    const stream = await openStream({ apiKey: owner.testKey });
    expect(await leasesOf(owner.id)).toBe(1);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    stream.close();
    await expect.poll(() => leasesOf(owner.id), LEASE_RELEASE_WAIT).toBe(0);
  });

  it('a stream that reaches max_seconds frees its slot', async () => {
    process.env.EVENT_STREAMS_PER_KEY = '1';
    resetEnvCache();
    const owner = await newMerchant();
    const stream = await openStream({ apiKey: owner.testKey, query: '?max_seconds=1' });
    await refusal(owner.testKey);
    for (;;) if ((await stream.reader.read()).done) break;
    await expect.poll(() => leasesOf(owner.id), LEASE_RELEASE_WAIT).toBe(0);
    (await openStream({ apiKey: owner.testKey })).close();
  });

  it('the merchant cap counts all its keys; a crashed instance’s expired leases do not count', async () => {
    process.env.EVENT_STREAMS_PER_KEY = '2';
    process.env.EVENT_STREAMS_PER_MERCHANT = '3';
    resetEnvCache();
    const owner = await newMerchant({ verified: true });
    // Leases an instance left behind when it died: expired, they count for nothing.
    await getDb()
      .insert(eventStreamLeases)
      .values(
        [1, 2, 3].map((i) => ({
          id: `esl_crashed${i}${owner.id}`,
          merchantId: owner.id,
          apiKeyId: 'key_gone',
          expiresAt: new Date(Date.now() - 1_000),
        })),
      );
    const a1 = await openStream({ apiKey: owner.testKey });
    const a2 = await openStream({ apiKey: owner.testKey });
    expect([a1.response.status, a2.response.status]).toEqual([200, 200]);
    expect((await (await refusal(owner.testKey)).json()).error.message).toMatch(/This API key already has 2/);
    const b1 = await openStream({ apiKey: owner.liveKey! });
    expect(b1.response.status).toBe(200);
    expect((await (await refusal(owner.liveKey!)).json()).error.message).toMatch(/This merchant already has 3 event streams open/);
    // Another merchant is not held back by this one.
    const other = await newMerchant();
    const elsewhere = await openStream({ apiKey: other.testKey });
    expect(elsewhere.response.status).toBe(200);
    for (const stream of [a1, a2, b1, elsewhere]) stream.close();
    await expect.poll(() => leasesOf(owner.id), LEASE_RELEASE_WAIT).toBe(0);
  });
});
