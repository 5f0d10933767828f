/**
 * A merchant always keeps at least one owner: before a change that unseats an owner (demotion, removal)
 * the owners are counted, inside the transaction that locked the member rows (locked-member.ts).
 */
import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { merchantMembers } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';

export async function requireAnotherOwner(tx: DbOrTx, merchantId: string): Promise<void> {
  const owners = await tx
    .select({ userId: merchantMembers.userId })
    .from(merchantMembers)
    .where(and(eq(merchantMembers.merchantId, merchantId), eq(merchantMembers.role, 'owner')));
  if (owners.length < 2) throw new AppError('invalid_request', 'A merchant needs at least one owner: make someone else owner first.');
}
