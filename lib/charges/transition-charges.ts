/**
 * transitionCharge for many charges at once: the chain watcher settling the payments of a block. Same
 * rules and side effects — the state machine checked per charge, the status updated, the timeline event
 * and the public webhook event recorded in the caller's transaction — in a fixed number of statements
 * per call (one UPDATE per kind of move, one INSERT of timeline events, one of sequence numbers, one of
 * webhook events), whatever the number of charges.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { chargeEvents, charges, type ChargeRow, type PaymentRow } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { emitChargeEvents } from './charge-events';
import { chargeEventTypeFor } from './charge-events';
import { chargeMachine, type ChargeStatus } from './state';

export interface ChargeTransition {
  /** The charge as it is now (read under its row lock in `tx`). */
  charge: ChargeRow;
  to: ChargeStatus;
  actor: string;
  data?: Record<string, unknown>;
  /** The charge's payments for the webhook payload, ordered as listChargePayments orders them. */
  payments: readonly PaymentRow[];
}

/**
 * `tx` must be a transaction. Each charge at most once per call. The UPDATE is guarded by the status the
 * caller read: a charge that moved meanwhile (its lock was not held) fails the whole call, nothing written.
 * Returns the updated rows in the order of `transitions`.
 */
export async function transitionCharges(tx: DbOrTx, transitions: readonly ChargeTransition[]): Promise<ChargeRow[]> {
  if (!transitions.length) return [];
  if (new Set(transitions.map((t) => t.charge.id)).size !== transitions.length)
    throw new Error('a charge twice in one batch of transitions');
  for (const t of transitions) chargeMachine.assert(t.charge.status, t.to);
  const updated = new Map<string, ChargeRow>();
  const moves = new Map<string, ChargeTransition[]>();
  for (const t of transitions) {
    const key = `${t.charge.status}>${t.to}`;
    moves.set(key, [...(moves.get(key) ?? []), t]);
  }
  for (const group of moves.values()) {
    const { charge, to } = group[0]!;
    const ids = group.map((t) => t.charge.id);
    const rows = await tx
      .update(charges)
      .set({ status: to })
      .where(and(inArray(charges.id, ids), eq(charges.status, charge.status)))
      .returning();
    if (rows.length !== ids.length)
      throw new Error(`charges moved while being settled: ${ids.filter((id) => !rows.some((r) => r.id === id)).join(', ')}`);
    for (const row of rows) updated.set(row.id, row);
  }
  await recordChargeEvents(
    tx,
    transitions.map((t) => ({ chargeId: t.charge.id, fromStatus: t.charge.status, toStatus: t.to, actor: t.actor, data: t.data })),
  );
  await emitChargeEvents(
    tx,
    transitions.map((t) => ({ charge: updated.get(t.charge.id)!, type: chargeEventTypeFor(t.charge.status, t.to), payments: t.payments })),
  );
  return transitions.map((t) => updated.get(t.charge.id)!);
}

/** recordChargeEvent for many events, in one INSERT. */
export async function recordChargeEvents(
  tx: DbOrTx,
  events: readonly {
    chargeId: string;
    fromStatus: ChargeStatus | null;
    toStatus: ChargeStatus;
    actor: string;
    type?: string;
    data?: Record<string, unknown>;
  }[],
): Promise<void> {
  if (!events.length) return;
  await tx.insert(chargeEvents).values(
    events.map((event) => ({
      id: newId('chargeEvent'),
      chargeId: event.chargeId,
      type: event.type ?? `charge.${event.toStatus}`,
      fromStatus: event.fromStatus,
      toStatus: event.toStatus,
      actor: event.actor,
      data: event.data ?? {},
    })),
  );
}
