/**
 * The relay as production runs it, on the outbox's notification (queue.ts), with its fallback timer
 * parked for the hour: a burst of events is relayed in a few gathered passes, not one pass each, and a
 * delivery written without its job (a test event) is announced and gets its job at once. Its own
 * database, so no other test process's relay takes these events.
 */
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as createEndpointRoute } from '@/app/api/webhook-endpoints/route';
import { getDb, listenForNotifications } from '@/lib/db/client';
import { webhookDeliveries, webhookEvents } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { callRoute, newMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@/test/webhook-receiver';
import { startWebhookQueue, stopWebhookQueue } from './queue';
import { sendTestWebhookEvent } from './send-test-event';

let receiver: WebhookReceiver;

beforeAll(async () => {
  await switchToPrivateDatabase('relay');
  await startWebhookQueue({
    relayIntervalMs: 60 * 60_000,
    // Longer than production's 25 ms so the burst below fits in one or two windows on a busy machine.
    relayGatherMs: 200,
    pollingIntervalSeconds: 0.5,
  });
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await stopWebhookQueue();
  await receiver.close();
});

async function insertEvent(merchantId: string, type: string): Promise<string> {
  const id = newId('webhookEvent');
  await getDb().insert(webhookEvents).values({ id, merchantId, mode: 'test', type, chargeId: null, payload: {}, createdAt: new Date() });
  return id;
}

describe('which events wake the relay at their commit', () => {
  it('every event but charge.created notifies: new charges, written at their own rate, wait for the poll', async () => {
    const merchant = await newMerchant();
    const payloads: string[] = [];
    let listening!: () => void;
    const ready = new Promise<void>((resolve) => (listening = resolve));
    // Ended with the others by closeDb() when the file's process ends.
    listenForNotifications('webhook_events', {
      onNotification: (payload) => payloads.push(payload),
      onListening: () => listening(),
      onLost: () => {},
    });
    await ready;
    await insertEvent(merchant.id, 'charge.created');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(payloads).toEqual([]);
    await insertEvent(merchant.id, 'charge.succeeded');
    await waitFor(() => payloads.length > 0, { what: 'the notification of charge.succeeded' });
    expect(payloads).toEqual(['']);
  });
});

describe('the relay on notification', () => {
  it('gathers a burst: 12 events committed one by one are relayed in one or a few passes, not one each', async () => {
    const merchant = await newMerchant();
    const ids: string[] = [];
    for (let index = 0; index < 12; index++) {
      // Each insert commits on its own, and the outbox trigger notifies at each commit.
      ids.push(await insertEvent(merchant.id, 'charge.succeeded'));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const relayed = await waitFor(
      async () => {
        const rows = await getDb()
          .select({ relayedAt: webhookEvents.relayedAt })
          .from(webhookEvents)
          .where(and(inArray(webhookEvents.id, ids), isNotNull(webhookEvents.relayedAt)));
        return rows.length === ids.length ? rows : undefined;
      },
      { what: 'every event relayed by the notified relay (its timer is parked)' },
    );
    // One pass stamps its whole batch with one time; ungathered, each event would have had its own pass.
    const passes = new Set(relayed!.map((row) => row.relayedAt!.getTime())).size;
    expect(passes).toBeLessThanOrEqual(3);
  });

  it('gives a test event its job at its commit, not on the fallback timer, and the receiver gets it', async () => {
    const merchant = await newMerchant();
    const created = await callRoute(createEndpointRoute, { apiKey: merchant.testKey, body: { url: receiver.url } });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const { delivery } = await sendTestWebhookEvent({ owner: { merchantId: merchant.id, mode: 'test' }, endpointId: created.json.data.id });
    expect(delivery.jobId).toBeNull();
    await waitFor(
      async () => {
        const [row] = await getDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id));
        return row?.status === 'succeeded' ? row : undefined;
      },
      { what: 'the test event delivered' },
    );
    expect(receiver.received.some((request) => request.headers['webhook-id'] === delivery.eventId)).toBe(true);
  });
});
