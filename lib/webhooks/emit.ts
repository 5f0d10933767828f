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
import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { charges, webhookEvents, webhookEventSequences, type ChargeRow, type PaymentRow } from '@/lib/db/schema';
import { listChargePayments } from '@/lib/charges/get-charge';
import { serializeCharge } from '@/lib/charges/serialize';
import { newId } from '@/lib/ids';
import type { WebhookEventType } from './event-types';
import type { FailedPaymentAttempt, WebhookEventPayload } from './schemas';

export interface EmittedEvent {
  id: string;
  type: WebhookEventType;
}

/**
 * Records the public event of a charge change. `charge` is the row as it is after the change;
 * `payments` may be passed when the caller knows them (a new charge has none), else they are read.
 */
export async function emitChargeEvent(
  tx: DbOrTx,
  input: { charge: ChargeRow; type: WebhookEventType; payments?: readonly PaymentRow[]; paymentAttempt?: FailedPaymentAttempt },
): Promise<EmittedEvent> {
  const payments = input.payments ?? (await listChargePayments(tx, input.charge.id));
  const sequence = await nextEventSequence(tx, input.charge.id);
  const row = chargeEventRow({ ...input, payments, sequence });
  await tx.insert(webhookEvents).values(row);
  return { id: row.id, type: row.type as WebhookEventType };
}

/**
 * emitChargeEvent for many charges at once (the chain watcher settling a block's payments): one statement
 * takes every sequence number and one inserts every event, whatever their number. At most one event per
 * charge per call (one counter row cannot move twice in one statement); `payments` as listChargePayments
 * orders them (created, then id). Counter rows are taken in charge-id order, so two batches never wait
 * on each other in a cycle.
 */
export async function emitChargeEvents(
  tx: DbOrTx,
  inputs: readonly { charge: ChargeRow; type: WebhookEventType; payments: readonly PaymentRow[] }[],
): Promise<EmittedEvent[]> {
  if (!inputs.length) return [];
  const ordered = [...inputs].sort((a, b) => (a.charge.id < b.charge.id ? -1 : a.charge.id > b.charge.id ? 1 : 0));
  for (let i = 1; i < ordered.length; i++) {
    if (ordered[i]!.charge.id === ordered[i - 1]!.charge.id) throw new Error(`two events of charge ${ordered[i]!.charge.id} in one batch`);
  }
  const sequences = await tx
    .insert(webhookEventSequences)
    .values(
      ordered.map(({ charge }) => ({
        chargeId: charge.id,
        lastSequence: sql`(select coalesce(max(${webhookEvents.sequence}), 0) + 1 from ${webhookEvents} where ${webhookEvents.chargeId} = ${charge.id})`,
      })),
    )
    .onConflictDoUpdate({ target: webhookEventSequences.chargeId, set: { lastSequence: sql`${webhookEventSequences.lastSequence} + 1` } })
    .returning({ chargeId: webhookEventSequences.chargeId, sequence: webhookEventSequences.lastSequence });
  const sequenceOf = new Map(sequences.map((row) => [row.chargeId, row.sequence]));
  const rows = ordered.map((input) => chargeEventRow({ ...input, sequence: sequenceOf.get(input.charge.id)! }));
  await tx.insert(webhookEvents).values(rows);
  return rows.map((row) => ({ id: row.id, type: row.type as WebhookEventType }));
}

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

/** The outbox row of a charge event, for a caller that inserts it itself (createCharge's single statement). */
export function chargeEventRow(input: {
  charge: ChargeRow;
  type: WebhookEventType;
  payments: readonly PaymentRow[];
  paymentAttempt?: FailedPaymentAttempt;
  createdAt?: Date;
  /** Default 1: the first event of a new charge (charge.created). */
  sequence?: number;
}): typeof webhookEvents.$inferInsert & { id: string; payload: WebhookEventPayload; createdAt: Date; sequence: number } {
  const { charge, type } = input;
  const sequence = input.sequence ?? 1;
  const id = newId('webhookEvent');
  const createdAt = input.createdAt ?? new Date();
  const payload: WebhookEventPayload = {
    id,
    object: 'event',
    type,
    mode: charge.mode,
    sequence,
    createdAt: createdAt.toISOString(),
    data: {
      charge: serializeCharge(charge, undefined, input.payments),
      ...(input.paymentAttempt ? { paymentAttempt: input.paymentAttempt } : {}),
    },
  };
  return { id, merchantId: charge.merchantId, mode: charge.mode, type, chargeId: charge.id, sequence, payload, createdAt };
}

/**
 * `payment.failed`: an attempt to pay a charge failed (a balance payment's transfer reverted, or was
 * dropped for good), while the charge may still be paid another way. Call it in the transaction that
 * marks the attempt failed, once per attempt (the guarded UPDATE that flips it to `failed`).
 */
export async function emitPaymentFailed(tx: DbOrTx, input: { chargeId: string; attempt: FailedPaymentAttempt }): Promise<EmittedEvent> {
  const [charge] = await tx.select().from(charges).where(eq(charges.id, input.chargeId));
  if (!charge) throw new Error(`charge ${input.chargeId} does not exist`);
  return emitChargeEvent(tx, { charge, type: 'payment.failed', paymentAttempt: input.attempt });
}
