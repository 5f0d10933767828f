/**
 * Chargeport as an OpenID Connect provider ("Sign in with Chargeport"), built on oidc-provider (an
 * OpenID Certified implementation; ADR 0020). This file is its configuration:
 *
 *  - issuer APP_URL, so discovery is `/.well-known/openid-configuration`; endpoints under `/oidc/`;
 *  - authorization code with PKCE S256 required for every client, refresh tokens issued to every
 *    grant and rotated at every use, revocation, userinfo, introspection (confidential apps), and the
 *    device authorization grant (RFC 8628) for games and consoles;
 *  - accounts are Chargeport users; the provider's own session follows the Chargeport sign-in (the
 *    `chargeport_session` login check), so signing out of Chargeport signs the user out here too;
 *  - consent is remembered per account and app (one grant, listed under "Connected apps");
 *  - storage in PostgreSQL (adapter.ts), signing keys sealed and rotated (signing-keys.ts).
 *
 * The instance is rebuilt when the signing key set changes (checked at most every 30 s).
 */
import 'server-only';
import { createHmac } from 'node:crypto';
import Provider, { interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { findUserById } from '@/lib/accounts/find-user';
import { env, requireSecret } from '@/lib/env';
import { log } from '@/lib/log';
import { PostgresAdapter } from './adapter';
import { deviceSuccessPage, errorPage, userCodeConfirmPage, userCodeInputPage, OIDC_PAGE_CSP } from './device-pages';
import { findGrantIdOf } from './grants';
import { OAUTH_SCOPES } from './scopes';
import { loadSigningKeys } from './signing-keys';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  AUTHORIZATION_CODE_TTL_SECONDS,
  DEVICE_CODE_TTL_SECONDS,
  GRANT_TTL_SECONDS,
  ID_TOKEN_TTL_SECONDS,
  REFRESH_TOKEN_TTL_SECONDS,
} from './token-lifetimes';

/** Where the provider's endpoints live (the issuer itself is APP_URL). */
export const OIDC_PATH_PREFIX = '/oidc';
/** The consent and sign-in step of an authorization (app/oauth/authorize/[uid]). */
export const interactionPath = (uid: string) => `/oauth/authorize/${uid}`;

/** Set on the Node request by handle-oidc-request.ts: the Chargeport user signed in (or null). */
export const SESSION_USER = Symbol.for('chargeport.oidc.sessionUser');
type RequestWithSessionUser = { [SESSION_USER]?: string | null };

const KEY_RECHECK_MS = 30_000;

interface Cached {
  provider: Provider;
  version: string;
  issuer: string;
  checkedAt: number;
}
const globalForProvider = globalThis as unknown as { __chargeportOidc?: Cached; __chargeportOidcBuilding?: Promise<Cached> };

/** The provider, built on first use and rebuilt when the signing keys or the issuer change. */
export async function getProvider(): Promise<Provider> {
  const cached = globalForProvider.__chargeportOidc;
  const issuer = issuerUrl();
  if (cached && cached.issuer === issuer && Date.now() - cached.checkedAt < KEY_RECHECK_MS) return cached.provider;
  globalForProvider.__chargeportOidcBuilding ??= (async () => {
    const keys = await loadSigningKeys();
    const current = globalForProvider.__chargeportOidc;
    const next =
      current && current.version === keys.version && current.issuer === issuer
        ? { ...current, checkedAt: Date.now() }
        : { provider: buildProvider(issuer, keys.keys), version: keys.version, issuer, checkedAt: Date.now() };
    globalForProvider.__chargeportOidc = next;
    return next;
  })().finally(() => {
    globalForProvider.__chargeportOidcBuilding = undefined;
  });
  return (await globalForProvider.__chargeportOidcBuilding).provider;
}

export function issuerUrl(): string {
  return env().APP_URL.replace(/\/+$/, '');
}

function buildProvider(issuer: string, keys: Awaited<ReturnType<typeof loadSigningKeys>>['keys']): Provider {
  const provider = new Provider(issuer, configuration(keys));
  // X-Forwarded-* are set by handle-oidc-request.ts from APP_URL and the trusted client IP, never passed through.
  provider.proxy = true;
  // oidc-provider answers "server_error" without detail; the cause goes to the log.
  provider.on('server_error', (ctx, error) => log.error('oidc provider error', { path: ctx.path, error }));
  provider.use(async (ctx, next) => {
    ctx.set('content-security-policy', OIDC_PAGE_CSP);
    await next();
  });
  return provider;
}

function configuration(keys: Awaited<ReturnType<typeof loadSigningKeys>>['keys']): Configuration {
  const login = interactionPolicy.base();
  login.get('login')!.checks.add(
    new interactionPolicy.Check('chargeport_session', 'Sign in to Chargeport', (ctx) => {
      const signedIn = (ctx.req as RequestWithSessionUser)[SESSION_USER];
      return signedIn && ctx.oidc.session?.accountId === signedIn
        ? interactionPolicy.Check.NO_NEED_TO_PROMPT
        : interactionPolicy.Check.REQUEST_PROMPT;
    }),
  );
  const cookieKey = createHmac('sha256', requireSecret('AUTH_SECRET')).update('chargeport.oidc.cookies.v1').digest('base64url');
  return {
    adapter: PostgresAdapter,
    jwks: { keys },
    async findAccount(_ctx, sub) {
      const user = await findUserById(sub);
      if (!user) return undefined;
      return {
        accountId: user.id,
        claims: () => ({
          sub: user.id,
          ...(user.email ? { email: user.email, email_verified: user.emailVerifiedAt !== null } : {}),
          updated_at: Math.floor(user.updatedAt.getTime() / 1000),
        }),
      };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['updated_at'] },
    // offline_access is accepted (clients send it by habit) but not needed: every grant gets a refresh token.
    scopes: [...OAUTH_SCOPES, 'offline_access'],
    conformIdTokenClaims: false,
    // The authorization code flow only (no implicit or hybrid responses).
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    allowOmittingSingleRegisteredRedirectUri: false,
    cookies: {
      keys: [cookieKey],
      names: { session: 'chargeport.op.session', interaction: 'chargeport.op.interaction', resume: 'chargeport.op.resume' },
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    routes: {
      authorization: `${OIDC_PATH_PREFIX}/auth`,
      token: `${OIDC_PATH_PREFIX}/token`,
      jwks: `${OIDC_PATH_PREFIX}/jwks`,
      userinfo: `${OIDC_PATH_PREFIX}/me`,
      revocation: `${OIDC_PATH_PREFIX}/token/revocation`,
      introspection: `${OIDC_PATH_PREFIX}/token/introspection`,
      device_authorization: `${OIDC_PATH_PREFIX}/device/auth`,
      code_verification: `${OIDC_PATH_PREFIX}/device`,
      end_session: `${OIDC_PATH_PREFIX}/session/end`,
      pushed_authorization_request: `${OIDC_PATH_PREFIX}/request`,
      registration: `${OIDC_PATH_PREFIX}/reg`,
      challenge: `${OIDC_PATH_PREFIX}/challenge`,
      backchannel_authentication: `${OIDC_PATH_PREFIX}/backchannel`,
      credential: `${OIDC_PATH_PREFIX}/credential`,
    },
    features: {
      devInteractions: { enabled: false },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        userCodeInputSource: userCodeInputPage,
        userCodeConfirmSource: userCodeConfirmPage,
        successSource: deviceSuccessPage,
      },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      introspection: { enabled: true },
      rpInitiatedLogout: { enabled: false },
    },
    pkce: { required: () => true },
    clientBasedCORS: (_ctx, origin, client) => client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) ?? false,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      DeviceCode: DEVICE_CODE_TTL_SECONDS,
      IdToken: ID_TOKEN_TTL_SECONDS,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      Grant: GRANT_TTL_SECONDS,
      Interaction: 60 * 60,
      Session: 14 * 24 * 60 * 60,
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Every use of a refresh token returns a new one and consumes the old; replaying a consumed token
    // revokes the whole grant (oidc-provider's reuse detection).
    rotateRefreshToken: () => true,
    // Tokens outlive the browser session: a game keeps playing after the tab that signed in closes.
    expiresWithSession: async () => false,
    loadExistingGrant,
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid), policy: login },
    renderError: errorPage,
  };
}

/**
 * The grant this account already gave this app (so consent is asked once per account, not per
 * browser): the one just consented to, the session's, or any stored one of the account and app.
 */
async function loadExistingGrant(ctx: KoaContextWithOIDC) {
  const clientId = ctx.oidc.client!.clientId;
  const accountId = ctx.oidc.session!.accountId;
  const candidates = [ctx.oidc.result?.consent?.grantId, ctx.oidc.session!.grantIdFor(clientId)];
  for (const grantId of candidates) {
    const grant = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
    if (grant && grant.accountId === accountId && grant.clientId === clientId) return grant;
  }
  const stored = accountId ? await findGrantIdOf({ accountId, clientId }) : undefined;
  return stored ? ctx.oidc.provider.Grant.find(stored) : undefined;
}
