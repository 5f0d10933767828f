/**
 * The first PIN of an account (spec account rule 5: without one there are no payments and no key
 * exports). An account that has one changes it (changePin) or resets it (resetPinWithPhone). No check
 * of who asks: sessions go through setFirstPin (set-first-pin.ts), which needs the first-login prompt
 * or an e-mail code and e-mails the account; seeds and tests call this directly.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { assertNewPin } from './assert-new-pin';
import { hashPin } from './hash-pin';
import { loadPinState } from './load-pin-state';

/** Stores the first PIN, checked by the PIN policy (assertNewPin); pin_already_set when there is one. */
export async function setPin(input: { userId: string; pin: string; confirm: string; now?: Date }): Promise<void> {
  assertNewPin(input.pin, input.confirm);
  const pinHash = await hashPin(input.pin);
  const [updated] = await getDb()
    .update(users)
    .set({ pinHash, pinSetAt: input.now ?? new Date(), pinFailedAttempts: 0, pinLockedUntil: null, pinDisabledAt: null })
    .where(and(eq(users.id, input.userId), isNull(users.pinHash)))
    .returning({ id: users.id });
  if (updated) return;
  await loadPinState(input.userId); // not_found for an unknown account
  throw new AppError('pin_already_set', 'A PIN is already set. Change it with your current PIN, or reset it through your linked phone.', {
    param: 'pin',
  });
}
