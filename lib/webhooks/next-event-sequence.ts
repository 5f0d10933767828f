/**
 * Emitting webhook events — always inside the caller's transaction (the state change's), so an event
 * exists exactly when the change committed: roll back and there is no event; commit and crash the
 * next instant and the event is still there.
 *
 * Why an outbox and not `boss.send(…, { db })` right here: the event row *is* the durable enqueue.
 * Every process that changes a charge (web instances with RUN_JOBS_IN_WEB=false, the admin CLI,
 * tests) would otherwise need a started pg-boss (its queue cache, its schema installed) just to commit
 * a state change, and createCharge — the hot path — would pay for pg-boss's insert and an endpoint
 * lookup. Here it pays one INSERT. The relay (relay.ts) then turns each event into one delivery job
 * per subscribed endpoint, in one transaction with `relayed_at`, so no event is lost or doubled.
 *
 * The payload is built now and frozen: retries and GET /api/events show the charge as it was right
 * after this change, not as it is when a retry happens to run.
 *
 * Every event of a charge carries its `sequence`: 1 for charge.created, then +1 per event in commit
 * order (nextEventSequence). Deliveries to an endpoint follow it (release-deliveries.ts), and a
 * receiver can use it to ignore an event older than one it already applied.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { webhookEvents, webhookEventSequences } from '@/lib/db/schema';

/**
 * The next sequence number of a charge's events, taken in `tx`. The counter row stays locked until `tx`
 * ends, so a concurrent emitter for the same charge waits and gets the number after ours: numbers
 * follow commit order, with no gap (a rollback returns the number). A charge's first counter row starts
 * after its events so far (charge.created is numbered 1 by createCharge without a counter row).
 */
export async function nextEventSequence(tx: DbOrTx, chargeId: string): Promise<number> {
  const [row] = await tx
    .insert(webhookEventSequences)
    .values({
      chargeId,
      lastSequence: sql`(select coalesce(max(${webhookEvents.sequence}), 0) + 1 from ${webhookEvents} where ${webhookEvents.chargeId} = ${chargeId})`,
    })
    .onConflictDoUpdate({ target: webhookEventSequences.chargeId, set: { lastSequence: sql`${webhookEventSequences.lastSequence} + 1` } })
    .returning({ sequence: webhookEventSequences.lastSequence });
  return row!.sequence;
}
