/**
 * The cap on concurrent event streams (N9): each open GET /api/events/stream holds a lease row in
 * PostgreSQL, so every instance counts the same streams. At most EVENT_STREAMS_PER_KEY per API key and
 * EVENT_STREAMS_PER_MERCHANT per merchant (its keys and modes together); one more is refused with 429
 * `too_many_streams` and a Retry-After. The serving instance renews the lease while the stream is open and
 * deletes it when the stream ends; a crashed instance's leases expire after LEASE_TTL_MS and stop counting.
 */
import 'server-only';
import { and, count, eq, lte, sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { eventStreamLeases } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';

/** A lease not renewed for this long belongs to a stream no instance serves any more. */
const LEASE_TTL_MS = 45_000;
/** How often a serving instance renews its lease (well inside LEASE_TTL_MS). */
export const LEASE_RENEW_MS = 15_000;
/** What a refused client is told to wait: a renewed slot frees only when a stream ends. */
const RETRY_AFTER_SECONDS = 30;

export interface EventStreamLease {
  id: string;
  /** Pushes the expiry on; false when the lease is gone (expired and taken back): the stream should end. */
  renew(): Promise<boolean>;
  /** Frees the slot at once (idempotent). */
  release(): Promise<void>;
}

export async function acquireEventStreamLease(input: { merchantId: string; apiKeyId: string }): Promise<EventStreamLease> {
  const config = env();
  const id = newId('eventStreamLease');
  await getDb().transaction(async (tx) => {
    // One opener at a time per merchant, so two instances cannot both take the last slot.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`event_streams:${input.merchantId}`}, 0))`);
    await tx
      .delete(eventStreamLeases)
      .where(and(eq(eventStreamLeases.merchantId, input.merchantId), lte(eventStreamLeases.expiresAt, sql`now()`)));
    const [row] = await tx
      .select({
        merchant: count(),
        key: sql<number>`count(*) filter (where ${eventStreamLeases.apiKeyId} = ${input.apiKeyId})::int`,
      })
      .from(eventStreamLeases)
      .where(eq(eventStreamLeases.merchantId, input.merchantId));
    const open = { key: Number(row?.key ?? 0), merchant: Number(row?.merchant ?? 0) };
    const headers = { 'retry-after': String(RETRY_AFTER_SECONDS) };
    if (open.key >= config.EVENT_STREAMS_PER_KEY) {
      throw new AppError(
        'too_many_streams',
        `This API key already has ${open.key} event streams open, the most allowed at once (${config.EVENT_STREAMS_PER_KEY}). Close one (or let it end) before opening another; one stream per process is enough.`,
        { headers, details: { limit: String(config.EVENT_STREAMS_PER_KEY), scope: 'api_key' } },
      );
    }
    if (open.merchant >= config.EVENT_STREAMS_PER_MERCHANT) {
      throw new AppError(
        'too_many_streams',
        `This merchant already has ${open.merchant} event streams open across its keys, the most allowed at once (${config.EVENT_STREAMS_PER_MERCHANT}). Close one before opening another, or receive events by webhook.`,
        { headers, details: { limit: String(config.EVENT_STREAMS_PER_MERCHANT), scope: 'merchant' } },
      );
    }
    await tx.insert(eventStreamLeases).values({
      id,
      merchantId: input.merchantId,
      apiKeyId: input.apiKeyId,
      expiresAt: sql`now() + make_interval(secs => ${LEASE_TTL_MS / 1000})`,
    });
  });
  let released = false;
  return {
    id,
    async renew() {
      if (released) return false;
      const renewed = await getDb()
        .update(eventStreamLeases)
        .set({ expiresAt: sql`now() + make_interval(secs => ${LEASE_TTL_MS / 1000})` })
        .where(eq(eventStreamLeases.id, id))
        .returning({ id: eventStreamLeases.id });
      return renewed.length > 0;
    },
    async release() {
      if (released) return;
      released = true;
      await getDb().delete(eventStreamLeases).where(eq(eventStreamLeases.id, id));
    },
  };
}
