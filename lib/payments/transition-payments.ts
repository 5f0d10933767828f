import 'server-only';
import { and, inArray, ne } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { payments, type PaymentStatus } from '@/lib/db/schema';
import { IllegalTransitionError } from '@/lib/state-machine';
import { paymentMachine } from './state';

/**
 * Moves payments to `to` (with `patch` written alongside), the only way a payment's status changes. Rows already
 * in `to` are left as they are; a row in a status from which `to` is not reachable throws
 * IllegalTransitionError (and the caller's transaction rolls back: nothing half-written).
 * Returns the ids that changed status.
 */
export async function transitionPayments(
  tx: DbOrTx,
  input: {
    ids: readonly string[];
    to: PaymentStatus;
    patch?: { missingSinceBlock?: bigint | null; blockNumber?: bigint; blockTime?: Date | null };
  },
): Promise<string[]> {
  const { ids, to, patch = {} } = input;
  if (!ids.length) return [];
  const moved = await tx
    .update(payments)
    .set({ ...patch, status: to })
    .where(and(inArray(payments.id, [...ids]), inArray(payments.status, paymentMachine.leadingTo(to))))
    .returning({ id: payments.id });
  if (moved.length < ids.length) {
    const movedIds = new Set(moved.map((row) => row.id));
    const refused = await tx
      .select({ id: payments.id, status: payments.status })
      .from(payments)
      .where(and(inArray(payments.id, [...ids]), ne(payments.status, to)));
    const illegal = refused.find((row) => !movedIds.has(row.id));
    if (illegal) throw new IllegalTransitionError(paymentMachine.name, illegal.status, to, illegal.id);
  }
  return moved.map((row) => row.id);
}
