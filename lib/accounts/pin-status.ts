/**
 * Whether an account has a PIN (spec account rule 5: without one, no payments and no key exports; the
 * first sign-in is sent to set one) and what its attempt counting allows now (verify-pin.ts), for the
 * pages that show it. Reads only: nothing here counts an attempt.
 */
import { loadPinState } from './load-pin-state';
import { PIN_DISABLE_AFTER } from './verify-pin';

export async function hasPin(userId: string): Promise<boolean> {
  return (await loadPinState(userId)).pinHash !== null;
}

export interface PinStatus {
  isSet: boolean;
  /** Set while a lock after wrong PINs lasts. */
  lockedUntil: Date | null;
  /** Disabled after too many wrong PINs: only resetPinWithPhone enables it again. */
  disabled: boolean;
  /** Wrong PINs left before the PIN is disabled. */
  attemptsLeft: number;
}

export async function pinStatus(userId: string, options: { now?: Date } = {}): Promise<PinStatus> {
  const now = options.now ?? new Date();
  const user = await loadPinState(userId);
  const disabled = user.disabledAt !== null;
  return {
    isSet: user.pinHash !== null,
    lockedUntil: !disabled && user.lockedUntil && user.lockedUntil > now ? user.lockedUntil : null,
    disabled,
    attemptsLeft: disabled ? 0 : Math.max(0, PIN_DISABLE_AFTER - user.failed),
  };
}
