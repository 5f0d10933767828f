/**
 * next-auth (Auth.js v5) configuration. We keep accounts ourselves (lib/accounts); next-auth issues
 * and checks the session:
 *
 *  - providers: `ticket` (credentials: the result of our e-mail-code or SIWE verification, see
 *    sign-in-ticket.ts) and Google / Apple (OIDC), each offered only when configured;
 *  - JWT sessions in `__Host-` cookies (Secure, HttpOnly, SameSite=Lax, Path=/);
 *  - idle lifetime 12 h (refreshed every 15 min of use), absolute lifetime 7 days from sign-in;
 *  - "sign out everywhere" bumps users.session_version: older tokens are refused on their next use;
 *  - an account with a second factor gets a "pending" session from its first method, and a full one
 *    from the second step (lib/accounts/two-factor/second-factor.ts).
 */
import NextAuth, { type NextAuthConfig } from 'next-auth';
import Apple from 'next-auth/providers/apple';
import Credentials from 'next-auth/providers/credentials';
import Google from 'next-auth/providers/google';
import { signInWithOidc } from '@/lib/accounts/oidc-sign-in';
import { env, requireSecret } from '@/lib/env';
import { isAppError } from '@/lib/errors';
import { SESSION_IDLE_SECONDS, checkSessionClaims, issueSessionClaims, secondFactorStateOf } from './session-token';
import { readSignInTicket } from './sign-in-ticket';

const secureCookie = (name: string, sameSite: 'lax' | 'none' = 'lax') => ({
  name,
  options: { httpOnly: true, sameSite, path: '/', secure: true },
});

export function oidcProvidersConfigured(): { google: boolean; apple: boolean } {
  const config = env();
  return {
    google: Boolean(config.GOOGLE_CLIENT_ID && config.GOOGLE_CLIENT_SECRET),
    apple: Boolean(config.APPLE_CLIENT_ID && config.APPLE_CLIENT_SECRET),
  };
}

function buildConfig(): NextAuthConfig {
  const config = env();
  const configured = oidcProvidersConfigured();
  const providers: NextAuthConfig['providers'] = [
    Credentials({
      id: 'ticket',
      name: 'Chargeport',
      credentials: { ticket: {} },
      authorize: async (credentials) => {
        const ticket = typeof credentials?.ticket === 'string' ? readSignInTicket(credentials.ticket) : undefined;
        return ticket ? ({ id: ticket.userId, secondFactorPassed: ticket.secondFactorPassed } as { id: string }) : null;
      },
    }),
  ];
  if (configured.google) {
    providers.push(Google({ clientId: config.GOOGLE_CLIENT_ID, clientSecret: config.GOOGLE_CLIENT_SECRET, issuer: config.GOOGLE_ISSUER }));
  }
  if (configured.apple) {
    providers.push(Apple({ clientId: config.APPLE_CLIENT_ID, clientSecret: config.APPLE_CLIENT_SECRET, issuer: config.APPLE_ISSUER }));
  }

  // Auth.js builds its callback and redirect URLs from the request's origin unless AUTH_URL names one. The
  // standalone server (npm start, the image) binds HOSTNAME=0.0.0.0 and Next.js then gives route handlers
  // that origin, so a Google or Apple sign-in came back to http://0.0.0.0:3000/ (caught by the e2e journeys).
  // The service's public origin is APP_URL.
  process.env.AUTH_URL ??= config.APP_URL;
  return {
    secret: requireSecret('AUTH_SECRET'),
    trustHost: true,
    basePath: '/api/auth',
    providers,
    pages: { signIn: '/signin', error: '/signin' },
    session: { strategy: 'jwt', maxAge: SESSION_IDLE_SECONDS, updateAge: 15 * 60 },
    cookies: {
      sessionToken: secureCookie('__Host-chargeport.session'),
      csrfToken: secureCookie('__Host-chargeport.csrf'),
      // Short-lived OAuth-flow cookies: Apple answers with a cross-site form POST (response_mode
      // form_post), which carries only SameSite=None cookies. The session cookie stays Lax.
      callbackUrl: secureCookie('__Host-chargeport.callback', 'none'),
      pkceCodeVerifier: secureCookie('__Host-chargeport.pkce', 'none'),
      state: secureCookie('__Host-chargeport.state', 'none'),
      nonce: secureCookie('__Host-chargeport.nonce', 'none'),
    },
    callbacks: {
      async signIn({ user, account, profile }) {
        if (account?.provider !== 'google' && account?.provider !== 'apple') return true;
        try {
          const result = await signInWithOidc({
            provider: account.provider,
            subject: String(profile?.sub ?? account.providerAccountId),
            email: typeof profile?.email === 'string' ? profile.email : null,
            emailVerified: profile?.email_verified === true || String(profile?.email_verified) === 'true',
          });
          (user as { chargeportUserId?: string }).chargeportUserId = result.userId;
          return true;
        } catch (error) {
          if (isAppError(error)) return `/signin?error=${encodeURIComponent(error.code)}`;
          throw error;
        }
      },
      async jwt({ token, user }) {
        // A fresh token at every sign-in: new start of the absolute lifetime, current session version,
        // and the second factor pending unless this sign-in passed it (a ticket from the second step).
        if (user) {
          const signedIn = user as { chargeportUserId?: string; secondFactorPassed?: boolean };
          return issueSessionClaims(signedIn.chargeportUserId ?? user.id!, { secondFactorPassed: signedIn.secondFactorPassed === true });
        }
        return checkSessionClaims(token);
      },
      session({ session, token }) {
        session.user = {
          ...session.user,
          id: token.sub!,
          secondFactorPending: secondFactorStateOf(token) === 'pending',
          // When this session signed in: the first-login PIN prompt (lib/accounts/set-first-pin.ts).
          signedInAt: typeof token.authAt === 'number' ? token.authAt : undefined,
        } as typeof session.user;
        return session;
      },
    },
  };
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => buildConfig());

/** Largest body next-auth is given: forms with a CSRF token, Apple's form_post with an id_token. */
export const AUTH_MAX_BODY_BYTES = 64 * 1024;

/** next-auth's actions, and those that take a provider id (as @auth/core parses /api/auth/<action>[/<provider>]). */
const AUTH_ACTIONS = ['providers', 'session', 'csrf', 'signin', 'signout', 'callback', 'verify-request', 'error', 'webauthn-options'];
const AUTH_ACTIONS_WITH_PROVIDER = ['signin', 'callback', 'webauthn-options'];

/** Whether next-auth serves this path; anything else under /api/auth is a 404 in the API envelope. */
export function isAuthRoute(pathname: string): boolean {
  if (!pathname.startsWith('/api/auth/')) return false;
  const [action, provider, ...rest] = pathname.slice('/api/auth/'.length).split('/').filter(Boolean);
  if (!action || rest.length > 0 || !AUTH_ACTIONS.includes(action)) return false;
  return provider === undefined || AUTH_ACTIONS_WITH_PROVIDER.includes(action);
}
