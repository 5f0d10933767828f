import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as eventsRoute } from '@/app/api/checkout/[chargeId]/events/route';
import { getDb } from '@/lib/db/client';
import { charges, payments } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { resetEnvCache } from '@/lib/env';
import { createTestCharge, newMerchant, POLYGON_USDC, usdcCharge } from '@/test/fixtures';
import { loadCheckoutStatus, type CheckoutStatus } from './checkout-status';
import { openCheckoutEventStream } from './checkout-event-stream';

/** Reads a server-sent event stream: each `next()` gives the next event (data as JSON, or a comment). */
function reader(body: ReadableStream<Uint8Array>) {
  const stream = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next(timeoutMs = 3_000): Promise<{ data?: CheckoutStatus; comment?: string; done?: true }> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith('retry:')) continue;
          if (block.startsWith(':')) return { comment: block.slice(1).trim() };
          return { data: JSON.parse(block.replace(/^data: /, '')) as CheckoutStatus };
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
        const chunk = await Promise.race([
          stream.read(),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), left)),
        ]);
        if (chunk.done) return { done: true };
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
  };
}

let merchantKey: string | undefined;

beforeAll(async () => {
  process.env.CLIENT_IP_HEADER = 'x-test-client-ip';
  process.env.CHECKOUT_STREAMS_PER_IP = '2';
  resetEnvCache();
  merchantKey = (await newMerchant()).liveKey;
});

afterAll(() => {
  delete process.env.CLIENT_IP_HEADER;
  delete process.env.CHECKOUT_STREAMS_PER_IP;
  resetEnvCache();
});

async function newCharge(): Promise<string> {
  return (await createTestCharge({ apiKey: merchantKey, body: usdcCharge() })).chargeId;
}

function open(chargeId: string, ip: string, controller = new AbortController()) {
  const request = new Request(`http://localhost/api/checkout/${chargeId}/events`, {
    headers: { 'x-test-client-ip': ip },
    signal: controller.signal,
  });
  return { response: eventsRoute(request, { params: Promise.resolve({ chargeId }) }), controller };
}

describe('GET /api/checkout/{chargeId}/events', () => {
  it("sends the checkout's status on connect, then each change pushed by the database, and ends at a final status", async () => {
    const chargeId = await newCharge();
    const response = await open(chargeId, '198.51.100.1').response;
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toContain('no-transform');
    const events = reader(response.body!);

    const first = await events.next();
    // The same public view as the status route.
    expect(first.data).toEqual(JSON.parse(JSON.stringify(await loadCheckoutStatus(chargeId))));
    expect(first.data?.status).toBe('pending');

    // A payment recorded (by any writer) is pushed with its amount.
    await getDb()
      .insert(payments)
      .values({
        id: newId('payment'),
        chargeId,
        chain: 'POLYGON',
        // A hash of its own: other test files record payments in the same database.
        txHash: `0x${randomBytes(32).toString('hex')}`,
        logIndex: 0,
        fromAddress: `0x${'11'.repeat(20)}`,
        toAddress: `0x${'22'.repeat(20)}`,
        tokenAddress: POLYGON_USDC,
        amountBaseUnits: 1_000_000n,
        blockNumber: 1n,
        blockHash: `0x${'cd'.repeat(32)}`,
        status: 'confirmed',
      });
    const paid = await events.next(1_000);
    expect(paid.data?.payments).toMatchObject([{ amount: '1', status: 'confirmed' }]);
    expect(paid.data?.received).toBe('1');

    // Any writer: a status written straight to the table reaches the stream through the trigger's NOTIFY.
    const changed = Date.now();
    await getDb().update(charges).set({ status: 'processing' }).where(eq(charges.id, chargeId));
    const pushed = await events.next(1_000);
    expect(pushed.data?.status).toBe('processing');
    expect(Date.now() - changed).toBeLessThan(1_000);

    await getDb().update(charges).set({ status: 'canceled' }).where(eq(charges.id, chargeId));
    expect((await events.next(1_000)).data?.status).toBe('canceled');
    expect(await events.next(1_000)).toEqual({ done: true });
  });

  it('a change to another charge is not sent', async () => {
    const [watched, other] = [await newCharge(), await newCharge()];
    const { response, controller } = open(watched, '198.51.100.2');
    const events = reader((await response).body!);
    expect((await events.next()).data?.chargeId).toBe(watched);
    await getDb().update(charges).set({ status: 'canceled' }).where(eq(charges.id, other));
    await expect(events.next(700)).rejects.toThrow(/no event/);
    controller.abort();
  });

  it('a charge already final gets its status once and the stream ends', async () => {
    const chargeId = await newCharge();
    await getDb().update(charges).set({ status: 'canceled' }).where(eq(charges.id, chargeId));
    const events = reader((await open(chargeId, '198.51.100.7').response).body!);
    expect((await events.next()).data?.status).toBe('canceled');
    expect(await events.next(1_000)).toEqual({ done: true });
  });

  it('an unknown charge is 404 not_found before any stream opens', async () => {
    const response = await open('ch_0000000000000000000000', '198.51.100.3').response;
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('caps open streams per client IP (CHECKOUT_STREAMS_PER_IP); a closed stream frees its place', async () => {
    const chargeId = await newCharge();
    const a = open(chargeId, '198.51.100.4');
    const b = open(chargeId, '198.51.100.4');
    expect((await a.response).status).toBe(200);
    expect((await b.response).status).toBe(200);
    const refused = await open(chargeId, '198.51.100.4').response;
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    // Another client is not affected.
    const other = open(chargeId, '198.51.100.5');
    expect((await other.response).status).toBe(200);
    a.controller.abort();
    const again = open(chargeId, '198.51.100.4');
    expect((await again.response).status).toBe(200);
    for (const stream of [b, other, again]) stream.controller.abort();
  });

  it('a client that goes away frees its place even after the Request object itself was garbage-collected', async () => {
    // undici stops passing an abort on to request.signal once the Request is collected; the stream holds it.
    const chargeId = await newCharge();
    const first = open(chargeId, '198.51.100.7');
    const second = open(chargeId, '198.51.100.7');
    expect((await first.response).status).toBe(200);
    expect((await second.response).status).toBe(200);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    first.controller.abort();
    const again = open(chargeId, '198.51.100.7');
    expect((await again.response).status).toBe(200);
    for (const stream of [second, again]) stream.controller.abort();
  });

  it('sends a heartbeat comment while nothing changes', async () => {
    const chargeId = await newCharge();
    const controller = new AbortController();
    const stream = openCheckoutEventStream({
      initial: (await loadCheckoutStatus(chargeId))!,
      clientIp: '198.51.100.6',
      request: new Request('http://localhost/api/checkout/events', { signal: controller.signal }),
      heartbeatMs: 100,
    });
    const events = reader(stream);
    expect((await events.next()).data?.status).toBe('pending');
    expect(await events.next(1_000)).toEqual({ comment: 'heartbeat' });
    controller.abort();
  });
});
