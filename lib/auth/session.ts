/**
 * Who is signed in, for pages and server actions. Every protected page calls one of these at the top.
 */
import { cookies, headers } from 'next/headers';
import type { Session } from 'next-auth';
import { redirect } from 'next/navigation';
import { findUserById } from '@/lib/accounts/find-user';
import type { User } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { auth } from './auth';

/**
 * The session of this request, read from `cookies()` rather than next-auth's default `headers()`: a
 * server action that renews the session (lib/auth/end-other-sessions.ts) sets a new cookie, and Next.js
 * re-renders the page in the same response with `cookies()` updated but the request's Cookie header
 * unchanged. Reading the header there found the old, revoked token and signed the user out.
 */
async function currentSession(): Promise<Session | null> {
  const [requestHeaders, jar] = await Promise.all([headers(), cookies()]);
  const withCurrentCookies = new Headers(requestHeaders);
  withCurrentCookies.set('cookie', jar.toString());
  // next-auth's "API route" form of auth(): the session for the given request headers; a renewed
  // cookie it would set is dropped, as auth() in a server component drops it.
  const sessionFor = auth as unknown as (request: { headers: Headers }, response: { headers: Headers }) => Promise<Session | null>;
  return sessionFor({ headers: withCurrentCookies }, { headers: new Headers() });
}

/** The signed-in user; a session still waiting for its second factor is no one yet. */
export async function getSessionUser(): Promise<User | undefined> {
  const session = await currentSession();
  const id = session?.user?.id;
  if (!id || (session.user as { secondFactorPending?: boolean }).secondFactorPending) return undefined;
  return findUserById(id);
}

/** The account of a session that passed its first sign-in method and waits for the second factor. */
export async function getSecondFactorPendingUserId(): Promise<string | undefined> {
  const session = await currentSession();
  const user = session?.user as { id?: string; secondFactorPending?: boolean } | undefined;
  return user?.id && user.secondFactorPending ? user.id : undefined;
}

/**
 * The signed-in user, or a redirect to sign-in (or to its second step). An account without a
 * verified e-mail (Sign in with Ethereum) is sent to verify one first: it is not usable before (spec rule 2).
 */
export async function requireUser(options: { returnTo?: string; allowUnverifiedEmail?: boolean } = {}): Promise<User> {
  const user = await getSessionUser();
  const query = options.returnTo ? `?callbackUrl=${encodeURIComponent(options.returnTo)}` : '';
  if (!user && (await getSecondFactorPendingUserId())) redirect(`/signin/two-factor${query}`);
  if (!user) redirect(`/signin${query}`);
  if (!user.emailVerifiedAt && !options.allowUnverifiedEmail) redirect('/verify-email');
  return user;
}

/** For server actions: throws instead of redirecting. */
export async function requireUserForAction(): Promise<User> {
  const user = await getSessionUser();
  if (!user) throw new AppError('unauthenticated', 'Your session has ended. Sign in again.');
  if (!user.emailVerifiedAt) throw new AppError('email_not_verified', 'Verify your e-mail first.');
  return user;
}

/** When the current session signed in (a fresh sign-in or a renewal restarts it); undefined without one. */
export async function sessionSignedInAt(): Promise<Date | undefined> {
  const session = await currentSession();
  const seconds = (session?.user as { signedInAt?: number } | undefined)?.signedInAt;
  return typeof seconds === 'number' ? new Date(seconds * 1000) : undefined;
}
