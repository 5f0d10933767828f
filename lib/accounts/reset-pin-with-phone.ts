/**
 * Resetting a forgotten, locked or disabled PIN (spec account rule 6: the linked phone is the only
 * backup; the 10th wrong PIN in a row disables it until this reset, verify-pin.ts). The SMS code from
 * requestPinResetCode proves the user; the new PIN passes the PIN policy first, every session ends and
 * the account is e-mailed (notify-security-change.ts).
 */
import { and, eq, isNotNull } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { assertNewPin } from './assert-new-pin';
import { hashPin } from './hash-pin';
import { linkedPhoneOrThrow } from './linked-phone-or-throw';
import { notifySecurityChange } from './notify-security-change';
import { endAllSessions } from './revoke-sessions';
import { consumeCode } from './verification-codes';

/**
 * Forgotten, locked or disabled PIN: the SMS code from requestPinResetCode proves the user, then the
 * new PIN replaces the old one and the counter, lock and disabled mark are cleared.
 */
export async function resetPinWithPhone(input: {
  userId: string;
  code: string;
  pin: string;
  confirm: string;
  ip?: string | null;
  now?: Date;
}): Promise<void> {
  // Check the new PIN before the code is used up.
  assertNewPin(input.pin, input.confirm);
  const phone = await linkedPhoneOrThrow(input.userId);
  const { userId: codeOwner } = await consumeCode({ purpose: 'reset_pin', target: phone, code: input.code, now: input.now });
  if (codeOwner !== input.userId)
    throw new AppError('code_incorrect', 'This code was not sent for this account. Ask for a new code.', { param: 'code' });
  const pinHash = await hashPin(input.pin);
  const [updated] = await getDb()
    .update(users)
    // A reset is what someone who took the phone would do: every session ends (issue 14).
    .set({ pinHash, pinSetAt: input.now ?? new Date(), pinFailedAttempts: 0, pinLockedUntil: null, pinDisabledAt: null, ...endAllSessions })
    .where(and(eq(users.id, input.userId), eq(users.phoneE164, phone), isNotNull(users.phoneVerifiedAt)))
    .returning({ id: users.id });
  if (!updated) throw new AppError('phone_not_linked', 'The phone was unlinked meanwhile: the PIN was not reset.');
  await notifySecurityChange({ userId: input.userId, change: { kind: 'pin_reset' }, ip: input.ip, at: input.now });
}
