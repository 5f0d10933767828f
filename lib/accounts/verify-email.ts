/**
 * E-mail verification for accounts that have none yet (Sign in with Ethereum, spec rule 2): the user
 * gives an address, gets a code, enters it; the address becomes the account's e-mail and an e-mail
 * sign-in method.
 *
 *  - only while the account has no verified e-mail: afterwards the address changes only through the
 *    e-mail change (PIN and codes to both addresses, lib/accounts/change-email.ts) — otherwise a
 *    stolen session could move the account to the thief's mailbox;
 *  - neutral: an address another account uses gets a note instead of a code, and the answer is the same.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { sendEmail } from '@/lib/notifications/send-email';
import { addIdentity } from './add-identity';
import { findUserByEmail } from './find-user';
import { consumeCode, issueCode } from './verification-codes';

async function requireNoVerifiedEmail(userId: string): Promise<void> {
  const [user] = await getDb().select({ verifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.id, userId));
  if (!user) throw new AppError('unauthenticated', 'Your session has ended. Sign in again.');
  if (user.verifiedAt) {
    throw new AppError(
      'email_already_verified',
      'This account already has a verified e-mail. Change it under Account → Profile (with your PIN).',
      {
        param: 'email',
      },
    );
  }
}

export async function startEmailVerification({ userId, email }: { userId: string; email: string }): Promise<{ expiresAt: Date }> {
  await requireNoVerifiedEmail(userId);
  const owner = await findUserByEmail(email);
  const takenByAnother = owner !== undefined && owner.id !== userId;
  const { code, expiresAt } = await issueCode({ purpose: 'verify_email', target: email, userId: takenByAnother ? undefined : userId });
  if (takenByAnother) {
    await sendEmail({
      to: email,
      subject: 'Your address was offered to another Chargeport account',
      text: 'Someone asked to add this address to another Chargeport account. It already belongs to yours, so nothing changed.',
    });
    return { expiresAt };
  }
  await sendEmail({
    to: email,
    subject: `${code} is your Chargeport verification code`,
    text: `Your code to verify this e-mail for Chargeport is ${code}.\n\nIt expires in 10 minutes.`,
  });
  return { expiresAt };
}

export async function completeEmailVerification({ userId, email, code }: { userId: string; email: string; code: string }): Promise<void> {
  await requireNoVerifiedEmail(userId);
  const { userId: codeOwner } = await consumeCode({ purpose: 'verify_email', target: email, code });
  if (codeOwner !== userId)
    throw new AppError('code_expired', 'This code was issued to another account. Ask for a new code.', { param: 'code' });
  await getDb().transaction(async (tx) => {
    const owner = await findUserByEmail(email, tx);
    if (owner && owner.id !== userId) throw new AppError('account_exists', 'Another account uses this e-mail.', { param: 'email' });
    const [updated] = await tx
      .update(users)
      .set({ email, emailVerifiedAt: new Date() })
      .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)))
      .returning({ id: users.id });
    if (!updated) throw new AppError('email_already_verified', 'This account already has a verified e-mail.', { param: 'email' });
    await addIdentity(tx, { userId, provider: 'email', subject: email });
  });
}
