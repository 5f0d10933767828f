/**
 * E-mail sign-up with a 6-digit code — spec account rules 1, 3 and 4:
 *
 *  1. sign-up: enter an address → a code is e-mailed → enter it → the account exists;
 *  3. after registration the user must log in again, which needs a new code (email-sign-in.ts):
 *     completing sign-up never opens a session;
 *  4. an account created with Google, Apple or Ethereum gets e-mail sign-in only through this flow:
 *     the code proves the address, then the e-mail identity is added to that account
 *     (docs/adr/0029-the-code-is-the-password.md).
 *
 * Answers never tell whether an address has an account or how it signs in: what differs goes to the
 * mailbox, which only its owner reads.
 */
import { getDb } from '@/lib/db/client';
import { env } from '@/lib/env';
import { sendEmail } from '@/lib/notifications/send-email';
import { consumeCode, issueCode } from './verification-codes';
import { addIdentity } from './add-identity';
import { createUser } from './create-user';
import { findUserByEmail } from './find-user';
import { hasEmailSignIn } from './has-email-sign-in';

/**
 * Neutral: the answer is the same whether or not the address has an account (no enumeration). An
 * address that already signs in by e-mail gets a note saying so instead of a code; a code is still
 * issued (never sent) so that the throttles and the wrong-code answers are the same too.
 */
export async function startEmailSignUp({ email }: { email: string }): Promise<{ expiresAt: Date }> {
  const existing = await findUserByEmail(email);
  const signsInByEmail = existing !== undefined && (await hasEmailSignIn(existing.id));
  const { code, expiresAt } = await issueCode({ purpose: 'signup', target: email });
  if (signsInByEmail) {
    await sendEmail({
      to: email,
      subject: 'You already have a Chargeport account',
      text: `Someone (perhaps you) asked to sign up with this address, but it already has a Chargeport account. Sign in instead: ${env().APP_URL}/signin\n\nIf it was not you, ignore this e-mail: nothing changed.`,
    });
    return { expiresAt };
  }
  await sendEmail({
    to: email,
    subject: `${code} is your Chargeport sign-up code`,
    text: `Your Chargeport sign-up code is ${code}.\n\nIt expires in 10 minutes. If you did not ask for it, ignore this e-mail.`,
  });
  return { expiresAt };
}

/** Verifies the sign-up code and creates the account (or adds e-mail sign-in to a social account). No session. */
export async function completeEmailSignUp({ email, code }: { email: string; code: string }): Promise<{ userId: string; created: boolean }> {
  await consumeCode({ purpose: 'signup', target: email, code });
  return getDb().transaction(async (tx) => {
    const existing = await findUserByEmail(email, tx);
    if (existing) {
      await addIdentity(tx, { userId: existing.id, provider: 'email', subject: email });
      return { userId: existing.id, created: false };
    }
    const user = await createUser(tx, { email, emailVerified: true, method: 'email', subject: email });
    return { userId: user.id, created: true };
  });
}
