/**
 * One delivery attempt: claim the row, sign, POST, record, schedule what follows. The worker
 * (queue.ts) runs the same steps for a batch of pg-boss jobs at a time — claimDeliveries,
 * sendAttempt for each, recordOutcomes — and tests call attemptDelivery for one.
 *
 * At-least-once without double delivery of an attempt:
 *  - pg-boss hands a job to one worker (SKIP LOCKED), but may hand it out again (the worker died, the
 *    job expired), and the stuck-delivery sweep may enqueue a second job for the same row. So the row
 *    is claimed first: `pending → sending` (or a `sending` claim older than the lease, whose worker is
 *    presumed dead) in one guarded UPDATE. A second job for the same attempt finds it claimed or done
 *    and sends nothing. Only a worker that dies mid-request causes a resend, after the lease — that is
 *    the "at least once" every receiver must tolerate (the webhook-id stays the same for dedup).
 *  - The outcome is recorded only if the claim is still ours (`claimed_at` unchanged), together with the
 *    next attempt's row and job, or the endpoint's new status, and the release of the charge's next
 *    event to this endpoint, in one transaction (record-outcomes.ts).
 *  - No database transaction is open during the HTTP request.
 *
 * Outcomes: 2xx → succeeded (a failing endpoint becomes active again). 410 → the endpoint is disabled,
 * no more attempts. Anything else → failed, and the next attempt is scheduled on the Standard Webhooks
 * schedule (next-attempt-delay.ts); after the last one the endpoint is marked failing and the merchant is
 * e-mailed (a durable job, once per active → failing change).
 */
import type http from 'node:http';
import { and, inArray, lt, or, sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { webhookDeliveries } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { claimDeliveries, type ClaimedDelivery } from './claim-deliveries';
import { enqueueDeliveries } from './enqueue-deliveries';
import { recordOutcomes } from './record-outcomes';
import type { AttemptOutcome, SentAttempt } from './delivery-types';
import { signingSecretsOf } from './secrets';
import { signWebhook } from './sign-webhook';
import { observeWebhookDelivery } from '@/lib/metrics/metrics';
import { DEFAULT_DELIVERY_TIMEOUT_MS, deliverWebhookRequest } from './deliver-webhook-request';
import { statusIs } from '@/lib/db/status-is';

/** Bytes of the endpoint's answer kept in the delivery log. */
const RESPONSE_BODY_BYTES = 2048;

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

/** Claims, sends and records one attempt (tests; the worker does the same per batch). */
export async function attemptDelivery(deliveryId: string, options: AttemptOptions = {}): Promise<AttemptOutcome> {
  const { claimed, busy } = await claimDeliveries([deliveryId]);
  if (busy.length) throw new DeliveryClaimedError(`delivery ${deliveryId} is being sent by another worker`);
  const [attempt] = claimed;
  if (!attempt) return { kind: 'skipped' };
  const [outcome] = await recordOutcomes([await sendAttempt(attempt, options)], options);
  return outcome!;
}

/** Signs and POSTs a claimed attempt (no database work); an attempt to a disabled endpoint is canceled unsent. */
export async function sendAttempt(claimed: ClaimedDelivery, options: AttemptOptions & { agent?: http.Agent } = {}): Promise<SentAttempt> {
  const { endpoint } = claimed;
  if (!endpoint.enabled) return { claimed, canceled: true };
  const { body } = claimed;
  const headers = signWebhook({ secret: signingSecretsOf(endpoint), id: claimed.delivery.eventId, timestamp: new Date(), body });
  const result = await deliverWebhookRequest({
    url: endpoint.url,
    mode: endpoint.mode,
    body,
    headers: { ...headers },
    timeoutMs: options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
    maxBodyBytes: RESPONSE_BODY_BYTES,
    allowLoopback: env().WEBHOOKS_ALLOW_LOOPBACK,
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.agent ? { agent: options.agent } : {}),
  });
  observeWebhookDelivery(result.ok ? 'succeeded' : 'failed', result.durationMs);
  return { claimed, result };
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
          and(statusIs(webhookDeliveries.status, 'pending'), lt(webhookDeliveries.scheduledAt, cutoff)),
          and(statusIs(webhookDeliveries.status, 'sending'), lt(webhookDeliveries.claimedAt, cutoff)),
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
