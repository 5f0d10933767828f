/**
 * A member row to change or remove, read with every member row of the merchant locked: two concurrent
 * changes then run one after the other, so they cannot both count "another" owner (require-another-owner.ts).
 */
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { merchantMembers } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';

/** Locks every member row of the merchant (so two concurrent changes cannot both remove "another" owner), returns the target. */
export async function lockedMember(tx: DbOrTx, merchantId: string, userId: string) {
  const rows = await tx.select().from(merchantMembers).where(eq(merchantMembers.merchantId, merchantId)).for('update');
  const target = rows.find((row) => row.userId === userId);
  if (!target) throw new AppError('not_found', 'No such member.');
  return target;
}
