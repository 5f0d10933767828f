/**
 * The rules of a session token, apart from next-auth so they can be tested: a token is issued fresh
 * at sign-in (new start of the absolute lifetime, the account's current session version) and refused
 * once past its absolute lifetime or after "sign out everywhere" (session version bumped).
 *
 * `mfa`: "pending" when the account has a second factor and the sign-in has not passed it yet (such
 * a session opens nothing but the second step, lib/auth/session.ts); "verified" once it has; "none"
 * for an account without a second factor. Turning one on ends the account's other sessions, so a
 * "none" token never outlives the enrolment.
 */
import { hasSecondFactor } from '@/lib/accounts/two-factor/second-factor';
import { findUserById } from '@/lib/accounts/find-user';

export const SESSION_IDLE_SECONDS = 12 * 60 * 60;
export const SESSION_ABSOLUTE_SECONDS = 7 * 24 * 60 * 60;

export interface SessionClaims {
  sub?: string;
  sv?: unknown;
  authAt?: unknown;
  mfa?: unknown;
  [claim: string]: unknown;
}

export type SecondFactorState = 'none' | 'pending' | 'verified';

export async function issueSessionClaims(
  userId: string,
  options: { secondFactorPassed?: boolean } = {},
  now = Date.now(),
): Promise<SessionClaims | null> {
  const account = await findUserById(userId);
  if (!account) return null;
  const mfa: SecondFactorState = !(await hasSecondFactor(userId)) ? 'none' : options.secondFactorPassed ? 'verified' : 'pending';
  return { sub: userId, sv: account.sessionVersion, authAt: Math.floor(now / 1000), mfa };
}

/** A token from before second factors existed carries no `mfa`: it was a first-factor session. */
export function secondFactorStateOf(claims: SessionClaims): SecondFactorState {
  return claims.mfa === 'pending' || claims.mfa === 'verified' ? claims.mfa : 'none';
}

export async function checkSessionClaims<T extends SessionClaims>(token: T, now = Date.now()): Promise<T | null> {
  const authAt = typeof token.authAt === 'number' ? token.authAt : 0;
  if (now / 1000 - authAt > SESSION_ABSOLUTE_SECONDS) return null;
  const account = token.sub ? await findUserById(token.sub) : undefined;
  if (!account || account.sessionVersion !== token.sv) return null;
  return token;
}
