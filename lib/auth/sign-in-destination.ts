/**
 * Where a completed sign-in lands, in this order:
 *  1. the second factor, if the account has one (the session is not open before it);
 *  2. an account without a verified e-mail (Sign in with Ethereum, spec account rule 2) verifies one before
 *     anything else — lib/auth/session.ts keeps such an account out of every other page;
 *  3. after the first login, an account without a PIN is asked to set one (spec account rule 5);
 *  4. where the user was going.
 */
import { hasPin } from '@/lib/accounts/pin-status';
import { hasSecondFactor } from '@/lib/accounts/two-factor/second-factor';

export async function signInDestination(input: { userId: string; emailVerified: boolean; returnTo: string }): Promise<string> {
  let destination = input.returnTo;
  if (!input.emailVerified) destination = '/verify-email';
  else if (!(await hasPin(input.userId))) destination = `/account/pin?next=${encodeURIComponent(destination)}`;
  if (await hasSecondFactor(input.userId)) destination = `/signin/two-factor?callbackUrl=${encodeURIComponent(destination)}`;
  return destination;
}
