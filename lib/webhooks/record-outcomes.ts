/**
 * Records the outcomes of sent attempts — a batch in one transaction of a handful of statements,
 * whatever its size: the worker records what finished while its previous batch was being written
 * (queue.ts), so under load one commit carries many attempts and at rest one.
 *
 * Per attempt, as before batching (attempt-delivery.ts): the outcome is written only while the claim
 * is still ours (`claimed_at` unchanged; else `superseded`, the new holder records); a failure inserts
 * and enqueues the next attempt on the Standard Webhooks schedule; after the last one the endpoint
 * turns failing and the merchant is e-mailed (once per active → failing change); 410 disables the
 * endpoint; a success makes a failing endpoint active again. An attempt that is final for its event
 * (delivered, out of retries, endpoint gone or disabled) releases the next event of its charge to that
 * endpoint (release-deliveries.ts). `inTransaction` lets the worker complete the attempts' pg-boss jobs
 * in the same commit.
 */
import { randomUUID } from 'node:crypto';
import { and, inArray, sql } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { webhookDeliveries, webhookEndpoints } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import type { AttemptOutcome, SentAttempt } from './delivery-types';
import { enqueueDeliveries } from './enqueue-deliveries';
import { enqueueFailingNotice } from './enqueue-failing-notice';
import { lockChargeChains, releaseNextDeliveries } from './release-deliveries';
import { nextAttemptDelay } from './next-attempt-delay';
import { webhookDeliveryMachine, webhookEndpointMachine, type WebhookEndpointStatus } from './state';

const ERROR_MESSAGE_CHARS = 500;

export interface RecordOptions {
  /** Delay after failed attempt n (1-based), or null when it was the last. Tests shorten it. */
  retryDelay?: (attempt: number) => number | null;
  /** Runs last in the recording transaction. */
  inTransaction?: (tx: DbOrTx) => Promise<void>;
}

interface Plan {
  sent: SentAttempt;
  values: {
    id: string;
    claimed_at: string;
    status: 'succeeded' | 'failed' | 'canceled';
    attempted_at: string;
    response_status: number | null;
    response_body: string | null;
    duration_ms: number | null;
    error_code: string | null;
    error_message: string | null;
    next_attempt_at: string | null;
  };
  outcome: AttemptOutcome;
  /** Delivered, out of retries, or not sendable: the charge's next event may go. */
  isFinal: boolean;
}

/** A success revives a failing endpoint only: a disabled one (410 Gone) waits for its merchant to enable it. */
const RECOVERS_FROM = ['failing'] as const satisfies readonly WebhookEndpointStatus[];

export async function recordOutcomes(sent: readonly SentAttempt[], options: RecordOptions = {}): Promise<AttemptOutcome[]> {
  const attemptedAt = new Date();
  const plans = sent.map((attempt) => planOutcome(attempt, attemptedAt, options.retryDelay ?? nextAttemptDelay));
  // The UPDATE below is guarded by `status = 'sending'`: every outcome must be a move the table allows from there.
  for (const plan of plans) webhookDeliveryMachine.assert('sending', plan.values.status, plan.values.id);
  return getDb().transaction(async (tx) => {
    const recordedIds = new Set<string>();
    if (plans.length) {
      const updated = await tx.execute<{ id: string }>(sql`
        update webhook_deliveries d set
          status = v.status::webhook_delivery_status, attempted_at = v.attempted_at, response_status = v.response_status,
          response_body = v.response_body, duration_ms = v.duration_ms, error_code = v.error_code,
          error_message = v.error_message, next_attempt_at = v.next_attempt_at
        from json_to_recordset(${JSON.stringify(plans.map((plan) => plan.values))}::json) as v(
          id text, claimed_at timestamptz, status text, attempted_at timestamptz, response_status integer, response_body text,
          duration_ms integer, error_code text, error_message text, next_attempt_at timestamptz)
        where d.id = v.id and d.status = 'sending' and d.claimed_at = v.claimed_at
        returning d.id`);
      for (const row of updated) recordedIds.add(row.id);
    }
    const recorded = plans.filter((plan) => recordedIds.has(plan.values.id));
    const delivery = (plan: Plan) => plan.sent.claimed.delivery;

    const retries = recorded.flatMap((plan) =>
      plan.outcome.kind === 'failed' && plan.outcome.nextAttemptAt
        ? [
            {
              id: newId('webhookDelivery'),
              eventId: delivery(plan).eventId,
              endpointId: delivery(plan).endpointId,
              chargeId: delivery(plan).chargeId,
              eventSequence: delivery(plan).eventSequence,
              attempt: delivery(plan).attempt + 1,
              status: 'pending' as const,
              scheduledAt: plan.outcome.nextAttemptAt,
              jobId: randomUUID(),
            },
          ]
        : [],
    );
    if (retries.length) await enqueueDeliveries(tx, await tx.insert(webhookDeliveries).values(retries).onConflictDoNothing().returning());

    const endpointsOf = (kind: AttemptOutcome['kind'], test: (plan: Plan) => boolean = () => true) => [
      ...new Set(recorded.filter((plan) => plan.outcome.kind === kind && test(plan)).map((plan) => delivery(plan).endpointId)),
    ];
    const recovered = endpointsOf('succeeded');
    if (recovered.length) {
      // Runs with nearly every batch: one statement text whatever the number of endpoints (an IN list
      // is a new statement to prepare for each length).
      await tx.execute(sql`
        update webhook_endpoints set status = 'active', failing_since = null, updated_at = now()
        where id = any(${sql.param(recovered)}::text[]) and status = any(${sql.param(webhookEndpointMachine.from(RECOVERS_FROM, 'active'))}::webhook_endpoint_status[])`);
    }
    const gone = endpointsOf('endpoint_disabled');
    if (gone.length) {
      await tx
        .update(webhookEndpoints)
        .set({
          enabled: false,
          status: 'disabled',
          disabledReason: `The endpoint answered 410 Gone on ${attemptedAt.toISOString()}; enable it again once it accepts events.`,
        })
        .where(and(inArray(webhookEndpoints.id, gone), inArray(webhookEndpoints.status, webhookEndpointMachine.leadingTo('disabled'))));
    }
    const exhausted = endpointsOf('failed', (plan) => plan.outcome.kind === 'failed' && plan.outcome.endpointFailing);
    if (exhausted.length) {
      // Only the change active → failing e-mails, so a merchant hears of it once.
      const flipped = await tx
        .update(webhookEndpoints)
        .set({ status: 'failing', failingSince: attemptedAt })
        .where(and(inArray(webhookEndpoints.id, exhausted), inArray(webhookEndpoints.status, webhookEndpointMachine.leadingTo('failing'))))
        .returning({ id: webhookEndpoints.id });
      for (const { id } of flipped) await enqueueFailingNotice(tx, id);
    }

    const released = recorded.flatMap((plan) => (plan.isFinal && delivery(plan).chargeId ? [delivery(plan).chargeId!] : []));
    if (released.length) {
      await lockChargeChains(tx, released);
      await releaseNextDeliveries(tx, released);
    }
    await options.inTransaction?.(tx);
    return plans.map((plan) => (recordedIds.has(plan.values.id) ? plan.outcome : { kind: 'superseded' as const }));
  });
}

function planOutcome(sent: SentAttempt, attemptedAt: Date, retryDelay: (attempt: number) => number | null): Plan {
  const { delivery, claimedAt } = sent.claimed;
  const base = {
    id: delivery.id,
    claimed_at: claimedAt.toISOString(),
    attempted_at: attemptedAt.toISOString(),
    response_status: null,
    response_body: null,
    duration_ms: null,
    error_code: null,
    error_message: null,
    next_attempt_at: null,
  };
  if ('canceled' in sent) {
    return { sent, values: { ...base, status: 'canceled', error_code: 'endpoint_disabled' }, outcome: { kind: 'canceled' }, isFinal: true };
  }
  const { result } = sent;
  const logged = {
    ...base,
    response_status: result.status ?? null,
    response_body: result.ok || result.bodySnippet !== undefined ? storableText(result.bodySnippet ?? '') : null,
    duration_ms: result.durationMs,
  };
  if (result.ok) {
    return { sent, values: { ...logged, status: 'succeeded' }, outcome: { kind: 'succeeded', status: result.status }, isFinal: true };
  }
  const failure = {
    ...logged,
    status: 'failed' as const,
    error_code: result.code,
    error_message: result.message.slice(0, ERROR_MESSAGE_CHARS),
  };
  if (result.status === 410) {
    return { sent, values: failure, outcome: { kind: 'endpoint_disabled', status: 410 }, isFinal: true };
  }
  const delay = retryDelay(delivery.attempt);
  const nextAttemptAt = delay === null ? null : new Date(attemptedAt.getTime() + delay);
  return {
    sent,
    values: { ...failure, next_attempt_at: nextAttemptAt?.toISOString() ?? null },
    outcome: { kind: 'failed', code: result.code, status: result.status, nextAttemptAt, endpointFailing: nextAttemptAt === null },
    isFinal: nextAttemptAt === null,
  };
}

/** PostgreSQL text cannot hold NUL; an endpoint's answer is whatever it sent. */
function storableText(text: string): string {
  return text.replace(/\u0000/g, '');
}
