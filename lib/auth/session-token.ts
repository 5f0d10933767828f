/**
 * The rules of a session token, apart from next-auth so they can be tested: a token is issued fresh
 * at sign-in (new start of the absolute lifetime, the account's current session version) and refused
 * once past its absolute lifetime or after "sign out everywhere" (session version bumped).
 */
import { findUserById } from '@/lib/accounts/users';

export const SESSION_IDLE_SECONDS = 12 * 60 * 60;
export const SESSION_ABSOLUTE_SECONDS = 7 * 24 * 60 * 60;

export interface SessionClaims {
  sub?: string;
  sv?: unknown;
  authAt?: unknown;
  [claim: string]: unknown;
}

export async function issueSessionClaims(userId: string, now = Date.now()): Promise<SessionClaims | null> {
  const account = await findUserById(userId);
  if (!account) return null;
  return { sub: userId, sv: account.sessionVersion, authAt: Math.floor(now / 1000) };
}

export async function checkSessionClaims<T extends SessionClaims>(token: T, now = Date.now()): Promise<T | null> {
  const authAt = typeof token.authAt === 'number' ? token.authAt : 0;
  if (now / 1000 - authAt > SESSION_ABSOLUTE_SECONDS) return null;
  const account = token.sub ? await findUserById(token.sub) : undefined;
  if (!account || account.sessionVersion !== token.sv) return null;
  return token;
}
