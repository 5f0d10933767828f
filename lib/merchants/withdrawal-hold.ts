/**
 * The hold on new owners' withdrawals: someone made an owner by another member (invited as owner, or
 * promoted) cannot withdraw until OWNER_WITHDRAWAL_HOLD_HOURS have passed. If a stolen session seated
 * them, the other owners — e-mailed at once — have that long to notice and remove them. A withdrawal
 * in the hold is refused (409 withdrawal_held, with the time it becomes possible), not queued: a
 * queued withdrawal would sign later with a destination nobody re-confirms. The founding owner has no hold.
 */
import 'server-only';
import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { merchantMembers } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';

/** Until when the member's withdrawals are held, or null. */
export async function withdrawalHeldUntil(
  db: DbOrTx,
  input: { merchantId: string; userId: string },
  now = new Date(),
): Promise<Date | null> {
  const [member] = await db
    .select({ role: merchantMembers.role, ownerSince: merchantMembers.ownerSince })
    .from(merchantMembers)
    .where(and(eq(merchantMembers.merchantId, input.merchantId), eq(merchantMembers.userId, input.userId)));
  if (!member || member.role !== 'owner' || !member.ownerSince) return null;
  const until = new Date(member.ownerSince.getTime() + env().OWNER_WITHDRAWAL_HOLD_HOURS * 3_600_000);
  return until > now ? until : null;
}

export async function requireNoWithdrawalHold(db: DbOrTx, input: { merchantId: string; userId: string }, now = new Date()): Promise<void> {
  const until = await withdrawalHeldUntil(db, input, now);
  if (!until) return;
  throw new AppError(
    'withdrawal_held',
    `You became an owner less than ${env().OWNER_WITHDRAWAL_HOLD_HOURS} hours ago: withdrawals are possible from ${until.toISOString()}.`,
    { headers: { 'retry-after': String(Math.ceil((until.getTime() - now.getTime()) / 1000)) } },
  );
}
