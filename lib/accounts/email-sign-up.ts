/**
 * E-mail sign-up and sign-in with 6-digit codes — spec account rules 1, 3 and 4:
 *
 *  1. sign-up: enter an address → a code is e-mailed → enter it → the account exists;
 *  3. after registration the user must log in again, which needs a new code: completing sign-up
 *     never opens a session;
 *  4. the e-mail sign-in does not open an account created with Google, Apple or Ethereum: the user
 *     is told (by e-mail) to use that method, or to add e-mail sign-in through the sign-up flow first
 *     (which adds the e-mail identity to that account once the code proves the address). The code is
 *     the rule's "password" (docs/adr/0029-the-code-is-the-password.md).
 *
 * Answers never tell whether an address has an account or how it signs in: what differs goes to the
 * mailbox, which only its owner reads.
 */
import { getDb } from '@/lib/db/client';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { sendEmail } from '@/lib/notifications/send-email';
import { consumeCode, issueCode } from './verification-codes';
import { addIdentity } from './add-identity';
import { createUser } from './create-user';
import { findUserByEmail } from './find-user';
import { listIdentities } from './list-identities';

const METHOD_NAMES = { google: 'Google', apple: 'Apple', ethereum: 'Sign in with Ethereum', email: 'e-mail' } as const;

/**
 * Neutral: the answer is the same whether or not the address has an account (no enumeration). An
 * address that already signs in by e-mail gets a note saying so instead of a code; a code is still
 * issued (never sent) so that the throttles and the wrong-code answers are the same too.
 */
export async function startEmailSignUp({ email }: { email: string }): Promise<{ expiresAt: Date }> {
  const existing = await findUserByEmail(email);
  const hasEmailSignIn = existing !== undefined && (await listIdentities(existing.id)).some((identity) => identity.provider === 'email');
  const { code, expiresAt } = await issueCode({ purpose: 'signup', target: email });
  if (hasEmailSignIn) {
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

/**
 * Neutral like sign-up: an address without an account, or whose account signs in another way (spec
 * rule 4), gets an e-mail saying so — the answer on the page is the same as for a real code, and a
 * code is issued (never sent) so throttles and wrong-code answers match.
 */
export async function startEmailSignIn({ email }: { email: string }): Promise<{ expiresAt: Date }> {
  const user = await findUserByEmail(email);
  const hasEmailSignIn = user !== undefined && (await listIdentities(user.id)).some((identity) => identity.provider === 'email');
  const { code, expiresAt } = await issueCode({ purpose: 'signin', target: email, userId: hasEmailSignIn ? user.id : undefined });
  if (!user) {
    await sendEmail({
      to: email,
      subject: 'Sign in to Chargeport',
      text: `Someone (perhaps you) asked to sign in to Chargeport with this address, but no account uses it. Sign up instead: ${env().APP_URL}/signup\n\nIf it was not you, ignore this e-mail.`,
    });
    return { expiresAt };
  }
  if (!hasEmailSignIn) {
    const method = METHOD_NAMES[user.signUpMethod];
    await sendEmail({
      to: email,
      subject: 'Sign in to Chargeport',
      text: `Your Chargeport account was created with ${method}: continue with ${method} at ${env().APP_URL}/signin, or add e-mail sign-in to it through sign-up first (${env().APP_URL}/signup).\n\nIf it was not you, ignore this e-mail.`,
    });
    return { expiresAt };
  }
  await sendEmail({
    to: email,
    subject: `${code} is your Chargeport sign-in code`,
    text: `Your Chargeport sign-in code is ${code}.\n\nIt expires in 10 minutes. If you did not try to sign in, ignore this e-mail.`,
  });
  return { expiresAt };
}

export async function completeEmailSignIn({ email, code }: { email: string; code: string }): Promise<{ userId: string }> {
  const { userId } = await consumeCode({ purpose: 'signin', target: email, code });
  // A code issued for an address without e-mail sign-in carries no account: it never signs anyone in.
  if (!userId) throw new AppError('code_incorrect', 'That code is not right. Ask for a new code.', { param: 'code' });
  return { userId };
}
