/**
 * E-mail sign-up and sign-in with 6-digit codes — spec account rules 1, 3 and 4:
 *
 *  1. sign-up: enter an address → a code is e-mailed → enter it → the account exists;
 *  3. after registration the user must log in again, which needs a new code: completing sign-up
 *     never opens a session;
 *  4. the e-mail sign-in does not open an account created with Google, Apple or Ethereum: the user
 *     is told to use that method, or to add e-mail sign-in through the sign-up flow first (which
 *     adds the e-mail identity to that account once the code proves the address).
 */
import { getDb } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { sendEmail } from '@/lib/notifications/send-email';
import { consumeCode, issueCode } from './verification-codes';
import { addIdentity, createUser, findUserByEmail, listIdentities } from './users';

const METHOD_NAMES = { google: 'Google', apple: 'Apple', ethereum: 'Sign in with Ethereum', email: 'e-mail' } as const;

export async function startEmailSignUp({ email }: { email: string }): Promise<{ expiresAt: Date }> {
  const existing = await findUserByEmail(email);
  if (existing) {
    const identities = await listIdentities(existing.id);
    if (identities.some((identity) => identity.provider === 'email')) {
      throw new AppError('account_exists', 'An account with this e-mail already exists. Sign in instead.', { param: 'email' });
    }
  }
  const { code, expiresAt } = await issueCode({ purpose: 'signup', target: email });
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

export async function startEmailSignIn({ email }: { email: string }): Promise<{ expiresAt: Date }> {
  const user = await findUserByEmail(email);
  if (!user) throw new AppError('not_found', 'No account uses this e-mail. Sign up first.', { param: 'email' });
  const identities = await listIdentities(user.id);
  if (!identities.some((identity) => identity.provider === 'email')) {
    const method = METHOD_NAMES[user.signUpMethod];
    throw new AppError(
      'use_other_sign_in',
      `This account was created with ${method}. Continue with ${method}, or add e-mail sign-in to it through sign-up first.`,
      { param: 'email' },
    );
  }
  const { code, expiresAt } = await issueCode({ purpose: 'signin', target: email, userId: user.id });
  await sendEmail({
    to: email,
    subject: `${code} is your Chargeport sign-in code`,
    text: `Your Chargeport sign-in code is ${code}.\n\nIt expires in 10 minutes. If you did not try to sign in, ignore this e-mail.`,
  });
  return { expiresAt };
}

export async function completeEmailSignIn({ email, code }: { email: string; code: string }): Promise<{ userId: string }> {
  await consumeCode({ purpose: 'signin', target: email, code });
  const user = await findUserByEmail(email);
  if (!user) throw new AppError('not_found', 'No account uses this e-mail. Sign up first.', { param: 'email' });
  return { userId: user.id };
}
