/**
 * One delivery attempt: claim the row, sign, POST, record, schedule what follows. What the pg-boss
 * worker runs for each `webhook-delivery` job (queue.ts), and what tests call directly.
 *
 * At-least-once without double delivery of an attempt:
 *  - pg-boss hands a job to one worker (SKIP LOCKED), but may hand it out again (the worker died, the
 *    job expired), and the stuck-delivery sweep may enqueue a second job for the same row. So the row
 *    is claimed first: `pending → sending` (or a `sending` claim older than the lease, whose worker is
 *    presumed dead) in one guarded UPDATE. A second job for the same attempt finds it claimed or done
 *    and sends nothing. Only a worker that dies mid-request causes a resend, after the lease — that is
 *    the "at least once" every receiver must tolerate (the webhook-id stays the same for dedup).
 *  - The outcome is recorded only if the claim is still ours (`claimed_at` unchanged), together with the
 *    next attempt's row and job, or the endpoint's new status, in one transaction.
 *  - No database transaction is open during the HTTP request.
 *
 * Outcomes: 2xx → succeeded (a failing endpoint becomes active again). 410 → the endpoint is disabled,
 * no more attempts. Anything else → failed, and the next attempt is scheduled on the Standard Webhooks
 * schedule (retry-schedule.ts); after the last one the endpoint is marked failing and the merchant is
 * e-mailed (a durable job, once per active → failing change).
 */
import { randomUUID } from 'node:crypto';
import { and, eq, inArray, lt, or, sql } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { webhookDeliveries, webhookEndpoints, webhookEvents, type WebhookDeliveryRow } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { newId } from '@/lib/ids';
import { enqueueDeliveries, enqueueFailingNotice } from './jobs';
import { nextAttemptDelay } from './retry-schedule';
import { signingSecretsOf } from './secrets';
import { signWebhook } from './signing';
import { DEFAULT_DELIVERY_TIMEOUT_MS, deliverWebhookRequest, type DeliveryResult } from './ssrf-guard';
import { observeWebhookDelivery } from '@/lib/metrics/metrics';

/** A claim older than this is taken over: well above the 10 s request budget plus recording. */
export const CLAIM_LEASE_MS = 60_000;
/** Bytes of the endpoint's answer kept in the delivery log. */
const RESPONSE_BODY_BYTES = 2048;
const ERROR_MESSAGE_CHARS = 500;

export type AttemptOutcome =
  | { kind: 'succeeded'; status: number }
  | { kind: 'failed'; code: string; status?: number; nextAttemptAt: Date | null; endpointFailing: boolean }
  | { kind: 'endpoint_disabled'; status: number }
  /** Not sent: the endpoint was disabled (or deleted) before this attempt. */
  | { kind: 'canceled' }
  /** Nothing to do: the row is gone or already finished (a duplicate job). */
  | { kind: 'skipped' }
  /** Our claim was taken over while we were sending (we were too slow); the new holder records. */
  | { kind: 'superseded' };

/** Another worker holds a fresh claim on this attempt; the job is retried later by pg-boss. */
export class DeliveryClaimedError extends Error {
  override name = 'DeliveryClaimedError';
}

export interface AttemptOptions {
  /** Delay after failed attempt n (1-based), or null when it was the last. Tests shorten it. */
  retryDelay?: (attempt: number) => number | null;
  /** Passed to the request (tests: a local HTTPS receiver's certificate). */
  ca?: string;
  timeoutMs?: number;
}

export async function attemptDelivery(deliveryId: string, options: AttemptOptions = {}): Promise<AttemptOutcome> {
  const db = getDb();
  const claimedAt = new Date();
  const [claimed] = await db
    .update(webhookDeliveries)
    .set({ status: 'sending', claimedAt })
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        or(
          eq(webhookDeliveries.status, 'pending'),
          and(eq(webhookDeliveries.status, 'sending'), lt(webhookDeliveries.claimedAt, new Date(claimedAt.getTime() - CLAIM_LEASE_MS))),
        ),
      ),
    )
    .returning();
  if (!claimed) {
    const [row] = await db.select({ status: webhookDeliveries.status }).from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    if (row?.status === 'sending') throw new DeliveryClaimedError(`delivery ${deliveryId} is being sent by another worker`);
    return { kind: 'skipped' };
  }

  const [target] = await db
    .select({ endpoint: webhookEndpoints, payload: webhookEvents.payload, eventId: webhookEvents.id })
    .from(webhookEndpoints)
    .innerJoin(webhookEvents, eq(webhookEvents.id, claimed.eventId))
    .where(eq(webhookEndpoints.id, claimed.endpointId));
  if (!target || !target.endpoint.enabled) {
    await finish(claimed, claimedAt, { status: 'canceled', errorCode: 'endpoint_disabled', attemptedAt: new Date() });
    return { kind: 'canceled' };
  }
  const { endpoint } = target;

  const body = JSON.stringify(target.payload);
  const headers = signWebhook({ secret: signingSecretsOf(endpoint), id: target.eventId, timestamp: new Date(), body });
  const result = await deliverWebhookRequest({
    url: endpoint.url,
    mode: endpoint.mode,
    body,
    headers: { ...headers },
    timeoutMs: options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
    maxBodyBytes: RESPONSE_BODY_BYTES,
    allowLoopback: env().WEBHOOKS_ALLOW_LOOPBACK,
    ...(options.ca ? { ca: options.ca } : {}),
  });
  return recordOutcome({ claimed, claimedAt, endpointId: endpoint.id, result, options });
}

async function recordOutcome({
  claimed,
  claimedAt,
  endpointId,
  result,
  options,
}: {
  claimed: WebhookDeliveryRow;
  claimedAt: Date;
  endpointId: string;
  result: DeliveryResult;
  options: AttemptOptions;
}): Promise<AttemptOutcome> {
  const attemptedAt = new Date();
  observeWebhookDelivery(result.ok ? 'succeeded' : 'failed', result.durationMs);
  const logged = {
    attemptedAt,
    responseStatus: result.status ?? null,
    responseBody: result.ok || result.bodySnippet !== undefined ? storableText(result.bodySnippet ?? '') : null,
    durationMs: result.durationMs,
  };
  return getDb().transaction(async (tx) => {
    if (result.ok) {
      if (!(await finish(claimed, claimedAt, { ...logged, status: 'succeeded' }, tx))) return { kind: 'superseded' as const };
      await tx
        .update(webhookEndpoints)
        .set({ status: 'active', failingSince: null })
        .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.status, 'failing')));
      return { kind: 'succeeded' as const, status: result.status };
    }

    const failure = {
      ...logged,
      status: 'failed' as const,
      errorCode: result.code,
      errorMessage: result.message.slice(0, ERROR_MESSAGE_CHARS),
    };
    if (result.status === 410) {
      if (!(await finish(claimed, claimedAt, failure, tx))) return { kind: 'superseded' as const };
      await tx
        .update(webhookEndpoints)
        .set({
          enabled: false,
          status: 'disabled',
          disabledReason: `The endpoint answered 410 Gone on ${attemptedAt.toISOString()}; enable it again once it accepts events.`,
        })
        .where(eq(webhookEndpoints.id, endpointId));
      return { kind: 'endpoint_disabled' as const, status: 410 };
    }

    const delay = (options.retryDelay ?? nextAttemptDelay)(claimed.attempt);
    const nextAttemptAt = delay === null ? null : new Date(attemptedAt.getTime() + delay);
    if (!(await finish(claimed, claimedAt, { ...failure, nextAttemptAt }, tx))) return { kind: 'superseded' as const };
    let endpointFailing = false;
    if (nextAttemptAt) {
      const next = await tx
        .insert(webhookDeliveries)
        .values({
          id: newId('webhookDelivery'),
          eventId: claimed.eventId,
          endpointId,
          attempt: claimed.attempt + 1,
          status: 'pending',
          scheduledAt: nextAttemptAt,
          jobId: randomUUID(),
        })
        .onConflictDoNothing()
        .returning();
      await enqueueDeliveries(tx, next);
    } else {
      // Retries used up. Only the change active → failing e-mails, so a merchant hears of it once.
      const flipped = await tx
        .update(webhookEndpoints)
        .set({ status: 'failing', failingSince: attemptedAt })
        .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.status, 'active')))
        .returning({ id: webhookEndpoints.id });
      if (flipped.length) await enqueueFailingNotice(tx, endpointId);
      endpointFailing = true;
    }
    return { kind: 'failed' as const, code: result.code, status: result.status, nextAttemptAt, endpointFailing };
  });
}

/** Records the end of our claim; false when the claim is no longer ours. */
async function finish(
  claimed: WebhookDeliveryRow,
  claimedAt: Date,
  values: Partial<typeof webhookDeliveries.$inferInsert>,
  tx: DbOrTx = getDb(),
): Promise<boolean> {
  const updated = await tx
    .update(webhookDeliveries)
    .set(values)
    .where(and(eq(webhookDeliveries.id, claimed.id), eq(webhookDeliveries.status, 'sending'), eq(webhookDeliveries.claimedAt, claimedAt)))
    .returning({ id: webhookDeliveries.id });
  return updated.length === 1;
}

/** PostgreSQL text cannot hold NUL; an endpoint's answer is whatever it sent. */
function storableText(text: string): string {
  return text.replace(/\u0000/g, '');
}

/**
 * Deliveries whose job was lost (pg-boss retries used up during a database outage, a queue cleared by
 * hand): still `pending` long after they were due, or `sending` long after the lease. Each gets a new
 * job; the claim makes a duplicate job harmless. Returns how many were re-enqueued.
 */
export async function requeueStuckDeliveries({
  olderThanMs = 60 * 60_000,
  limit = 100,
}: { olderThanMs?: number; limit?: number } = {}): Promise<number> {
  const cutoff = new Date(Date.now() - olderThanMs);
  return getDb().transaction(async (tx) => {
    const stuck = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(
        or(
          and(eq(webhookDeliveries.status, 'pending'), lt(webhookDeliveries.scheduledAt, cutoff)),
          and(eq(webhookDeliveries.status, 'sending'), lt(webhookDeliveries.claimedAt, cutoff)),
        ),
      )
      .limit(limit)
      .for('update', { skipLocked: true });
    if (stuck.length === 0) return 0;
    const requeued = await tx
      .update(webhookDeliveries)
      .set({ jobId: sql`gen_random_uuid()::text`, scheduledAt: new Date() })
      .where(
        inArray(
          webhookDeliveries.id,
          stuck.map((row) => row.id),
        ),
      )
      .returning();
    await enqueueDeliveries(tx, requeued);
    return requeued.length;
  });
}
