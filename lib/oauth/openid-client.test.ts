/**
 * "Sign in with Chargeport" as a real client library sees it: openid-client discovers the provider,
 * signs a user in by the authorization code flow with PKCE (S256), reads userinfo, refreshes (the old
 * refresh token is consumed), revokes, and runs the device authorization grant (RFC 8628) — every
 * request through the app's own route handlers, against real PostgreSQL. Only "who is signed in to
 * Chargeport" (next-auth's cookie, read by getSessionUser) is set by the test; the interaction pages'
 * steps are the functions those pages call.
 */
import * as client from 'openid-client';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { merchantMembers } from '@/lib/db/schema';
import { getDb } from '@/lib/db/client';
import { createUser } from '@/lib/accounts/create-user';
import { findUserById } from '@/lib/accounts/find-user';
import { newUser, uniqueEmail } from '@/test/accounts';
import { ISSUER, OidcBrowser as Browser, signInAndConsent } from '@/test/oidc-browser';
import { newMerchant } from '@/test/fixtures';
import { handleOidcRequest } from './handle-oidc-request';
import { registerOAuthApp } from './register-oauth-app';

const session = vi.hoisted(() => ({ userId: undefined as string | undefined }));
vi.mock('@/lib/auth/session', () => ({
  getSessionUser: async () => (session.userId ? findUserById(session.userId) : undefined),
}));

const REDIRECT_URI = 'http://localhost:8080/callback';

let userId: string;
let email: string;
let config: client.Configuration;

async function configFor(clientId: string): Promise<client.Configuration> {
  const routeFetch: client.CustomFetch = (url, options) =>
    handleOidcRequest(new Request(url, { method: options.method, headers: options.headers, body: options.body as BodyInit }));
  return client.discovery(new URL(ISSUER), clientId, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
    [client.customFetch]: routeFetch,
  });
}

beforeAll(async () => {
  const merchant = await newMerchant({ name: 'Pixel Quest' });
  const owner = await newUser();
  await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: owner, role: 'owner' });
  const app = await registerOAuthApp({
    userId: owner,
    merchantId: merchant.id,
    app: { name: 'Pixel Quest', redirectUris: [REDIRECT_URI], clientType: 'public' },
  });
  email = uniqueEmail('player');
  userId = (await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }))).id;
  session.userId = userId;
  config = await configFor(app.clientId);
});

describe('authorization code with PKCE, refresh, userinfo, revocation (openid-client)', () => {
  it('signs in, reads userinfo, rotates the refresh token and revokes', async () => {
    expect(config.serverMetadata().code_challenge_methods_supported).toEqual(['S256']);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const authUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid email wallet:read payments',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const browser = new Browser();
    const done = await signInAndConsent(browser, await browser.request(authUrl.href), userId);
    const callback = new URL(done.headers.get('location')!);
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);

    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()?.sub).toBe(userId);
    expect(tokens.scope?.split(' ').sort()).toEqual(['email', 'openid', 'payments', 'wallet:read']);
    expect(tokens.refresh_token).toBeTruthy();

    const info = await client.fetchUserInfo(config, tokens.access_token, userId);
    expect(info).toMatchObject({ sub: userId, email, email_verified: true });

    // Rotation: a new refresh token each time; the consumed one no longer works, and replaying it
    // revokes the grant (so a stolen refresh token is caught at its second use).
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('revokes a refresh token and an access token at the revocation endpoint', async () => {
    const verifier = client.randomPKCECodeVerifier();
    const authUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'revocation',
    });
    const browser = new Browser();
    const done = await signInAndConsent(browser, await browser.request(authUrl.href), userId);
    const tokens = await client.authorizationCodeGrant(config, new URL(done.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: 'revocation',
    });
    await client.tokenRevocation(config, tokens.access_token);
    await expect(client.fetchUserInfo(config, tokens.access_token, userId)).rejects.toBeDefined();
    await client.tokenRevocation(config, tokens.refresh_token!);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('requires PKCE with S256: no challenge, or a plain one, is refused', async () => {
    const browser = new Browser();
    const without = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'openid', state: 'x' });
    const refused = await browser.request(without.href);
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const plain = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'plain',
      state: 'x',
    });
    const refusedPlain = await browser.request(plain.href);
    expect(new URL(refusedPlain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses a code redeemed with the wrong verifier', async () => {
    const verifier = client.randomPKCECodeVerifier();
    const authUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'pkce',
    });
    const browser = new Browser();
    const done = await signInAndConsent(browser, await browser.request(authUrl.href), userId);
    await expect(
      client.authorizationCodeGrant(config, new URL(done.headers.get('location')!), {
        pkceCodeVerifier: client.randomPKCECodeVerifier(),
        expectedState: 'pkce',
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});

describe('device authorization grant (RFC 8628)', () => {
  it('a game shows a code, the user enters it on Chargeport and allows, the game receives tokens', async () => {
    const device = await client.initiateDeviceAuthorization(config, { scope: 'openid wallet:read payments' });
    expect(device.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(device.verification_uri).toBe(`${ISSUER}/oidc/device`);

    // The user's browser: the confirmation page with the code, its form, then sign-in and consent.
    const browser = new Browser();
    // Device-code phishing (N14): the entry page and the confirmation both warn, above the form and the code.
    const warning = 'Only enter a code you started yourself';
    const entry = await (await browser.request('/oidc/device')).text();
    expect(entry.indexOf(warning)).toBeGreaterThan(0);
    expect(entry.indexOf(warning)).toBeLessThan(entry.indexOf('name="user_code"'));
    const page = await browser.request(device.verification_uri_complete!);
    const html = await page.text();
    expect(html).toContain(device.user_code);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
    expect(xsrf).toBeTruthy();
    const confirmPage = await browser.request('/oidc/device', {
      method: 'POST',
      body: new URLSearchParams({ xsrf: xsrf!, user_code: device.user_code }).toString(),
    });
    const confirmHtml = await confirmPage.text();
    expect(confirmHtml).toContain('Chargeport never asks for it');
    expect(confirmHtml.indexOf(warning)).toBeGreaterThan(0);
    expect(confirmHtml.indexOf(warning)).toBeLessThan(confirmHtml.indexOf('data-testid="device-user-code"'));
    const confirmXsrf = /name="xsrf" value="([^"]+)"/.exec(confirmHtml)?.[1] ?? xsrf!;
    const submitted = await browser.request('/oidc/device', {
      method: 'POST',
      body: new URLSearchParams({ xsrf: confirmXsrf, user_code: device.user_code, confirm: 'yes' }).toString(),
    });
    const success = await signInAndConsent(browser, submitted, userId);
    expect(success.status).toBe(200);

    const tokens = await client.pollDeviceAuthorizationGrant(config, { ...device, interval: 0 });
    expect(tokens.claims()?.sub).toBe(userId);
    expect(tokens.scope?.split(' ').sort()).toEqual(['openid', 'payments', 'wallet:read']);
    expect(tokens.refresh_token).toBeTruthy();
  });
});
