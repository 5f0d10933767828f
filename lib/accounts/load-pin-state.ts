/** The PIN columns of an account (hash, counter, lock, disabled mark, phone); not_found for an unknown one. */
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';

export async function loadPinState(userId: string) {
  const [user] = await getDb()
    .select({
      pinHash: users.pinHash,
      failed: users.pinFailedAttempts,
      lockedUntil: users.pinLockedUntil,
      disabledAt: users.pinDisabledAt,
      phoneE164: users.phoneE164,
      phoneVerifiedAt: users.phoneVerifiedAt,
    })
    .from(users)
    .where(eq(users.id, userId));
  if (!user) throw new AppError('not_found', `No account ${userId}.`);
  return user;
}
