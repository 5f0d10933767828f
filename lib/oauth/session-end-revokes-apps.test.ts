/**
 * N14: what ends every session of an account also ends what apps hold through "Sign in with Chargeport"
 * (the trigger of migration 0042 on users.session_version), and "Revoke all" does
 * the same on demand. Tokens are obtained as a real client gets them (openid-client through the app's
 * route handlers, as in openid-client.test.ts); "no longer works" is checked where apps use them: a
 * refresh at the token endpoint, the in-app API's bearer check and userinfo. Another user's grant stays.
 */
import { eq } from 'drizzle-orm';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { confirmEmailChange, startEmailChange } from '@/lib/accounts/change-email';
import { findUserById } from '@/lib/accounts/find-user';
import { confirmPhoneLink, startPhoneLink } from '@/lib/accounts/phone';
import { requestPinResetCode } from '@/lib/accounts/request-pin-reset-code';
import { resetPinWithPhone } from '@/lib/accounts/reset-pin-with-phone';
import { revokeAllSessions } from '@/lib/accounts/revoke-sessions';
import { getDb } from '@/lib/db/client';
import { merchantMembers, users } from '@/lib/db/schema';
import { lastSmsCode, latestCode, newUser, randomMobile, uniqueEmail, userRow } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';
import { ISSUER, OidcBrowser, signInAndConsent } from '@/test/oidc-browser';
import { authenticateAccessToken } from './authenticate-access-token';
import { listConnectedApps, revokeAllConnectedApps } from './grants';
import { handleOidcRequest } from './handle-oidc-request';
import { registerOAuthApp } from './register-oauth-app';

const session = vi.hoisted(() => ({ userId: undefined as string | undefined }));
vi.mock('@/lib/auth/session', () => ({
  getSessionUser: async () => (session.userId ? findUserById(session.userId) : undefined),
}));

const REDIRECT_URI = 'http://localhost:8080/callback';
const PIN = '739104';
const NEW_PIN = '862051';
let config: client.Configuration;
let clientId: string;

beforeAll(async () => {
  const merchant = await newMerchant({ name: 'Revocation Quest' });
  const owner = await newUser();
  await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: owner, role: 'owner' });
  const app = await registerOAuthApp({
    userId: owner,
    merchantId: merchant.id,
    app: { name: 'Revocation Quest', redirectUris: [REDIRECT_URI], clientType: 'public' },
  });
  clientId = app.clientId;
  const routeFetch: client.CustomFetch = (url, options) =>
    handleOidcRequest(new Request(url, { method: options.method, headers: options.headers, body: options.body as BodyInit }));
  config = await client.discovery(new URL(ISSUER), clientId, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
    [client.customFetch]: routeFetch,
  });
});

/** A user with a verified e-mail and a PIN (the provider signs in verified accounts only). */
async function player(): Promise<string> {
  const userId = await newUser({ pin: PIN });
  await getDb().update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
  return userId;
}

/** The user signs in to the app: its access and refresh tokens. */
async function signIn(userId: string): Promise<{ access: string; refresh: string }> {
  session.userId = userId;
  const verifier = client.randomPKCECodeVerifier();
  const authUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid email wallet:read',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: 'n14',
  });
  const browser = new OidcBrowser();
  const done = await signInAndConsent(browser, await browser.request(authUrl.href), userId);
  const tokens = await client.authorizationCodeGrant(config, new URL(done.headers.get('location')!), {
    pkceCodeVerifier: verifier,
    expectedState: 'n14',
  });
  session.userId = undefined;
  return { access: tokens.access_token, refresh: tokens.refresh_token! };
}

const bearer = (token: string) => new Request(`${ISSUER}/api/oauth/balances`, { headers: { authorization: `Bearer ${token}` } });

/** Whether the app's tokens still work: the access token at the in-app API and userinfo, the refresh token at the token endpoint. */
async function expectRevoked(tokens: { access: string; refresh: string }, userId: string): Promise<void> {
  await expect(authenticateAccessToken(bearer(tokens.access), 'wallet:read')).rejects.toMatchObject({ code: 'invalid_access_token' });
  await expect(client.fetchUserInfo(config, tokens.access, userId)).rejects.toBeDefined();
  await expect(client.refreshTokenGrant(config, tokens.refresh)).rejects.toMatchObject({ error: 'invalid_grant' });
  expect(await listConnectedApps(userId)).toEqual([]);
}

/** Still working: returns the rotated refresh token. */
async function expectWorking(tokens: { access: string; refresh: string }, userId: string): Promise<{ access: string; refresh: string }> {
  expect((await authenticateAccessToken(bearer(tokens.access), 'wallet:read')).userId).toBe(userId);
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh);
  return { access: refreshed.access_token, refresh: refreshed.refresh_token! };
}

describe('ending every session revokes the apps too (N14)', () => {
  it('"sign out everywhere": the user’s refresh and access tokens stop working; another user’s stay', async () => {
    const victim = await player();
    const bystander = await player();
    const victimTokens = await signIn(victim);
    const bystanderTokens = await signIn(bystander);
    // Working before, so the check below proves the revocation and not a broken sign-in.
    const rotated = await expectWorking(victimTokens, victim);
    expect((await listConnectedApps(victim)).map((app) => app.clientId)).toEqual([clientId]);

    await revokeAllSessions(victim);
    await expectRevoked(rotated, victim);
    await expectWorking(bystanderTokens, bystander);
    expect(await listConnectedApps(bystander)).toHaveLength(1);
  });

  it('a PIN reset through the phone', async () => {
    const victim = await player();
    const bystander = await player();
    const phone = randomMobile();
    await startPhoneLink({ userId: victim, phone, pin: PIN });
    await confirmPhoneLink({ userId: victim, phone, code: lastSmsCode(phone) });
    const victimTokens = await signIn(victim); // after the phone link (which ends sessions itself)
    const bystanderTokens = await signIn(bystander);

    await requestPinResetCode({ userId: victim });
    await resetPinWithPhone({ userId: victim, code: lastSmsCode(phone), pin: NEW_PIN, confirm: NEW_PIN });
    await expectRevoked(victimTokens, victim);
    await expectWorking(bystanderTokens, bystander);
  });

  it('an e-mail change', async () => {
    const victim = await player();
    const bystander = await player();
    const victimTokens = await signIn(victim);
    const bystanderTokens = await signIn(bystander);
    const email = (await userRow(victim)).email!;
    const newEmail = uniqueEmail('moved');
    await startEmailChange({ userId: victim, newEmail, stepUp: { pin: PIN } });
    await confirmEmailChange({ userId: victim, newEmail, newCode: latestCode(newEmail), oldCode: latestCode(email) });
    await expectRevoked(victimTokens, victim);
    await expectWorking(bystanderTokens, bystander);
  });

  it('"Revoke all" on Account → Profile: every app of the user, no one else’s', async () => {
    const victim = await player();
    const bystander = await player();
    const victimTokens = await signIn(victim);
    const bystanderTokens = await signIn(bystander);
    const [app] = await listConnectedApps(victim);
    expect(app).toMatchObject({ clientId, name: 'Revocation Quest', scopes: expect.arrayContaining(['wallet:read']) });
    expect(app!.lastUsedAt).toBeInstanceOf(Date);

    expect(await revokeAllConnectedApps({ userId: victim })).toBe(1);
    await expectRevoked(victimTokens, victim);
    await expectWorking(bystanderTokens, bystander);
    expect(await revokeAllConnectedApps({ userId: victim })).toBe(0);
  });
});
