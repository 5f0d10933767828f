/**
 * E-mail verification for accounts that have none yet (Sign in with Ethereum, spec rule 2): the user
 * gives an address, gets a code, enters it; the address becomes the account's e-mail and an e-mail
 * sign-in method.
 */
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { sendEmail } from '@/lib/notifications/send-email';
import { addIdentity, findUserByEmail } from './users';
import { consumeCode, issueCode } from './verification-codes';

export async function startEmailVerification({ userId, email }: { userId: string; email: string }): Promise<{ expiresAt: Date }> {
  const owner = await findUserByEmail(email);
  if (owner && owner.id !== userId) {
    throw new AppError('account_exists', 'Another account uses this e-mail. Use another address.', { param: 'email' });
  }
  const { code, expiresAt } = await issueCode({ purpose: 'verify_email', target: email, userId });
  await sendEmail({
    to: email,
    subject: `${code} is your Chargeport verification code`,
    text: `Your code to verify this e-mail for Chargeport is ${code}.\n\nIt expires in 10 minutes.`,
  });
  return { expiresAt };
}

export async function completeEmailVerification({ userId, email, code }: { userId: string; email: string; code: string }): Promise<void> {
  const { userId: codeOwner } = await consumeCode({ purpose: 'verify_email', target: email, code });
  if (codeOwner !== userId)
    throw new AppError('code_expired', 'This code was issued to another account. Ask for a new code.', { param: 'code' });
  await getDb().transaction(async (tx) => {
    const owner = await findUserByEmail(email, tx);
    if (owner && owner.id !== userId) throw new AppError('account_exists', 'Another account uses this e-mail.', { param: 'email' });
    await tx.update(users).set({ email, emailVerifiedAt: new Date() }).where(eq(users.id, userId));
    await addIdentity(tx, { userId, provider: 'email', subject: email });
  });
}
