/**
 * Enqueues delivery jobs inside a drizzle transaction (pg-boss's `db` option through its `fromDrizzle`
 * adapter), so a job exists exactly when the rows it refers to committed.
 *
 * A delivery job carries only the delivery row's id: the row holds the state, the job only says when
 * to look at it. Its pg-boss id is chosen by us and stored on the row (`job_id`), and pg-boss inserts
 * with ON CONFLICT DO NOTHING, so enqueueing the same job twice creates one.
 */
import { sql } from 'drizzle-orm';
import { fromDrizzle } from 'pg-boss';
import type { DbOrTx } from '@/lib/db/client';
import { runningBoss } from './running-boss';

/** One job per delivery attempt. */
export const DELIVERY_QUEUE = 'webhook-delivery';

export interface DeliveryJobData {
  deliveryId: string;
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
