/**
 * Issue 14: a PIN change or reset, a phone change (link or unlink) and an e-mail change end every
 * session of the account with the same write (the action then renews the one that made the change,
 * lib/auth/end-other-sessions.ts). Each verb is checked on its own, so removing the revocation from any one of
 * them fails here; a refused attempt ends nothing.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { checkSessionClaims, issueSessionClaims } from '@/lib/auth/session-token';
import { readOutbox } from '@/lib/notifications/outbox';
import { appError, lastSmsCode, latestCode, newUser, randomMobile, uniqueEmail, userRow } from '@/test/accounts';
import { confirmEmailChange, startEmailChange } from './change-email';
import { confirmPhoneLink, startPhoneLink, unlinkPhone } from './phone';
import { changePin } from './change-pin';
import { requestPinResetCode } from './request-pin-reset-code';
import { resetPinWithPhone } from './reset-pin-with-phone';

const PIN = '739104';
const NEW_PIN = '862051';

/** A signed-in session of the account, as the session cookie carries it. */
async function session(userId: string) {
  const claims = await issueSessionClaims(userId);
  if (!claims) throw new Error('no session');
  return { isValid: async () => (await checkSessionClaims(claims)) !== null };
}

async function withPhone(userId: string): Promise<string> {
  const phone = randomMobile();
  await startPhoneLink({ userId, phone, pin: PIN });
  await confirmPhoneLink({ userId, phone, code: lastSmsCode(phone) });
  return phone;
}

describe('changes that end every other session', () => {
  it('a PIN change (a wrong current PIN ends nothing)', async () => {
    const userId = await newUser({ pin: PIN });
    const other = await session(userId);
    expect((await appError(changePin({ userId, oldPin: '000000', pin: NEW_PIN, confirm: NEW_PIN }))).code).toBe('pin_incorrect');
    expect(await other.isValid()).toBe(true);
    await changePin({ userId, oldPin: PIN, pin: NEW_PIN, confirm: NEW_PIN });
    expect(await other.isValid()).toBe(false);
  });

  it('a PIN reset with the phone (a wrong code ends nothing)', async () => {
    const userId = await newUser({ pin: PIN });
    const phone = await withPhone(userId);
    const other = await session(userId);
    await requestPinResetCode({ userId });
    const code = lastSmsCode(phone);
    const wrong = code === '000000' ? '000001' : '000000';
    expect((await appError(resetPinWithPhone({ userId, code: wrong, pin: NEW_PIN, confirm: NEW_PIN }))).code).toBe('code_incorrect');
    expect(await other.isValid()).toBe(true);
    await resetPinWithPhone({ userId, code, pin: NEW_PIN, confirm: NEW_PIN });
    expect(await other.isValid()).toBe(false);
  });

  it('linking a phone (a wrong code ends nothing)', async () => {
    const userId = await newUser({ pin: PIN });
    const other = await session(userId);
    const phone = randomMobile();
    await startPhoneLink({ userId, phone, pin: PIN });
    const code = lastSmsCode(phone);
    const wrong = code === '000000' ? '000001' : '000000';
    expect((await appError(confirmPhoneLink({ userId, phone, code: wrong }))).code).toBe('code_incorrect');
    expect(await other.isValid()).toBe(true);
    await confirmPhoneLink({ userId, phone, code });
    expect(await other.isValid()).toBe(false);
  });

  it('unlinking the phone (a wrong PIN ends nothing)', async () => {
    const userId = await newUser({ pin: PIN });
    await withPhone(userId);
    const other = await session(userId);
    expect((await appError(unlinkPhone({ userId, pin: '000000' }))).code).toBe('pin_incorrect');
    expect(await other.isValid()).toBe(true);
    await unlinkPhone({ userId, pin: PIN });
    expect(await other.isValid()).toBe(false);
  });

  it('an e-mail change (a wrong code ends nothing); the old address is told', async () => {
    const userId = await newUser({ pin: PIN });
    await getDb().update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
    const email = (await userRow(userId)).email!;
    const other = await session(userId);
    const newEmail = uniqueEmail('moved');
    await startEmailChange({ userId, newEmail, stepUp: { pin: PIN } });
    const [oldCode, newCode] = [latestCode(email), latestCode(newEmail)];
    expect((await appError(confirmEmailChange({ userId, newEmail, newCode, oldCode: '000000' }))).param).toBe('oldCode');
    expect(await other.isValid()).toBe(true);
    await confirmEmailChange({ userId, newEmail, newCode, oldCode });
    expect(await other.isValid()).toBe(false);
    expect(readOutbox('email', email).map((mail) => mail.subject)).toContain('Your Chargeport e-mail was changed');
  });
});
