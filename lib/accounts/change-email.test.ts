/**
 * Issue 14: the account e-mail moves only with the PIN and a code to each of the old and the new
 * address, and the old address is told; Sign in with Ethereum's "verify e-mail" works only while the
 * account has no verified e-mail (otherwise a stolen session could re-point the account).
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { readOutbox } from '@/lib/notifications/outbox';
import { appError, latestCode, newUser, uniqueEmail, userRow } from '@/test/accounts';
import { confirmEmailChange, startEmailChange } from './change-email';
import { startEmailVerification } from './verify-email';

const PIN = '739104';

async function verifiedUser(): Promise<{ userId: string; email: string }> {
  const userId = await newUser({ pin: PIN });
  await getDb().update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
  return { userId, email: (await userRow(userId)).email! };
}

describe('changing the account e-mail', () => {
  it('needs the PIN, then both codes; the old address is told and no longer the account’s', async () => {
    const { userId, email } = await verifiedUser();
    const newEmail = uniqueEmail('moved');
    expect((await appError(startEmailChange({ userId, newEmail, stepUp: {} }))).code).toBe('step_up_required');
    expect((await appError(startEmailChange({ userId, newEmail, stepUp: { pin: '000000' } }))).code).toBe('pin_incorrect');
    await startEmailChange({ userId, newEmail, stepUp: { pin: PIN } });
    const oldCode = latestCode(email);
    const newCode = latestCode(newEmail);
    // The new address's code alone (a thief's mailbox) is not enough.
    expect((await appError(confirmEmailChange({ userId, newEmail, newCode, oldCode: '000000' }))).param).toBe('oldCode');
    expect((await userRow(userId)).email).toBe(email);
    await confirmEmailChange({ userId, newEmail, newCode, oldCode });
    expect((await userRow(userId)).email).toBe(newEmail);
    expect(readOutbox('email', email)[0]!.subject).toBe('Your Chargeport e-mail was changed');
  });

  it('"verify e-mail" (Sign in with Ethereum) is refused once the account has a verified e-mail', async () => {
    const { userId } = await verifiedUser();
    const other = uniqueEmail('takeover');
    expect((await appError(startEmailVerification({ userId, email: other }))).code).toBe('email_already_verified');
    expect(readOutbox('email', other)).toHaveLength(0);
  });
});
