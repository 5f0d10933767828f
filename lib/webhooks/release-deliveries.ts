/**
 * Per-charge order: a charge's events reach each endpoint in the order they happened (their
 * `sequence`, emit.ts). The deliveries of one charge to one endpoint form a chain: the relay inserts
 * every delivery of a charge event `held` (no job), and a held delivery is released — made `pending`
 * with its pg-boss job, in the releasing transaction — only when
 *   - no delivery of an earlier event of that charge to that endpoint is still open (pending or
 *     sending: being sent, or waiting for a retry), and
 *   - no earlier event of that charge is still in the outbox (its deliveries are not written yet).
 * So a later event waits until the earlier one is delivered or has used up its retries (or was
 * canceled: endpoint disabled); then the next one goes. Chains of different charges, and of one charge
 * to different endpoints, do not wait for each other.
 *
 * Who releases: the relay, for the charges of the events it just relayed, and the recording of an
 * attempt's final outcome (record-outcomes.ts), for its charge. Both first take the charge's chain
 * lock (lockChargeChains), so one of them always sees the other's commit: without it, a relay could
 * write event 2 held while the recording of event 1 looked for held deliveries before that commit, and
 * event 2 would wait forever.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { enqueueDeliveries } from './enqueue-deliveries';

/**
 * Transaction-scoped advisory locks on the chains of these charges, taken in one sorted statement so
 * two holders of several locks cannot deadlock. Released at commit or rollback.
 */
export async function lockChargeChains(tx: DbOrTx, chargeIds: readonly string[]): Promise<void> {
  const ids = [...new Set(chargeIds)];
  if (ids.length === 0) return;
  await tx.execute(sql`
    select pg_advisory_xact_lock(key)
    from (select distinct hashtextextended('webhook-chain:' || id, 0) as key from unnest(${sql.param(ids)}::text[]) as id order by key) as keys`);
}

/**
 * Releases, for each chain (endpoint, charge) of these charges, its first held delivery if nothing
 * before it is open; enqueues their jobs in `tx`. The caller holds the charges' chain locks. Returns
 * how many it released.
 */
export async function releaseNextDeliveries(tx: DbOrTx, chargeIds: readonly string[]): Promise<number> {
  const ids = [...new Set(chargeIds)];
  if (ids.length === 0) return 0;
  // Written so that the plan does not depend on statistics, which lag a burst (a backlog of thousands
  // of held deliveries and unrelayed events appears within seconds, and the planner then took the
  // partial indexes for nearly empty): every lookup goes through the charge — its heads and its open
  // deliveries by the chain index (a lateral lookup per charge, not a scan of every held or open row),
  // its earlier events by (charge_id, sequence), with OFFSET 0 keeping `relayed_at is null` out of that
  // scan (else the outbox index, i.e. the whole backlog, is ANDed in per head). bench:webhooks,
  // 2026-11-24: 11–25 ms a call before, half of PostgreSQL's time per delivery.
  const released = await tx.execute<{ id: string; endpoint_id: string; job_id: string }>(sql`
    with heads as (
      select h.id, h.endpoint_id, h.charge_id, h.event_sequence
      from unnest(${sql.param(ids)}::text[]) as c(charge_id)
      cross join lateral (
        select distinct on (d.endpoint_id) d.id, d.endpoint_id, d.charge_id, d.event_sequence
        from webhook_deliveries d
        where d.charge_id = c.charge_id and d.status = 'held'
        order by d.endpoint_id, d.event_sequence
      ) h
    )
    update webhook_deliveries d
    set status = 'pending', scheduled_at = now(), job_id = gen_random_uuid()::text
    from heads
    where d.id = heads.id
      and not exists (
        select 1 from webhook_deliveries open_delivery
        where open_delivery.charge_id = heads.charge_id and open_delivery.endpoint_id = heads.endpoint_id
          -- = pending or sending, spelled as the chain index's predicate: the open-delivery index (whose
          -- predicate this is not) would read every open row of the table
          and open_delivery.status not in ('succeeded', 'failed', 'canceled') and open_delivery.status <> 'held'
          and open_delivery.event_sequence < heads.event_sequence)
      and not exists (
        select 1 from (
          select earlier.relayed_at from webhook_events earlier
          where earlier.charge_id = heads.charge_id and earlier.sequence < heads.event_sequence
          offset 0
        ) earlier
        where earlier.relayed_at is null)
    returning d.id, d.endpoint_id, d.job_id`);
  await enqueueDeliveries(
    tx,
    released.map((row) => ({ id: row.id, endpointId: row.endpoint_id, jobId: row.job_id })),
  );
  return released.length;
}
