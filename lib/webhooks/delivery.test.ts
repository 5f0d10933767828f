/**
 * Webhook delivery end to end: real PostgreSQL, real pg-boss (schema `pgboss`), receivers on
 * 127.0.0.1 (test-mode endpoints may use loopback). The outbox relay is called by the tests (its
 * timer is parked) so each step is deterministic; the pg-boss workers run as in production, except
 * that the retry schedule is shortened to 0 ms (same number of attempts) and the request timeout to 4 s.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as getChargeRoute } from '@/app/api/charges/[chargeId]/route';
import { POST as createEndpointRoute } from '@/app/api/webhook-endpoints/route';
import { transitionCharge } from '@/lib/charges/transition-charge';
import { getDb } from '@/lib/db/client';
import { env } from '@/lib/env';
import { charges, merchants, payments, webhookDeliveries, webhookEndpoints, webhookEvents } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { readOutbox } from '@/lib/notifications/outbox';
import { callRoute, createTestCharge, newMerchant, testCharge, type TestMerchant } from '@/test/fixtures';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@/test/webhook-receiver';
import { attemptDelivery, DeliveryClaimedError, requeueStuckDeliveries } from './attempt-delivery';
import { emitPaymentFailed } from '@/lib/charges/charge-events';
import { DELIVERY_QUEUE } from './enqueue-deliveries';
import { runningBoss } from './running-boss';
import { PGBOSS_SCHEMA, startWebhookQueue, stopWebhookQueue } from './queue';
import { relayWebhookEvents } from './relay';
import { MAX_DELIVERY_ATTEMPTS } from './next-attempt-delay';
import { rotateWebhookSecret } from './rotate-webhook-secret';
import { deleteWebhookEndpoint } from './delete-webhook-endpoint';

const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  await startWebhookQueue({
    relayIntervalMs: 60 * 60_000,
    relayOnNotify: false,
    pollingIntervalSeconds: 0.5,
    attempt: { retryDelay: (attempt) => (attempt < MAX_DELIVERY_ATTEMPTS ? 0 : null), timeoutMs: 4_000 },
  });
});

afterAll(async () => {
  await stopWebhookQueue();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiver(respond?: (index: number) => number | null): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(respond);
  receivers.push(started);
  return started;
}

/** A merchant with one test-mode endpoint pointing at `url`. */
async function merchantWithEndpoint(
  url: string,
  eventTypes?: string[],
): Promise<{ merchant: TestMerchant; endpointId: string; secret: string }> {
  const merchant = await newMerchant();
  const res = await callRoute(createEndpointRoute, { apiKey: merchant.testKey, body: { url, ...(eventTypes ? { eventTypes } : {}) } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return { merchant, endpointId: res.json.data.id, secret: res.json.data.secret };
}

async function newCharge(merchant: TestMerchant): Promise<string> {
  return (await createTestCharge({ apiKey: merchant.testKey, body: testCharge() })).chargeId;
}

async function transition(chargeId: string, ...statuses: ('processing' | 'succeeded' | 'canceled')[]): Promise<void> {
  await getDb().transaction(async (tx) => {
    for (const to of statuses) await transitionCharge(tx, { chargeId, to, actor: 'test' });
  });
}

async function relayAll(): Promise<void> {
  while ((await relayWebhookEvents()) > 0);
}

async function deliveriesOf(endpointId: string) {
  return getDb()
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.attempt));
}

async function eventsOf(chargeId: string) {
  return getDb().select().from(webhookEvents).where(eq(webhookEvents.chargeId, chargeId)).orderBy(asc(webhookEvents.createdAt));
}

async function endpointRow(endpointId: string) {
  const [row] = await getDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
  return row;
}

/**
 * A pending attempt-1 row without a pg-boss job, for calling attemptDelivery by hand. It has a job id
 * all the same: a null one means "waiting for the relay" (relayWaitingDeliveries), which another test
 * process could act on.
 */
async function manualDelivery(eventId: string, endpointId: string): Promise<string> {
  const id = newId('webhookDelivery');
  await getDb()
    .insert(webhookDeliveries)
    .values({ id, eventId, endpointId, attempt: 1, status: 'pending', scheduledAt: new Date(), jobId: randomUUID() });
  return id;
}

describe('emission is part of the state change', () => {
  it('commits exactly one event per change with it; a rolled-back change leaves no event and no job', async () => {
    const hook = await receiver();
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url);
    const chargeId = await newCharge(merchant);

    await expect(
      getDb().transaction(async (tx) => {
        await transitionCharge(tx, { chargeId, to: 'canceled', actor: 'test' });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await transition(chargeId, 'processing');

    // Committed, not relayed yet: were the process to die now, the outbox still holds both events.
    const events = await eventsOf(chargeId);
    expect(events.map((event) => [event.type, event.relayedAt])).toEqual([
      ['charge.created', null],
      ['charge.processing', null],
    ]);
    expect(await deliveriesOf(endpointId)).toEqual([]);

    await relayAll();
    await relayAll();
    const deliveries = await deliveriesOf(endpointId);
    expect(deliveries.map((d) => [d.eventId, d.attempt]).sort()).toEqual(events.map((event) => [event.id, 1]).sort());
    // The first event's delivery has its job; the second waits for it (per-charge order) — it may
    // already have been released if the worker was quick.
    const first = deliveries.find((d) => d.eventId === events[0]!.id)!;
    const jobs = await runningBoss().findJobs(DELIVERY_QUEUE, { id: first.jobId! });
    expect(jobs.map((job) => job.data)).toEqual([{ deliveryId: first.id }]);
    expect((await eventsOf(chargeId)).every((event) => event.relayedAt !== null)).toBe(true);

    await waitFor(() => hook.received.length >= 2, { what: 'two deliveries' });
    expect(hook.received.map((r) => JSON.parse(r.body).type)).toEqual(['charge.created', 'charge.processing']);
  });
});

describe('payment.failed', () => {
  it("is emitted in the caller's transaction with the failed attempt, and delivered to subscribers", async () => {
    const hook = await receiver();
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url, ['payment.failed']);
    const chargeId = await newCharge(merchant);
    const attempt = { id: newId('outboundTransfer'), chain: 'POLYGON_AMOY', txHash: `0x${'ef'.repeat(32)}`, reason: 'reverted' };
    await expect(
      getDb().transaction(async (tx) => {
        await emitPaymentFailed(tx, { chargeId, attempt });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await getDb().transaction((tx) => emitPaymentFailed(tx, { chargeId, attempt }));
    expect((await eventsOf(chargeId)).map((event) => event.type)).toEqual(['charge.created', 'payment.failed']);

    await relayAll();
    await waitFor(() => hook.received.length > 0, { what: 'the delivery' });
    expect(JSON.parse(hook.received[0]!.body)).toMatchObject({
      type: 'payment.failed',
      data: { charge: { id: chargeId, status: 'pending' }, paymentAttempt: attempt },
    });
    expect(await deliveriesOf(endpointId)).toHaveLength(1);
  });
});

describe('delivery', () => {
  it('POSTs charge.succeeded signed per Standard Webhooks, carrying the charge as the API returns it', async () => {
    const hook = await receiver();
    const { merchant, secret } = await merchantWithEndpoint(hook.url, ['charge.succeeded']);
    const chargeId = await newCharge(merchant);
    const [charge] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
    await getDb()
      .insert(payments)
      .values({
        id: newId('payment'),
        chargeId,
        chain: charge!.chain,
        txHash: `0x${'ab'.repeat(32)}`,
        logIndex: -1,
        fromAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        toAddress: '0x0000000000000000000000000000000000000001',
        tokenAddress: charge!.tokenAddress,
        amountBaseUnits: charge!.totalBaseUnits,
        blockNumber: 12n,
        blockHash: `0x${'cd'.repeat(32)}`,
        status: 'confirmed',
      });
    await transition(chargeId, 'processing', 'succeeded');
    await relayAll();

    await waitFor(() => hook.received.length > 0, { what: 'the delivery' });
    const [delivered] = hook.received;
    const event = new Webhook(secret).verify(delivered!.body, delivered!.headers) as any;
    expect(event).toMatchObject({
      object: 'event',
      type: 'charge.succeeded',
      mode: 'test',
      data: { charge: { id: chargeId, status: 'succeeded' } },
    });
    expect(delivered!.headers['webhook-id']).toBe(event.id);
    expect(event.id).toMatch(/^wevt_/);
    expect(delivered!.headers['content-type']).toBe('application/json');

    const api = await callRoute(getChargeRoute, { apiKey: merchant.testKey, params: { chargeId } });
    const { timeline: _timeline, ...asTheApiReturnsIt } = api.json.data;
    expect(event.data.charge).toEqual(asTheApiReturnsIt);
    expect(event.data.charge.payments).toEqual([
      expect.objectContaining({ txHash: `0x${'ab'.repeat(32)}`, status: 'confirmed', amount: '0.3' }),
    ]);
    expect(event.data.charge.items).toEqual([expect.objectContaining({ name: 'Sword', quantity: 3, lineTotal: '0.3' })]);

    // Only the subscribed type was sent, and another secret does not verify it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received).toHaveLength(1);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(delivered!.body, delivered!.headers)).toThrow();
  });

  it('signs with the old and the new secret while a rotation overlaps', async () => {
    const hook = await receiver();
    const { merchant, endpointId, secret: oldSecret } = await merchantWithEndpoint(hook.url);
    const { secret: newSecret } = await rotateWebhookSecret({ owner: { merchantId: merchant.id, mode: 'test' }, endpointId });
    await newCharge(merchant);
    await relayAll();
    await waitFor(() => hook.received.length > 0, { what: 'the delivery' });
    const [delivered] = hook.received;
    expect(delivered!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(newSecret).verify(delivered!.body, delivered!.headers)).toMatchObject({ type: 'charge.created' });
    expect(new Webhook(oldSecret).verify(delivered!.body, delivered!.headers)).toMatchObject({ type: 'charge.created' });
  });

  it('retries a receiver that answers 500, with the same webhook-id, until it takes the event', async () => {
    const hook = await receiver((index) => (index === 0 ? 500 : 200));
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url);
    await newCharge(merchant);
    await relayAll();
    await waitFor(async () => (await deliveriesOf(endpointId)).some((d) => d.status === 'succeeded'), { what: 'the retry' });

    const deliveries = await deliveriesOf(endpointId);
    expect(deliveries.map((d) => [d.attempt, d.status, d.responseStatus])).toEqual([
      [1, 'failed', 500],
      [2, 'succeeded', 200],
    ]);
    expect(deliveries[0]).toMatchObject({ errorCode: 'http_error', responseBody: 'nope 500' });
    expect(deliveries[0]!.nextAttemptAt).toEqual(deliveries[1]!.scheduledAt);
    expect(hook.received).toHaveLength(2);
    expect(hook.received[1]!.headers['webhook-id']).toBe(hook.received[0]!.headers['webhook-id']);
  });

  it('schedules the next attempt on the Standard Webhooks schedule (5 s ± 20% after the first)', async () => {
    const hook = await receiver(() => 503);
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url, ['payment.failed']);
    const chargeId = await newCharge(merchant);
    const [event] = await eventsOf(chargeId);
    const deliveryId = await manualDelivery(event!.id, endpointId);

    // The production schedule (no retryDelay option), called the way the worker calls it.
    const outcome = await attemptDelivery(deliveryId);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'http_error', status: 503, endpointFailing: false });
    const [first, second] = await deliveriesOf(endpointId);
    const delay = first!.nextAttemptAt!.getTime() - first!.attemptedAt!.getTime();
    expect(delay).toBeGreaterThanOrEqual(4_000);
    expect(delay).toBeLessThanOrEqual(6_000);
    expect(second).toMatchObject({ attempt: 2, status: 'pending', scheduledAt: first!.nextAttemptAt });
    const [job] = await runningBoss().findJobs(DELIVERY_QUEUE, { id: second!.jobId! });
    expect(job!.data).toEqual({ deliveryId: second!.id });
    expect(Math.abs(job!.startAfter.getTime() - first!.nextAttemptAt!.getTime())).toBeLessThan(1_000);
    await deleteWebhookEndpoint({ owner: { merchantId: merchant.id, mode: 'test' }, endpointId });
  });

  it('sends an attempt once when two workers claim it at the same time', async () => {
    const hook = await receiver();
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url, ['payment.failed']);
    const chargeId = await newCharge(merchant);
    const [event] = await eventsOf(chargeId);
    const deliveryId = await manualDelivery(event!.id, endpointId);

    const outcomes = await Promise.allSettled([attemptDelivery(deliveryId), attemptDelivery(deliveryId)]);
    const kinds = outcomes.map((o) =>
      o.status === 'fulfilled' ? o.value.kind : o.reason instanceof DeliveryClaimedError ? 'claimed' : String(o.reason),
    );
    expect(kinds).toContain('succeeded');
    expect(kinds.filter((kind) => kind === 'succeeded')).toHaveLength(1);
    expect(await attemptDelivery(deliveryId)).toEqual({ kind: 'skipped' });
    expect(hook.received).toHaveLength(1);
  });

  it('records an outcome whose recording transaction failed, on its next try, without sending it again', async () => {
    const hook = await receiver();
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url);
    // Fault: the first time this endpoint's delivery is recorded as succeeded, the recording transaction
    // fails inside (a trigger raises). The sequence counts the tries: nextval is not rolled back with it.
    const fault = `record_fault_${randomUUID().replace(/-/g, '')}`;
    await getDb().execute(sql.raw(`create sequence ${fault}`));
    await getDb().execute(
      sql.raw(`create function ${fault}() returns trigger language plpgsql as $$
        begin
          if nextval('${fault}') = 1 then raise exception 'injected recording failure'; end if;
          return new;
        end $$`),
    );
    await getDb().execute(
      sql.raw(`create trigger ${fault} before update on webhook_deliveries for each row
        when (new.endpoint_id = '${endpointId}' and new.status = 'succeeded') execute function ${fault}()`),
    );
    try {
      await newCharge(merchant);
      await relayAll();
      await waitFor(async () => (await deliveriesOf(endpointId)).some((d) => d.status === 'succeeded'), {
        what: 'the outcome, recorded on the second try',
      });
      const [tries] = await getDb().execute<{ last_value: string }>(sql.raw(`select last_value::text from ${fault}`));
      expect(tries!.last_value).toBe('2');
      const rows = await deliveriesOf(endpointId);
      expect(rows.map((row) => [row.attempt, row.status])).toEqual([[1, 'succeeded']]);
      // The job completed with the outcome (not left to expire and run again), and the receiver got one request.
      const [job] = await getDb().execute<{ state: string }>(
        sql`select state from ${sql.identifier(PGBOSS_SCHEMA)}.job where id = ${rows[0]!.jobId}`,
      );
      expect(job?.state).toBe('completed');
      expect(hook.received).toHaveLength(1);
    } finally {
      await getDb().execute(sql.raw(`drop trigger ${fault} on webhook_deliveries`));
      await getDb().execute(sql.raw(`drop function ${fault}()`));
      await getDb().execute(sql.raw(`drop sequence ${fault}`));
    }
  });

  it('re-enqueues a delivery whose job was lost', async () => {
    const hook = await receiver();
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url, ['payment.failed']);
    const chargeId = await newCharge(merchant);
    const [event] = await eventsOf(chargeId);
    const deliveryId = await manualDelivery(event!.id, endpointId);
    await getDb()
      .update(webhookDeliveries)
      .set({ scheduledAt: new Date(Date.now() - 2 * 60 * 60_000) })
      .where(eq(webhookDeliveries.id, deliveryId));

    expect(await requeueStuckDeliveries()).toBeGreaterThanOrEqual(1);
    await waitFor(async () => (await deliveriesOf(endpointId))[0]?.status === 'succeeded', { what: 'the re-enqueued delivery' });
    expect(hook.received).toHaveLength(1);
  });

  it('moves an endpoint only as webhookEndpointMachine allows: a success never revives a disabled one, a later 410 leaves it as it was', async () => {
    let answer = 200;
    const hook = await receiver(() => answer);
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url);
    // As if another delivery's 410 disabled it while this one was on its way (still enabled when claimed).
    await getDb()
      .update(webhookEndpoints)
      .set({ status: 'disabled', disabledReason: 'first 410' })
      .where(eq(webhookEndpoints.id, endpointId));
    const chargeId = await newCharge(merchant);
    await relayAll();
    await waitFor(async () => (await deliveriesOf(endpointId))[0]?.status === 'succeeded', { what: 'the delivery to succeed' });
    expect(await endpointRow(endpointId)).toMatchObject({ status: 'disabled', disabledReason: 'first 410' });

    answer = 410;
    await transition(chargeId, 'canceled');
    await relayAll();
    await waitFor(async () => (await deliveriesOf(endpointId)).some((d) => d.responseStatus === 410), { what: 'the 410' });
    expect(await endpointRow(endpointId)).toMatchObject({ status: 'disabled', disabledReason: 'first 410' });
  });

  it('disables the endpoint on 410 Gone and stops sending to it', async () => {
    const hook = await receiver(() => 410);
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url);
    const chargeId = await newCharge(merchant);
    await relayAll();
    await waitFor(async () => (await endpointRow(endpointId))?.status === 'disabled', { what: 'the endpoint to be disabled' });

    expect(await endpointRow(endpointId)).toMatchObject({
      enabled: false,
      status: 'disabled',
      disabledReason: expect.stringContaining('410'),
    });
    expect((await deliveriesOf(endpointId)).map((d) => [d.attempt, d.status, d.responseStatus])).toEqual([[1, 'failed', 410]]);
    await transition(chargeId, 'canceled');
    await relayAll();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await deliveriesOf(endpointId)).toHaveLength(1);
    expect(hook.received).toHaveLength(1);
  });

  it('after the last retry marks the endpoint failing and e-mails the merchant once; a success makes it active again', async () => {
    let healthy = false;
    const hook = await receiver(() => (healthy ? 200 : 500));
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url);
    const [{ email }] = (await getDb().select({ email: merchants.email }).from(merchants).where(eq(merchants.id, merchant.id))) as [
      { email: string },
    ];
    const chargeId = await newCharge(merchant);
    await relayAll();

    await waitFor(async () => (await endpointRow(endpointId))?.status === 'failing', {
      what: 'the endpoint to be failing',
      timeoutMs: 15_000,
    });
    const deliveries = await deliveriesOf(endpointId);
    expect(deliveries).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    expect(deliveries.every((d) => d.status === 'failed')).toBe(true);
    expect(deliveries.at(-1)!.nextAttemptAt).toBeNull();
    await waitFor(() => readOutbox('email', email).length > 0, { what: 'the e-mail' });
    const [mail] = readOutbox('email', email);
    expect(mail!.subject).toBe(`Webhook endpoint failing: ${hook.url}`);
    expect(mail!.text).toContain(endpointId);

    // Another event that uses up its retries: still one e-mail.
    await transition(chargeId, 'canceled');
    await relayAll();
    await waitFor(
      async () =>
        (await deliveriesOf(endpointId)).length === 2 * MAX_DELIVERY_ATTEMPTS &&
        (await deliveriesOf(endpointId)).every((d) => d.status === 'failed'),
      {
        what: 'the second event to exhaust its retries',
        timeoutMs: 15_000,
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(readOutbox('email', email)).toHaveLength(1);

    healthy = true;
    await newCharge(merchant);
    await relayAll();
    await waitFor(async () => (await endpointRow(endpointId))?.status === 'active', { what: 'the endpoint to recover' });
    expect((await endpointRow(endpointId))?.failingSince).toBeNull();
  });

  it('keeps delivering to other merchants while one endpoint hangs', async () => {
    const slow = await receiver(() => null);
    const fast = await receiver();
    const stuck = await merchantWithEndpoint(slow.url);
    const other = await merchantWithEndpoint(fast.url);
    for (let i = 0; i < 4; i++) await newCharge(stuck.merchant);
    await relayAll();
    // Four is below the cap: all four go at once and hang.
    await waitFor(() => slow.received.length === 4, { what: 'the slow endpoint to be called four times' });

    const started = Date.now();
    await newCharge(other.merchant);
    await relayAll();
    await waitFor(() => fast.received.length >= 1, { what: "the other merchant's delivery", timeoutMs: 1_500 });
    expect(Date.now() - started).toBeLessThan(1_500);
    // The hung requests hold their claims (and their endpoint's slots, at most its cap: tested below), not the other merchant's.
    const inFlight = await getDb()
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.endpointId, stuck.endpointId), inArray(webhookDeliveries.status, ['sending'])));
    expect(inFlight).toHaveLength(4);
    await deleteWebhookEndpoint({ owner: { merchantId: stuck.merchant.id, mode: 'test' }, endpointId: stuck.endpointId });
  });
});

/** The event ids of a charge in sequence order, and the webhook-ids a receiver got (every request, in order). */
async function eventIdsOf(chargeId: string): Promise<string[]> {
  return (await getDb().select().from(webhookEvents).where(eq(webhookEvents.chargeId, chargeId)).orderBy(asc(webhookEvents.sequence))).map(
    (event) => event.id,
  );
}
const idsReceived = (hook: WebhookReceiver) => hook.received.map((r) => r.headers['webhook-id']!);
const typeOf = (hook: WebhookReceiver, index: number) => JSON.parse(hook.received[index]!.body).type as string;

describe('sequence numbers', () => {
  it("number a charge's events 1, 2, 3… in the payload and the row, payment.failed's included, in commit order with no gap after a rollback", async () => {
    const hook = await receiver();
    const { merchant } = await merchantWithEndpoint(hook.url);
    const chargeId = await newCharge(merchant);
    await transition(chargeId, 'processing');
    const attempt = { id: newId('outboundTransfer'), chain: 'POLYGON_AMOY', txHash: null, reason: 'reverted' };
    // A rolled-back emission gives its number back.
    await expect(
      getDb().transaction(async (tx) => {
        await emitPaymentFailed(tx, { chargeId, attempt });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // Two emitters at once: the second waits for the first's commit and takes the next number.
    await Promise.all([
      getDb().transaction((tx) => emitPaymentFailed(tx, { chargeId, attempt })),
      getDb().transaction((tx) => emitPaymentFailed(tx, { chargeId, attempt })),
    ]);
    await transition(chargeId, 'succeeded');

    const events = await eventsOf(chargeId);
    expect(events.map((event) => event.sequence).sort()).toEqual([1, 2, 3, 4, 5]);
    for (const event of events) expect((event.payload as { sequence: number }).sequence).toBe(event.sequence);
    const byType = Object.fromEntries(events.map((event) => [event.type, event.sequence]));
    expect(byType).toMatchObject({ 'charge.created': 1, 'charge.processing': 2, 'charge.succeeded': 5 });

    await relayAll();
    await waitFor(() => hook.received.length >= 5, { what: 'five deliveries' });
    expect(hook.received.map((r) => JSON.parse(r.body).sequence)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe("per-charge order: a charge's events reach each endpoint in sequence order", () => {
  it('a later event waits (held) while an earlier one is retrying, and goes once it is delivered', async () => {
    // charge.created fails three times (its second attempt hangs until the 4 s request timeout, so the
    // retrying is still under way when the later events are looked at); everything else is taken at once.
    let createdAttempts = 0;
    const hook = await receiver((index) => {
      if (typeOf(hook, index) !== 'charge.created') return 200;
      createdAttempts++;
      if (createdAttempts === 2) return null;
      return createdAttempts <= 3 ? 500 : 200;
    });
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url);
    const chargeId = await newCharge(merchant);
    await transition(chargeId, 'processing', 'succeeded');
    const [created, processing, succeeded] = await eventIdsOf(chargeId);
    await relayAll();

    await waitFor(() => createdAttempts === 2, { what: 'the second attempt of charge.created, hanging' });
    const whileRetrying = await deliveriesOf(endpointId);
    expect(whileRetrying.filter((d) => d.eventId === created).map((d) => d.status)).toEqual(['failed', 'sending']);
    expect(whileRetrying.filter((d) => d.eventId !== created).map((d) => [d.eventId, d.status])).toEqual(
      expect.arrayContaining([
        [processing, 'held'],
        [succeeded, 'held'],
      ]),
    );

    await waitFor(async () => (await deliveriesOf(endpointId)).filter((d) => d.status === 'succeeded').length === 3, {
      what: 'the retries and the two later events',
      timeoutMs: 15_000,
    });
    expect(idsReceived(hook)).toEqual([created, created, created, created, processing, succeeded]);
  }, 30_000);

  it('after the earlier event used up its retries, the later one goes', async () => {
    const hook = await receiver((index) => (typeOf(hook, index) === 'charge.created' ? 500 : 200));
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url);
    const chargeId = await newCharge(merchant);
    await transition(chargeId, 'canceled');
    const [created, canceled] = await eventIdsOf(chargeId);
    await relayAll();

    await waitFor(async () => (await deliveriesOf(endpointId)).some((d) => d.eventId === canceled && d.status === 'succeeded'), {
      what: 'every attempt, then the later event',
      timeoutMs: 15_000,
    });
    expect(idsReceived(hook)).toEqual([...Array<string>(MAX_DELIVERY_ATTEMPTS).fill(created!), canceled]);
    const rows = await deliveriesOf(endpointId);
    expect(rows.filter((d) => d.eventId === created).every((d) => d.status === 'failed')).toBe(true);
    expect(rows.filter((d) => d.eventId === canceled).map((d) => d.status)).toEqual(['succeeded']);
  });

  it('an event relayed before an earlier one of its charge (another relayer holds that one) waits for it', async () => {
    const hook = await receiver();
    const { merchant, endpointId } = await merchantWithEndpoint(hook.url);
    const chargeId = await newCharge(merchant);
    await transition(chargeId, 'canceled');
    const [created, canceled] = await eventIdsOf(chargeId);

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // Another relayer's transaction holds charge.created (its batch), as SKIP LOCKED would leave it.
    const other = getDb().transaction(async (tx) => {
      await tx.select().from(webhookEvents).where(eq(webhookEvents.id, created!)).for('update');
      locked();
      await held;
    });
    await isLocked;
    await relayAll();
    expect((await deliveriesOf(endpointId)).map((d) => [d.eventId, d.status])).toEqual([[canceled, 'held']]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received).toHaveLength(0);

    release();
    await other;
    await relayAll();
    await waitFor(() => hook.received.length >= 2, { what: 'both events' });
    expect(idsReceived(hook)).toEqual([created, canceled]);
  });
});

describe('one endpoint that keeps up', () => {
  it('receives the events of many charges in commit order, one after another as they are committed', async () => {
    const hook = await receiver();
    const { merchant } = await merchantWithEndpoint(hook.url);
    const committed: string[] = [];
    for (let i = 0; i < 15; i++) {
      const chargeId = await newCharge(merchant);
      committed.push(...(await eventIdsOf(chargeId)));
      // The relay runs on NOTIFY in production; the events come 50 ms apart, slower than the receiver takes them.
      await relayAll();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await waitFor(() => hook.received.length >= committed.length, { what: 'all fifteen deliveries', timeoutMs: 15_000 });
    expect(idsReceived(hook)).toEqual(committed);
  }, 30_000);
});

describe('per-endpoint concurrency cap', () => {
  it('a receiver taking 2 s per request gets no more than its cap (16) at once; another endpoint is served meanwhile', async () => {
    const cap = env().WEBHOOK_ENDPOINT_CONCURRENCY;
    expect(cap).toBe(16);
    // More than the cap: the rest must wait for a slot.
    const charges = cap + 4;
    let open = 0;
    let mostOpen = 0;
    const slowServer = http.createServer((req, res) => {
      open++;
      mostOpen = Math.max(mostOpen, open);
      req.resume();
      setTimeout(() => {
        open--;
        res.writeHead(200).end('ok');
      }, 2_000);
    });
    await new Promise<void>((resolve) => slowServer.listen(0, '127.0.0.1', resolve));
    const slowUrl = `http://127.0.0.1:${(slowServer.address() as AddressInfo).port}/hooks`;
    try {
      const fast = await receiver();
      const slow = await merchantWithEndpoint(slowUrl);
      const other = await merchantWithEndpoint(fast.url);
      for (let i = 0; i < charges; i++) await newCharge(slow.merchant);
      await relayAll();
      await waitFor(() => open >= cap, { what: 'the slow endpoint to be busy' });

      const started = Date.now();
      await newCharge(other.merchant);
      await relayAll();
      await waitFor(() => fast.received.length >= 1, { what: "the other endpoint's delivery", timeoutMs: 1_500 });
      expect(Date.now() - started).toBeLessThan(1_000);

      await waitFor(async () => (await deliveriesOf(slow.endpointId)).filter((d) => d.status === 'succeeded').length === charges, {
        what: "the slow endpoint's deliveries",
        timeoutMs: 15_000,
      });
      expect(mostOpen).toBe(cap);
    } finally {
      slowServer.closeAllConnections();
      await new Promise((resolve) => slowServer.close(resolve));
    }
  }, 40_000);
});
