/**
 * Changing the PIN: the current one is checked (and counted) like any other PIN entry (verify-pin.ts),
 * the new one passes the PIN policy (assert-new-pin.ts) first, so a typo in it costs no attempt.
 * Every session ends with the old PIN and the account is e-mailed (notify-security-change.ts).
 */
import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { assertNewPin } from './assert-new-pin';
import { hashPin } from './hash-pin';
import { notifySecurityChange } from './notify-security-change';
import { endAllSessions } from './revoke-sessions';
import { checkPin } from './verify-pin';

/** Replaces the PIN; the current one is checked (and counted) like any other PIN entry. */
export async function changePin(input: {
  userId: string;
  oldPin: string;
  pin: string;
  confirm: string;
  ip?: string | null;
  now?: Date;
}): Promise<void> {
  // The new PIN first: a typo in it must not cost a PIN attempt.
  assertNewPin(input.pin, input.confirm);
  let verifiedHash: string;
  try {
    verifiedHash = await checkPin({ userId: input.userId, pin: input.oldPin, now: input.now });
  } catch (error) {
    if (error instanceof AppError && error.param === 'pin')
      throw new AppError(error.code, error.message, { param: 'oldPin', headers: error.headers });
    throw error;
  }
  const pinHash = await hashPin(input.pin);
  const [updated] = await getDb()
    .update(users)
    // Every session ends with the old PIN (issue 14); the action renews the one that made the change.
    .set({ pinHash, pinSetAt: input.now ?? new Date(), pinFailedAttempts: 0, pinLockedUntil: null, pinDisabledAt: null, ...endAllSessions })
    .where(and(eq(users.id, input.userId), eq(users.pinHash, verifiedHash), isNull(users.pinDisabledAt)))
    .returning({ id: users.id });
  if (!updated) throw new AppError('pin_incorrect', 'The PIN was changed meanwhile. Enter the current PIN.', { param: 'oldPin' });
  await notifySecurityChange({ userId: input.userId, change: { kind: 'pin_changed' }, ip: input.ip, at: input.now });
}
