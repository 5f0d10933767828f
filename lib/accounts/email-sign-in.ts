/**
 * E-mail sign-in with a 6-digit code — spec account rules 3 and 4:
 *
 *  3. after registration (email-sign-up.ts) the user logs in here, with a new code;
 *  4. the e-mail sign-in does not open an account created with Google, Apple or Ethereum: the user
 *     is told (by e-mail) to use that method, or to add e-mail sign-in through the sign-up flow first.
 *     The code is the rule's "password" (docs/adr/0029-the-code-is-the-password.md).
 *
 * Answers never tell whether an address has an account or how it signs in: what differs goes to the
 * mailbox, which only its owner reads.
 */
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { sendEmail } from '@/lib/notifications/send-email';
import { consumeCode, issueCode } from './verification-codes';
import { findUserByEmail } from './find-user';
import { hasEmailSignIn } from './has-email-sign-in';

const METHOD_NAMES = { google: 'Google', apple: 'Apple', ethereum: 'Sign in with Ethereum', email: 'e-mail' } as const;

/**
 * Neutral like sign-up: an address without an account, or whose account signs in another way (spec
 * rule 4), gets an e-mail saying so — the answer on the page is the same as for a real code, and a
 * code is issued (never sent) so throttles and wrong-code answers match.
 */
export async function startEmailSignIn({ email }: { email: string }): Promise<{ expiresAt: Date }> {
  const user = await findUserByEmail(email);
  const signsInByEmail = user !== undefined && (await hasEmailSignIn(user.id));
  const { code, expiresAt } = await issueCode({ purpose: 'signin', target: email, userId: signsInByEmail ? user.id : undefined });
  if (!user) {
    await sendEmail({
      to: email,
      subject: 'Sign in to Chargeport',
      text: `Someone (perhaps you) asked to sign in to Chargeport with this address, but no account uses it. Sign up instead: ${env().APP_URL}/signup\n\nIf it was not you, ignore this e-mail.`,
    });
    return { expiresAt };
  }
  if (!signsInByEmail) {
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
