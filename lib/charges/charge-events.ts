/**
 * A charge's public events, recorded in the outbox (lib/webhooks/) inside the transaction of the change, so
 * an event exists exactly when the change committed. The charge builds its own payload (the charge as it is
 * right after the change, frozen for every retry); the outbox stores and delivers it without reading it.
 *
 * One event per status change: a charge's creation is `charge.created`; each later status `s` is
 * `charge.<s>`. Timeline entries that do not change the status (charge.payment_submitted,
 * charge.sweep_submitted, charge.overpaid, charge.late_payment) are not events. `payment.failed` reports a
 * failed payment attempt while the charge itself may still be paid; `charge.payment_reversed` a payment of a
 * succeeded charge that left the chain after it counted (docs/adr/0036).
 */
import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { charges, webhookEvents, webhookEventSequences, type ChargeRow, type PaymentRow } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import type { WebhookEventType } from '@/lib/webhooks/event-types';
import { nextEventSequence } from '@/lib/webhooks/next-event-sequence';
import type { WebhookEventPayload } from '@/lib/webhooks/schemas';
import { listChargePayments } from './get-charge';
import type { ChargeStatus } from './state';
import type { ChargeResource, FailedPaymentAttempt, ReversedPayment } from './schemas';
import { serializeCharge } from './serialize';

/** What a charge event carries in `data`. */
export type ChargeEventPayload = WebhookEventPayload<{
  charge: ChargeResource;
  paymentAttempt?: FailedPaymentAttempt;
  reversedPayment?: ReversedPayment;
}>;

/** The public type of a status change; `charge.created` for the first status of a new charge. */
export function chargeEventTypeFor(from: ChargeStatus | null, to: ChargeStatus): WebhookEventType {
  if (from === null) return 'charge.created';
  switch (to) {
    case 'processing':
      return 'charge.processing';
    case 'succeeded':
      return 'charge.succeeded';
    case 'failed':
      return 'charge.failed';
    case 'expired':
      return 'charge.expired';
    case 'canceled':
      return 'charge.canceled';
    case 'pending':
      // No transition leads back to pending (state.ts); only creation starts there.
      throw new Error(`a charge cannot move from ${from} to pending`);
  }
}

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
  input: {
    charge: ChargeRow;
    type: WebhookEventType;
    payments?: readonly PaymentRow[];
    paymentAttempt?: FailedPaymentAttempt;
    reversedPayment?: ReversedPayment;
  },
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

/** The outbox row of a charge event, for a caller that inserts it itself (createCharge's single statement). */
export function chargeEventRow(input: {
  charge: ChargeRow;
  type: WebhookEventType;
  payments: readonly PaymentRow[];
  paymentAttempt?: FailedPaymentAttempt;
  reversedPayment?: ReversedPayment;
  createdAt?: Date;
  /** Default 1: the first event of a new charge (charge.created). */
  sequence?: number;
}): typeof webhookEvents.$inferInsert & { id: string; payload: ChargeEventPayload; createdAt: Date; sequence: number } {
  const { charge, type } = input;
  const sequence = input.sequence ?? 1;
  const id = newId('webhookEvent');
  const createdAt = input.createdAt ?? new Date();
  const payload: ChargeEventPayload = {
    id,
    object: 'event',
    type,
    mode: charge.mode,
    sequence,
    createdAt: createdAt.toISOString(),
    data: {
      charge: serializeCharge(charge, undefined, input.payments),
      ...(input.paymentAttempt ? { paymentAttempt: input.paymentAttempt } : {}),
      ...(input.reversedPayment ? { reversedPayment: input.reversedPayment } : {}),
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
