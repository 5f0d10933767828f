/**
 * The owner's events as server-sent events (GET /api/events/stream), for the Node SDK's `events.stream()` and any
 * merchant tool that wants events live without a public webhook URL.
 *
 * It polls webhook_events (the outbox every event is written to in its state change's transaction), so
 * every instance can serve it and nothing else has to publish. Order is (created_at, id), oldest first.
 * An event's created_at is set before its transaction commits, so a slow transaction can commit an event
 * older than one already streamed: each poll looks back LATE_COMMIT_WINDOW_MS and skips what it sent.
 *
 * Each stream holds a lease (acquire-event-stream-lease.ts): a key and a merchant may keep only so many
 * open at once (N9), counted in PostgreSQL across instances; the lease is renewed while the stream is
 * open and freed when it ends (the deadline, the client going away, an error).
 */
import { and, asc, eq, gt, gte, inArray, ne, notInArray, or, type SQL } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { webhookEvents } from '@/lib/db/schema';
import { AppError, inputExcerpt } from '@/lib/errors';
import { log } from '@/lib/log';
import { acquireEventStreamLease, LEASE_RENEW_MS } from './acquire-event-stream-lease';
import { TEST_EVENT_TYPE, type WebhookEventType } from './event-types';
import type { WebhookOwner } from './get-webhook-endpoint';

const POLL_MS = 1_000;
const KEEP_ALIVE_MS = 15_000;
const LATE_COMMIT_WINDOW_MS = 10_000;
const BATCH = 100;

export interface EventStreamOptions {
  owner: WebhookOwner;
  /** The key opening the stream: its open streams are capped (EVENT_STREAMS_PER_KEY). */
  apiKeyId: string;
  /** Start after this event (Last-Event-ID or starting_after); default: events created from now on. */
  startingAfter?: string;
  types?: WebhookEventType[];
  maxSeconds: number;
  /**
   * The request: the stream ends when the client goes away (its signal aborts). The stream holds the Request for
   * its whole life: a Request that is garbage-collected stops passing its caller's abort on to its signal (undici).
   */
  request?: Request;
  pollMs?: number;
}

/**
 * Checks the cursor (invalid_request when it is not the owner's event) and takes a stream slot
 * (too_many_streams when the key or merchant has none left), then returns the stream.
 */
export async function openEventStream(options: EventStreamOptions): Promise<ReadableStream<Uint8Array>> {
  const { owner } = options;
  const db = getDb();
  let floor = { createdAt: new Date(), id: '' };
  if (options.startingAfter) {
    const [cursor] = await db
      .select({ createdAt: webhookEvents.createdAt, id: webhookEvents.id })
      .from(webhookEvents)
      .where(
        and(
          eq(webhookEvents.id, options.startingAfter),
          eq(webhookEvents.merchantId, owner.merchantId),
          eq(webhookEvents.mode, owner.mode),
        ),
      );
    if (!cursor) {
      throw new AppError('invalid_request', `No event ${inputExcerpt(options.startingAfter)} for this key to resume after.`, {
        param: 'starting_after',
      });
    }
    floor = cursor;
  }
  const lease = await acquireEventStreamLease({ merchantId: owner.merchantId, apiKeyId: options.apiKeyId });
  const release = () => {
    lease.release().catch((error: unknown) => log.warn('event stream lease not released; it expires on its own', { error }));
  };

  const encoder = new TextEncoder();
  const seen = new Map<string, number>();
  let highWater = floor.createdAt.getTime();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  async function poll(): Promise<string[]> {
    const conditions: SQL[] = [
      eq(webhookEvents.merchantId, owner.merchantId),
      eq(webhookEvents.mode, owner.mode),
      ne(webhookEvents.type, TEST_EVENT_TYPE),
      or(gt(webhookEvents.createdAt, floor.createdAt), and(eq(webhookEvents.createdAt, floor.createdAt), gt(webhookEvents.id, floor.id)))!,
      gte(webhookEvents.createdAt, new Date(Math.max(highWater - LATE_COMMIT_WINDOW_MS, floor.createdAt.getTime()))),
    ];
    if (options.types?.length) conditions.push(inArray(webhookEvents.type, options.types));
    if (seen.size) conditions.push(notInArray(webhookEvents.id, [...seen.keys()]));
    const rows = await db
      .select({ id: webhookEvents.id, type: webhookEvents.type, createdAt: webhookEvents.createdAt, payload: webhookEvents.payload })
      .from(webhookEvents)
      .where(and(...conditions))
      .orderBy(asc(webhookEvents.createdAt), asc(webhookEvents.id))
      .limit(BATCH);
    for (const row of rows) {
      seen.set(row.id, row.createdAt.getTime());
      highWater = Math.max(highWater, row.createdAt.getTime());
    }
    for (const [id, at] of seen) if (at < highWater - LATE_COMMIT_WINDOW_MS) seen.delete(id);
    return rows.map((row) => `id: ${row.id}\nevent: ${row.type}\ndata: ${JSON.stringify(row.payload)}\n\n`);
  }

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const deadline = Date.now() + options.maxSeconds * 1000;
      let lastWrite = Date.now();
      let lastRenew = Date.now();
      const close = () => {
        if (closed) return;
        closed = true;
        clearTimeout(timer);
        release();
        try {
          controller.close();
        } catch {
          // already closed by the consumer
        }
      };
      const signal = options.request?.signal;
      if (signal?.aborted) return close();
      signal?.addEventListener('abort', close, { once: true });
      // Tells EventSource how long to wait before reconnecting, and flushes the headers at once.
      controller.enqueue(encoder.encode('retry: 2000\n\n'));
      const tick = async () => {
        if (closed) return;
        try {
          if (Date.now() - lastRenew >= LEASE_RENEW_MS) {
            lastRenew = Date.now();
            // Gone means it expired (this process stalled) and may be counted against someone else: end, the client reconnects.
            if (!(await lease.renew())) return close();
          }
          const messages = await poll();
          if (closed) return;
          for (const message of messages) controller.enqueue(encoder.encode(message));
          if (messages.length) lastWrite = Date.now();
          else if (Date.now() - lastWrite >= KEEP_ALIVE_MS) {
            controller.enqueue(encoder.encode(': keep-alive\n\n'));
            lastWrite = Date.now();
          }
        } catch (error) {
          if (closed) return;
          closed = true;
          release();
          controller.error(error);
          return;
        }
        if (Date.now() >= deadline) return close();
        timer = setTimeout(tick, options.pollMs ?? POLL_MS);
      };
      void tick();
    },
    cancel() {
      if (!closed) release();
      closed = true;
      clearTimeout(timer);
    },
  });
}
