/**
 * Revoke a spending allowance, at once: the UPDATE takes the row lock the transfer gate reads the allowance
 * under, so a purchase being recorded under it finishes first and every later one is refused (the PIN again).
 * Only the owner's own allowance; another's, or an unknown or already revoked one, is not_found.
 */
import 'server-only';
import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { spendingAllowances } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';

export async function revokeSpendingAllowance(input: { userId: string; allowanceId: string }, now = new Date()): Promise<void> {
  const revoked = await getDb()
    .update(spendingAllowances)
    .set({ revokedAt: now })
    .where(
      and(eq(spendingAllowances.id, input.allowanceId), eq(spendingAllowances.userId, input.userId), isNull(spendingAllowances.revokedAt)),
    )
    .returning({ id: spendingAllowances.id });
  if (!revoked.length) throw new AppError('not_found', 'No such spending allowance: it may be revoked already.');
}
