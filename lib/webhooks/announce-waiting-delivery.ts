/**
 * A delivery row written without its job (a dashboard resend, a test event: web processes may not run
 * pg-boss, ADR 0007) is announced on the outbox's channel with its own payload, so the relay gives it a
 * job at the commit instead of on its fallback timer — and new events do not make it look for such rows.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';

/** The channel the outbox trigger notifies (drizzle/0030_ordered_webhook_chains.sql). */
export const OUTBOX_CHANNEL = 'webhook_events';
/** The payload that says a delivery waits for its job; the trigger's own payload is empty. */
export const WAITING_DELIVERIES_PAYLOAD = 'deliveries';

/** Wakes the relay for waiting deliveries when `tx` commits. */
export async function announceWaitingDelivery(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select pg_notify(${OUTBOX_CHANNEL}, ${WAITING_DELIVERIES_PAYLOAD})`);
}
