/**
 * The one way a charge changes status. It locks the charge row, checks the transition against the
 * state machine (state.ts), updates it, records the timeline event and the public webhook event
 * (lib/charges/charge-events.ts) — all in the caller's transaction, so concurrent writers serialise on the
 * row lock, the loser sees the winner's status, and a webhook exists exactly when the change committed.
 */
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { chargeEvents, charges, type ChargeRow } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { emitChargeEvent } from './charge-events';
import { chargeEventTypeFor } from './charge-events';
import { chargeMachine, type ChargeStatus } from './state';

/** `tx` must be a transaction: the row lock lasts until it commits. */
export async function transitionCharge(
  tx: DbOrTx,
  input: { chargeId: string; to: ChargeStatus; actor: string; data?: Record<string, unknown> },
): Promise<ChargeRow> {
  const [current] = await tx.select().from(charges).where(eq(charges.id, input.chargeId)).for('update');
  if (!current) throw new Error(`charge ${input.chargeId} does not exist`);
  chargeMachine.assert(current.status, input.to);
  const [updated] = await tx.update(charges).set({ status: input.to }).where(eq(charges.id, input.chargeId)).returning();
  await recordChargeEvent(tx, {
    chargeId: input.chargeId,
    fromStatus: current.status,
    toStatus: input.to,
    actor: input.actor,
    data: input.data,
  });
  await emitChargeEvent(tx, { charge: updated!, type: chargeEventTypeFor(current.status, input.to) });
  return updated!;
}

/** An event of the charge's timeline. `type` defaults to `charge.<toStatus>` (a status change). */
export async function recordChargeEvent(
  tx: DbOrTx,
  event: {
    chargeId: string;
    fromStatus: ChargeStatus | null;
    toStatus: ChargeStatus;
    actor: string;
    type?: string;
    data?: Record<string, unknown>;
  },
): Promise<void> {
  await tx.insert(chargeEvents).values({
    id: newId('chargeEvent'),
    chargeId: event.chargeId,
    type: event.type ?? `charge.${event.toStatus}`,
    fromStatus: event.fromStatus,
    toStatus: event.toStatus,
    actor: event.actor,
    data: event.data ?? {},
  });
}
