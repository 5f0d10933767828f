import { describe, expect, it } from 'vitest';
import { appError, lastSmsCode, newUser, randomMobile, userRow } from '@/test/accounts';
import { confirmPhoneLink, startPhoneLink } from './phone';
import { pinStatus } from './pin-status';
import { requestPinResetCode } from './request-pin-reset-code';
import { resetPinWithPhone } from './reset-pin-with-phone';
import { verifyPin } from './verify-pin';

const PIN = '482916';
const NEW_PIN = '730481';
const WRONG = '519273';
const MINUTE = 60_000;

async function linkPhone(userId: string, pin?: string): Promise<string> {
  const phone = randomMobile();
  await startPhoneLink({ userId, phone, pin });
  await confirmPhoneLink({ userId, phone, code: lastSmsCode(phone) });
  return phone;
}

/** Wrong PINs until the given count, each an hour apart so no lock is in the way. */
async function failTimes(userId: string, times: number, start = new Date()): Promise<Date> {
  let now = start;
  for (let i = 0; i < times; i++) {
    await appError(verifyPin({ userId, pin: WRONG, now }));
    now = new Date(now.getTime() + 5 * 60 * MINUTE);
  }
  return now;
}

describe('resetting a forgotten PIN through the phone', () => {
  it('is impossible without a linked phone, and says so', async () => {
    const userId = await newUser({ pin: PIN });
    // Thunks, not promises: a second promise created up front would reject before it is awaited.
    for (const call of [
      () => requestPinResetCode({ userId }),
      () => resetPinWithPhone({ userId, code: '123456', pin: NEW_PIN, confirm: NEW_PIN }),
    ]) {
      const error = await appError(call());
      expect([error.code, error.status]).toEqual(['phone_not_linked', 409]);
      expect(error.message).toMatch(/^No phone linked: the PIN cannot be reset/);
    }
  });

  it('links a phone, disables the PIN with 10 wrong tries, and resets it with the SMS code', async () => {
    const userId = await newUser({ pin: PIN });
    const phone = await linkPhone(userId, PIN);
    expect((await userRow(userId)).phoneE164).toBe(phone);

    const now = await failTimes(userId, 9);
    const disabled = await appError(verifyPin({ userId, pin: WRONG, now }));
    expect(disabled.code).toBe('pin_disabled');
    expect(disabled.message).toMatch(/Reset it with a code sent to your linked phone/);

    const { expiresAt } = await requestPinResetCode({ userId });
    expect(expiresAt.getTime()).toBeGreaterThan(Date.now() + 9 * MINUTE);
    const code = lastSmsCode(phone);

    // A wrong code or a bad new PIN changes nothing; the bad PIN does not use the code up.
    const wrongCode = code === '000000' ? '000001' : '000000';
    expect((await appError(resetPinWithPhone({ userId, code: wrongCode, pin: NEW_PIN, confirm: NEW_PIN }))).code).toBe('code_incorrect');
    expect((await appError(resetPinWithPhone({ userId, code, pin: '654321', confirm: '654321' }))).code).toBe('pin_too_simple');
    expect((await pinStatus(userId)).disabled).toBe(true);

    await resetPinWithPhone({ userId, code, pin: NEW_PIN, confirm: NEW_PIN });
    const row = await userRow(userId);
    expect([row.pinFailedAttempts, row.pinLockedUntil, row.pinDisabledAt]).toEqual([0, null, null]);
    await verifyPin({ userId, pin: NEW_PIN });
    expect((await appError(verifyPin({ userId, pin: PIN }))).code).toBe('pin_incorrect');
    // The code is single use.
    expect((await appError(resetPinWithPhone({ userId, code, pin: '902134', confirm: '902134' }))).code).toBe('code_expired');
  });

  it('a reset code is throttled like every code', async () => {
    const userId = await newUser({ pin: PIN });
    await linkPhone(userId, PIN);
    await requestPinResetCode({ userId });
    const error = await appError(requestPinResetCode({ userId }));
    expect([error.code, error.status]).toEqual(['rate_limited', 429]);
    expect(Number(error.headers?.['retry-after'])).toBeGreaterThan(55);
  });
});
