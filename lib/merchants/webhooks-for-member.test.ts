/**
 * The dashboard's Webhooks tab against real PostgreSQL and pg-boss. pg-boss is started for enqueueing
 * only: delivery.test.ts's workers may share the queue from another process, so this file runs the
 * attempts itself (attemptDelivery, what a worker runs) and tolerates a worker having taken one first.
 */
import { and, asc, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { auditLog, merchantMembers, webhookDeliveries, webhookEndpoints, webhookEvents, type MemberRole } from '@/lib/db/schema';
import { newUser } from '@/test/accounts';
import { newMerchant, type TestMerchant } from '@/test/fixtures';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@/test/webhook-receiver';
import { attemptDelivery, DeliveryClaimedError } from '@/lib/webhooks/attempt-delivery';
import { DELIVERY_QUEUE } from '@/lib/webhooks/enqueue-deliveries';
import { runningBoss } from '@/lib/webhooks/running-boss';
import { listEvents } from '@/lib/webhooks/list-events';
import { listWebhookDeliveries } from '@/lib/webhooks/list-deliveries';
import {
  createWebhookEndpointForMember,
  deleteWebhookEndpointForMember,
  getWebhookEndpointForMember,
  listWebhookDeliveriesForMember,
  listWebhookEndpointsForMember,
  resendWebhookEventForMember,
  revealWebhookSecretForMember,
  rotateWebhookSecretForMember,
  sendTestWebhookEventForMember,
  updateWebhookEndpointForMember,
} from './webhooks-for-member';
import { startWebhookQueue, stopWebhookQueue } from '@/lib/webhooks/queue';
import { relayWaitingDeliveries } from '@/lib/webhooks/relay';
import { sendTestWebhookEvent } from '@/lib/webhooks/send-test-event';

const receivers: WebhookReceiver[] = [];
let merchant: TestMerchant;
const members: Partial<Record<MemberRole, string>> = {};

beforeAll(async () => {
  await startWebhookQueue({ work: false });
});

afterAll(async () => {
  await stopWebhookQueue();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

beforeEach(async () => {
  merchant = await newMerchant();
  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) {
    members[role] = await newUser();
    await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: members[role]!, role });
  }
});

const as = (role: MemberRole, mode: 'test' | 'live' = 'test') => ({
  userId: members[role]!,
  merchantId: merchant.id,
  mode,
  ip: '203.0.113.9',
});

async function receiver(respond?: (index: number) => number | null): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(respond);
  receivers.push(started);
  return started;
}

async function newEndpoint(url: string, role: MemberRole = 'developer'): Promise<string> {
  return (await createWebhookEndpointForMember({ ...as(role), input: { url, description: 'Game server' } })).id;
}

async function deliveryRow(id: string) {
  const [row] = await getDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row!;
}

/** Runs the attempt as a worker would; if another process's worker took it, waits for its outcome. */
async function deliver(deliveryId: string) {
  await attemptDelivery(deliveryId).catch((error: unknown) => {
    if (!(error instanceof DeliveryClaimedError)) throw error;
  });
  return waitFor(
    async () => {
      const row = await deliveryRow(deliveryId);
      return row.status !== 'pending' && row.status !== 'sending' ? row : undefined;
    },
    { what: `delivery ${deliveryId} to finish` },
  );
}

async function auditActions() {
  return getDb().select().from(auditLog).where(eq(auditLog.merchantId, merchant.id)).orderBy(asc(auditLog.createdAt));
}

describe('roles', () => {
  it('owners, admins and developers manage endpoints; a viewer reads, is refused every change, and nothing changes', async () => {
    const hook = await receiver();
    for (const role of ['owner', 'admin', 'developer'] as const) await newEndpoint(`${hook.url}?by=${role}`, role);
    const endpointId = await newEndpoint(hook.url);
    await sendTestWebhookEventForMember({ ...as('developer'), endpointId });
    const [sent] = await getDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

    const endpointsBefore = await getDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, merchant.id));
    const deliveriesBefore = await getDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
    const auditBefore = await auditActions();
    const viewer = { ...as('viewer'), endpointId };
    const refused = [
      () => createWebhookEndpointForMember({ ...as('viewer'), input: { url: hook.url } }),
      () => updateWebhookEndpointForMember({ ...viewer, input: { enabled: false } }),
      () => deleteWebhookEndpointForMember(viewer),
      () => revealWebhookSecretForMember(viewer),
      () => rotateWebhookSecretForMember({ ...viewer, overlapHours: 0 }),
      () => sendTestWebhookEventForMember(viewer),
      () => resendWebhookEventForMember({ ...viewer, eventId: sent!.eventId }),
    ];
    for (const call of refused) await expect(call()).rejects.toMatchObject({ code: 'forbidden' });
    expect(await getDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, merchant.id))).toEqual(endpointsBefore);
    expect(await getDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId))).toEqual(deliveriesBefore);
    expect(await auditActions()).toEqual(auditBefore);

    // Viewers read: the endpoints and the delivery log.
    expect((await listWebhookEndpointsForMember(as('viewer'))).map((e) => e.id)).toContain(endpointId);
    expect((await getWebhookEndpointForMember(viewer)).url).toBe(hook.url);
    expect((await listWebhookDeliveriesForMember(viewer)).deliveries).toHaveLength(1);
    // Not a member: nothing; the other mode: not found.
    const outsider = await newUser();
    await expect(listWebhookEndpointsForMember({ userId: outsider, merchantId: merchant.id, mode: 'test' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(await listWebhookEndpointsForMember(as('owner', 'live'))).toEqual([]);
    await expect(getWebhookEndpointForMember({ ...as('owner', 'live'), endpointId })).rejects.toMatchObject({ code: 'not_found' });
    await expect(revealWebhookSecretForMember({ ...as('owner', 'live'), endpointId })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('audit log', () => {
  it('records every change and every reveal, with actor, role, mode and IP, and never a secret', async () => {
    const hook = await receiver();
    const endpointId = await newEndpoint(hook.url, 'developer');
    await updateWebhookEndpointForMember({ ...as('admin'), endpointId, input: { eventTypes: ['charge.succeeded'], description: 'Shop' } });
    const { secret } = await revealWebhookSecretForMember({ ...as('owner'), endpointId });
    const rotated = await rotateWebhookSecretForMember({ ...as('developer'), endpointId, overlapHours: 24 });
    const revealed = await revealWebhookSecretForMember({ ...as('developer'), endpointId });
    expect(revealed.secret).toBe(rotated.secret);
    expect(revealed.previous?.secret).toBe(secret);
    const { eventId } = await sendTestWebhookEventForMember({ ...as('developer'), endpointId });
    await resendWebhookEventForMember({ ...as('admin'), endpointId, eventId });
    await deleteWebhookEndpointForMember({ ...as('owner'), endpointId });

    const entries = await auditActions();
    expect(entries.map((e) => [e.action, e.actorRole])).toEqual([
      ['webhook_endpoint.create', 'developer'],
      ['webhook_endpoint.update', 'admin'],
      ['webhook_endpoint.reveal_secret', 'owner'],
      ['webhook_endpoint.rotate_secret', 'developer'],
      ['webhook_endpoint.reveal_secret', 'developer'],
      ['webhook_endpoint.send_test_event', 'developer'],
      ['webhook_event.resend', 'admin'],
      ['webhook_endpoint.delete', 'owner'],
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({ mode: 'test', ip: '203.0.113.9', actorUserId: members[entry.actorRole!] });
      expect([endpointId, eventId]).toContain(entry.targetId);
      const stored = JSON.stringify(entry);
      for (const s of [secret, rotated.secret]) expect(stored).not.toContain(s.slice('whsec_'.length));
    }
    expect(entries[3]!.data).toMatchObject({ overlapHours: 24 });
    await expect(getWebhookEndpointForMember({ ...as('owner'), endpointId })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a change that fails leaves no audit entry', async () => {
    await expect(
      createWebhookEndpointForMember({ ...as('owner', 'live'), input: { url: 'http://127.0.0.1:9/hook' } }),
    ).rejects.toMatchObject({
      code: 'invalid_webhook_url',
    });
    await expect(rotateWebhookSecretForMember({ ...as('owner'), endpointId: 'we_missing', overlapHours: 1 })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await auditActions()).toEqual([]);
  });
});

describe('test events', () => {
  it('goes to this endpoint only, through the queue, signed per Standard Webhooks, and shows in the log', async () => {
    const hook = await receiver();
    const endpointId = await newEndpoint(hook.url);
    // Another endpoint subscribed to everything gets nothing: a test event is not fanned out.
    const bystander = await receiver();
    await newEndpoint(bystander.url);
    const { eventId, deliveryId } = await sendTestWebhookEventForMember({ ...as('developer'), endpointId });

    const [event] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.id, eventId));
    expect(event).toMatchObject({ type: 'webhook.test', mode: 'test', chargeId: null, relayedAt: expect.any(Date) });
    // Written by the web process without pg-boss: no job until the relay gives it one.
    expect(await deliveryRow(deliveryId)).toMatchObject({ endpointId, attempt: 1, status: 'pending', jobId: null });
    expect(await relayWaitingDeliveries()).toBeGreaterThanOrEqual(1);
    const queued = await deliveryRow(deliveryId);
    expect(queued.jobId).toEqual(expect.any(String));
    const jobs = await runningBoss().findJobs(DELIVERY_QUEUE, { id: queued.jobId! });
    expect(jobs.map((job) => job.data)).toEqual([{ deliveryId }]);

    expect(await deliver(deliveryId)).toMatchObject({
      status: 'succeeded',
      responseStatus: 200,
      responseBody: 'ok',
      durationMs: expect.any(Number),
    });
    expect(hook.received).toHaveLength(1);
    const { secret } = await revealWebhookSecretForMember({ ...as('developer'), endpointId });
    const payload = new Webhook(secret).verify(hook.received[0]!.body, hook.received[0]!.headers);
    expect(payload).toMatchObject({
      id: eventId,
      object: 'event',
      type: 'webhook.test',
      mode: 'test',
      data: { endpoint: { id: endpointId, url: hook.url } },
    });
    expect(hook.received[0]!.headers['webhook-id']).toBe(eventId);
    expect(bystander.received).toHaveLength(0);

    const { deliveries } = await listWebhookDeliveriesForMember({ ...as('viewer'), endpointId });
    expect(deliveries).toEqual([
      expect.objectContaining({
        id: deliveryId,
        eventId,
        eventType: 'webhook.test',
        attempt: 1,
        status: 'succeeded',
        responseStatus: 200,
        responseBody: 'ok',
      }),
    ]);
    expect(JSON.parse(deliveries[0]!.requestBody)).toEqual(payload);
    // Not a charge event: GET /api/events does not list it.
    const listed = await listEvents({ owner: { merchantId: merchant.id, mode: 'test' }, query: { limit: 100 } });
    expect(listed.events.map((e) => e.id)).not.toContain(eventId);
  });

  it('is refused for a disabled endpoint', async () => {
    const endpointId = await newEndpoint((await receiver()).url);
    await updateWebhookEndpointForMember({ ...as('developer'), endpointId, input: { enabled: false } });
    await expect(sendTestWebhookEventForMember({ ...as('developer'), endpointId })).rejects.toMatchObject({ code: 'invalid_request' });
    expect((await listWebhookDeliveriesForMember({ ...as('developer'), endpointId })).deliveries).toEqual([]);
  });
});

describe('resend', () => {
  it('is a new attempt (a new delivery row) that replaces a waiting retry, with the same webhook-id', async () => {
    const hook = await receiver((index) => (index === 0 ? 500 : 200));
    const endpointId = await newEndpoint(hook.url);
    const { eventId, deliveryId } = await sendTestWebhookEventForMember({ ...as('developer'), endpointId });
    // Attempt 1 fails; the production schedule puts attempt 2 about 5 s later.
    expect(await deliver(deliveryId)).toMatchObject({
      status: 'failed',
      responseStatus: 500,
      responseBody: 'nope 500',
      nextAttemptAt: expect.any(Date),
    });
    const [, retry] = await getDb()
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.eventId, eventId))
      .orderBy(asc(webhookDeliveries.attempt));
    expect(retry).toMatchObject({ attempt: 2, status: 'pending' });

    const resent = await resendWebhookEventForMember({ ...as('developer'), endpointId, eventId });
    expect(resent.attempt).toBe(3);
    expect(await deliveryRow(retry!.id)).toMatchObject({ status: 'canceled', errorCode: 'replaced_by_resend' });
    expect(await deliver(resent.deliveryId)).toMatchObject({ attempt: 3, status: 'succeeded', responseStatus: 200 });
    // The canceled retry's job, whenever it runs, sends nothing.
    expect(await attemptDelivery(retry!.id)).toEqual({ kind: 'skipped' });

    expect(hook.received).toHaveLength(2);
    expect(hook.received[1]!.headers['webhook-id']).toBe(hook.received[0]!.headers['webhook-id']);
    const log = await listWebhookDeliveriesForMember({ ...as('viewer'), endpointId });
    expect(log.deliveries.map((d) => [d.attempt, d.status, d.responseStatus])).toEqual([
      [3, 'succeeded', 200],
      [2, 'canceled', null],
      [1, 'failed', 500],
    ]);
  });

  it('is refused while an attempt is being sent, and for an event this endpoint was never sent', async () => {
    const endpointId = await newEndpoint((await receiver()).url);
    const other = await newEndpoint((await receiver()).url);
    const { eventId, deliveryId } = await sendTestWebhookEventForMember({ ...as('developer'), endpointId });
    await getDb().update(webhookDeliveries).set({ status: 'sending', claimedAt: new Date() }).where(eq(webhookDeliveries.id, deliveryId));
    await expect(resendWebhookEventForMember({ ...as('developer'), endpointId, eventId })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(resendWebhookEventForMember({ ...as('developer'), endpointId: other, eventId })).rejects.toMatchObject({
      code: 'not_found',
    });
    const rows = await getDb()
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.eventId, eventId)));
    expect(rows).toHaveLength(1);
  });
});

describe('delivery log', () => {
  it('pages newest first and narrows to one event', async () => {
    const endpointId = await newEndpoint((await receiver()).url);
    const owner = { merchantId: merchant.id, mode: 'test' as const };
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await sendTestWebhookEventForMember({ ...as('developer'), endpointId }));
    const first = await listWebhookDeliveries({ owner, endpointId, limit: 2 });
    expect(first.deliveries.map((d) => d.eventId)).toEqual([sent[2]!.eventId, sent[1]!.eventId]);
    expect(first.hasMore).toBe(true);
    const second = await listWebhookDeliveries({ owner, endpointId, limit: 2, before: first.deliveries[1]!.id });
    expect(second.deliveries.map((d) => d.eventId)).toEqual([sent[0]!.eventId]);
    expect(second.hasMore).toBe(false);
    const one = await listWebhookDeliveries({ owner, endpointId, eventId: sent[1]!.eventId });
    expect(one.deliveries.map((d) => d.id)).toEqual([sent[1]!.deliveryId]);
    // A relay batch gives its deliveries one created_at (with microseconds): the event's time orders
    // them, and a page cut inside the batch loses nothing.
    const batch = await getDb().transaction(async (tx) => {
      const base = Date.now();
      const events = [];
      for (let i = 0; i < 3; i++)
        events.push((await sendTestWebhookEvent({ owner, endpointId, db: tx, now: new Date(base + i) })).event.id);
      return events;
    });
    const top = await listWebhookDeliveries({ owner, endpointId, limit: 2 });
    expect(top.deliveries.map((d) => d.eventId)).toEqual([batch[2], batch[1]]);
    const rest = await listWebhookDeliveries({ owner, endpointId, limit: 2, before: top.deliveries[1]!.id });
    expect(rest.deliveries.map((d) => d.eventId)).toEqual([batch[0], sent[2]!.eventId]);
    // Another merchant's endpoint id is not found, and a cursor from elsewhere is refused.
    await expect(
      listWebhookDeliveries({ owner: { merchantId: (await newMerchant()).id, mode: 'test' }, endpointId }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(listWebhookDeliveries({ owner, endpointId, before: 'wdl_elsewhere' })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
