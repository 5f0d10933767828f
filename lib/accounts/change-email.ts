/**
 * Changing the account's e-mail (Account → Profile). The address is how the account signs in and
 * recovers, so a session alone never moves it:
 *
 *  1. start: the user's PIN or a passkey (step-up); a code goes to the NEW address (proves it is
 *     theirs) and another to the CURRENT one (proves the mailbox owner agrees);
 *  2. confirm: both codes; the address changes (and the e-mail sign-in method with it), every session
 *     of the account ends (the action opens a fresh one for the device that did it), and the old
 *     address is told.
 *
 * Neutral: an address another account uses gets a note instead of a code; the answer is the same.
 */
import 'server-only';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { authIdentities, users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { sendEmail } from '@/lib/notifications/send-email';
import { maskEmail } from './email';
import { endAllSessions } from './revoke-sessions';
import { verifyStepUp, type StepUpProof } from './step-up';
import { findUserByEmail, findUserById } from './find-user';
import { consumeCode, issueCode } from './verification-codes';

async function currentEmailOf(userId: string): Promise<string> {
  const user = await findUserById(userId);
  if (!user?.email || !user.emailVerifiedAt) {
    throw new AppError('email_not_verified', 'This account has no verified e-mail yet: verify one first.', { param: 'email' });
  }
  return user.email;
}

export async function startEmailChange(input: { userId: string; newEmail: string; stepUp: StepUpProof }): Promise<{ expiresAt: Date }> {
  const current = await currentEmailOf(input.userId);
  if (input.newEmail === current) throw new AppError('invalid_request', 'That is already your e-mail.', { param: 'newEmail' });
  // Live: the e-mail is how the account is recovered (an ownership change).
  await verifyStepUp({ userId: input.userId, proof: input.stepUp, mode: 'live', attempt: { action: 'email_change' } });
  const owner = await findUserByEmail(input.newEmail);
  const taken = owner !== undefined && owner.id !== input.userId;
  const toNew = await issueCode({ purpose: 'change_email', target: input.newEmail, userId: taken ? undefined : input.userId });
  const toOld = await issueCode({ purpose: 'change_email_old', target: current, userId: input.userId });
  await sendEmail(
    taken
      ? {
          to: input.newEmail,
          subject: 'Your address was offered to another Chargeport account',
          text: 'Someone asked to move another Chargeport account to this address. It already belongs to yours, so nothing changed.',
        }
      : {
          to: input.newEmail,
          subject: `${toNew.code} confirms your new Chargeport e-mail`,
          text: `Enter ${toNew.code} to make this the e-mail of your Chargeport account. It expires in 10 minutes.`,
        },
  );
  await sendEmail({
    to: current,
    subject: `${toOld.code} confirms changing your Chargeport e-mail`,
    text: `Someone signed in to your account asked to change its e-mail to ${maskEmail(input.newEmail)}. Enter ${toOld.code} to agree; it expires in 10 minutes.\n\nIf it was not you, do not share this code: change your PIN and sign out everywhere.`,
  });
  return { expiresAt: toNew.expiresAt };
}

/** Both codes; then the address changes. The caller ends the other sessions (lib/auth/end-other-sessions.ts). */
export async function confirmEmailChange(input: { userId: string; newEmail: string; newCode: string; oldCode: string }): Promise<void> {
  const current = await currentEmailOf(input.userId);
  const fromOld = await consumeCode({ purpose: 'change_email_old', target: current, code: input.oldCode }).catch((error: unknown) => {
    throw error instanceof AppError ? new AppError(error.code, error.message, { param: 'oldCode', headers: error.headers }) : error;
  });
  const fromNew = await consumeCode({ purpose: 'change_email', target: input.newEmail, code: input.newCode });
  if (fromOld.userId !== input.userId || fromNew.userId !== input.userId) {
    throw new AppError('code_incorrect', 'These codes were not sent for this change. Start again.', { param: 'newCode' });
  }
  await getDb().transaction(async (tx) => {
    const owner = await findUserByEmail(input.newEmail, tx);
    if (owner && owner.id !== input.userId)
      throw new AppError('code_incorrect', 'These codes are no longer valid. Start again.', { param: 'newCode' });
    await tx
      .update(users)
      // The old address no longer signs in: every session ends with the change (issue 14).
      .set({ email: input.newEmail, emailVerifiedAt: new Date(), ...endAllSessions })
      .where(and(eq(users.id, input.userId), eq(users.email, current)));
    // The e-mail sign-in method follows the address.
    await tx
      .update(authIdentities)
      .set({ subject: input.newEmail })
      .where(and(eq(authIdentities.userId, input.userId), eq(authIdentities.provider, 'email'), eq(authIdentities.subject, current)));
  });
  await sendEmail({
    to: current,
    subject: 'Your Chargeport e-mail was changed',
    text: `The e-mail of your Chargeport account is now ${maskEmail(input.newEmail)}; this address no longer signs in to it, and every session was signed out.\n\nIf it was not you, contact support at once.`,
  });
}
