/**
 * The pg-boss side of webhooks: queue names, the process's running PgBoss instance, and enqueueing
 * jobs inside a drizzle transaction (pg-boss's `db` option through its `fromDrizzle` adapter), so a
 * job exists exactly when the rows it refers to committed. Started and stopped by queue.ts.
 *
 * A delivery job carries only the delivery row's id: the row holds the state, the job only says when
 * to look at it. Its pg-boss id is chosen by us and stored on the row (`job_id`), and pg-boss inserts
 * with ON CONFLICT DO NOTHING, so enqueueing the same job twice creates one.
 */
import { sql } from 'drizzle-orm';
import { fromDrizzle, type PgBoss } from 'pg-boss';
import type { DbOrTx } from '@/lib/db/client';

/** One job per delivery attempt. */
export const DELIVERY_QUEUE = 'webhook-delivery';
/** One job per endpoint that just became failing: the merchant's e-mail. */
export const FAILING_NOTICE_QUEUE = 'webhook-endpoint-failing';

export interface DeliveryJobData {
  deliveryId: string;
}

export interface FailingNoticeJobData {
  endpointId: string;
}

const globalForBoss = globalThis as unknown as { __chargeportWebhookBoss?: PgBoss; __chargeportDeliveryWake?: () => void };

export function setRunningBoss(boss: PgBoss | undefined): void {
  globalForBoss.__chargeportWebhookBoss = boss;
}

export function runningBoss(): PgBoss {
  const boss = globalForBoss.__chargeportWebhookBoss;
  if (!boss) {
    throw new Error(
      'The webhook job queue is not running in this process: start it with startWebhookQueue() (lib/jobs starts it with the background jobs).',
    );
  }
  return boss;
}

/** Set by the delivery worker of this process (delivery-worker.ts) while it runs. */
export function setDeliveryWorkerWake(wake: (() => void) | undefined): void {
  globalForBoss.__chargeportDeliveryWake = wake;
}

/**
 * Tells this process's delivery worker that jobs were enqueued and committed, so it fetches now
 * instead of at its next poll. Call after the commit: before it, the fetch would find nothing.
 */
export function wakeDeliveryWorker(): void {
  globalForBoss.__chargeportDeliveryWake?.();
}

export function isBossRunning(): boolean {
  return globalForBoss.__chargeportWebhookBoss !== undefined;
}

/** Enqueues one job per delivery row, in `tx`; `group` = the endpoint, so one endpoint holds few workers. */
export async function enqueueDeliveries(
  tx: DbOrTx,
  /** `scheduledAt` absent: due now. */
  deliveries: readonly { id: string; endpointId: string; scheduledAt?: Date; jobId: string | null }[],
): Promise<void> {
  if (deliveries.length === 0) return;
  const now = Date.now();
  await runningBoss().insert(
    DELIVERY_QUEUE,
    deliveries.map((delivery) => ({
      ...(delivery.jobId ? { id: delivery.jobId } : {}),
      data: { deliveryId: delivery.id } satisfies DeliveryJobData,
      // Due now: no startAfter, so pg-boss uses the database's now and wakes a worker (NOTIFY) at
      // commit. An app-clock "now" a few ms past the transaction's now() would count as deferred.
      ...(delivery.scheduledAt && delivery.scheduledAt.getTime() > now ? { startAfter: delivery.scheduledAt } : {}),
      group: { id: delivery.endpointId },
    })),
    { db: fromDrizzle(tx, sql) },
  );
}

export async function enqueueFailingNotice(tx: DbOrTx, endpointId: string): Promise<void> {
  await runningBoss().send(FAILING_NOTICE_QUEUE, { endpointId } satisfies FailingNoticeJobData, { db: fromDrizzle(tx, sql) });
}
