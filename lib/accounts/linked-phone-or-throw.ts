import { AppError } from '@/lib/errors';
import { loadPinState } from './load-pin-state';

/**
 * The account's verified phone, the only way to reset a lost PIN (spec account rule 6);
 * phone_not_linked, saying so, when there is none. Both halves of the reset start here.
 */
export async function linkedPhoneOrThrow(userId: string): Promise<string> {
  const user = await loadPinState(userId);
  if (!user.phoneE164 || !user.phoneVerifiedAt) {
    throw new AppError(
      'phone_not_linked',
      'No phone linked: the PIN cannot be reset, because a code sent to a verified phone is the only way to prove it is you. Contact support.',
    );
  }
  return user.phoneE164;
}
