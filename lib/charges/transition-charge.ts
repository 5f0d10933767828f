/**
 * The one way a charge changes status. It locks the charge row, checks the transition against the
 * state machine (state.ts), updates it, records the timeline event and the public webhook event
 * (lib/charges/charge-events.ts) — all in the caller's transaction, so concurrent writers serialise on the
 * row lock, the loser sees the winner's status, and a webhook exists exactly when the change committed.
 * One charge is the batch verb (transition-charges.ts) with one transition, read under its lock here.
 */
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { charges, type ChargeRow } from '@/lib/db/schema';
import { listChargePayments } from './get-charge';
import type { ChargeStatus } from './state';
import { recordChargeEvents, transitionCharges } from './transition-charges';

/** `tx` must be a transaction: the row lock lasts until it commits. */
export async function transitionCharge(
  tx: DbOrTx,
  input: { chargeId: string; to: ChargeStatus; actor: string; data?: Record<string, unknown> },
): Promise<ChargeRow> {
  const [current] = await tx.select().from(charges).where(eq(charges.id, input.chargeId)).for('update');
  if (!current) throw new Error(`charge ${input.chargeId} does not exist`);
  const payments = await listChargePayments(tx, input.chargeId);
  const [updated] = await transitionCharges(tx, [{ charge: current, to: input.to, actor: input.actor, data: input.data, payments }]);
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
  await recordChargeEvents(tx, [event]);
}
