/**
 * Choosing a PIN (the PIN of spec account rule 5, which confirms payments and key exports): six
 * digits, chosen twice (pin + confirm) and never trivial (isTrivialPin). Every way to choose one
 * passes here before anything else: setPin, setFirstPin, changePin and resetPinWithPhone.
 */
import { AppError } from '@/lib/errors';

export const PIN_LENGTH = 6;

/** Keypad shapes and other favourites that the structural rules below do not catch. */
const COMMON_PINS = new Set(['112233', '123321', '147258', '159753', '258369', '369258', '789456', '456123', '102030', '987456']);

/**
 * Too easy to guess: one digit repeated (000000), a run up or down (123456, 654321, 012345, wrapping
 * like 890123), a repeated 2- or 3-digit pattern (121212, 123123), or a well-known keypad shape.
 */
export function isTrivialPin(pin: string): boolean {
  const digits = [...pin].map(Number);
  const steps = new Set(digits.slice(1).map((digit, i) => (digit - digits[i]! + 10) % 10));
  if (steps.size === 1 && [0, 1, 9].includes([...steps][0]!)) return true;
  if (pin === pin.slice(0, 2).repeat(3) || pin === pin.slice(0, 3).repeat(2)) return true;
  return COMMON_PINS.has(pin);
}

/** Checks a new PIN and its confirmation; throws the error to show next to the offending field. */
export function assertNewPin(pin: string, confirm: string): void {
  if (typeof pin !== 'string' || !/^\d{6}$/.test(pin)) {
    throw new AppError('invalid_request', `The PIN must be exactly ${PIN_LENGTH} digits.`, { param: 'pin' });
  }
  if (isTrivialPin(pin)) {
    throw new AppError(
      'pin_too_simple',
      'That PIN is too easy to guess (repeated digits, a run like 123456 or a repeated pattern). Choose another.',
      {
        param: 'pin',
      },
    );
  }
  if (confirm !== pin) throw new AppError('invalid_request', 'The two PINs do not match. Enter the same PIN twice.', { param: 'confirm' });
}
