/**
 * The development stand-ins for Google and Apple sign-in are real OpenID providers on loopback: a
 * client library (openid-client, as next-auth's providers do) discovers them, the sign-in screen says
 * what it stands in for, and Apple answers with a cross-site form POST (response_mode=form_post) whose
 * code redeems for an ID token carrying Apple's string `email_verified`.
 */
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentityStandIns, type IdentityStandIns } from './identity-stand-ins';

const APP_URL = 'http://localhost:3999';
let standIns: IdentityStandIns;

beforeAll(async () => {
  standIns = await startIdentityStandIns({ appUrl: APP_URL });
});
afterAll(() => standIns.stop());

/** A browser against the stand-in: follows its redirects and keeps its cookies. */
function browser() {
  const cookies = new Map<string, string>();
  return async (url: string, init: { method?: string; body?: string } = {}): Promise<Response> => {
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(init.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: init.body,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  };
}

async function configFor(provider: 'google' | 'apple'): Promise<client.Configuration> {
  const prefix = provider.toUpperCase();
  return client.discovery(
    new URL(standIns.env[`${prefix}_ISSUER`]!),
    standIns.env[`${prefix}_CLIENT_ID`]!,
    standIns.env[`${prefix}_CLIENT_SECRET`]!,
    undefined,
    { execute: [client.allowInsecureRequests] },
  );
}

/** Sign in on the stand-in's screen; returns its last answer (a redirect, or Apple's form_post page). */
async function signIn(authUrl: URL, email: string, label: string): Promise<Response> {
  const go = browser();
  let res = await go(authUrl.href);
  for (let step = 0; step < 8; step += 1) {
    const location = res.headers.get('location');
    if (!location) return res;
    const next = new URL(location, authUrl);
    if (next.origin === APP_URL) return res;
    res = await go(next.href);
    if (res.status === 200 && next.pathname.includes('/interaction/')) {
      const page = await res.text();
      expect(page).toContain(`Local stand-in for ${label} sign-in. This is not ${label}`);
      res = await go(next.href, { method: 'POST', body: new URLSearchParams({ email, name: 'Ada' }).toString() });
    }
  }
  throw new Error('too many steps');
}

describe('identity stand-ins', () => {
  it('Google: authorization code to the app callback, verified e-mail in the ID token', async () => {
    const config = await configFor('google');
    const redirect = `${APP_URL}/api/auth/callback/google`;
    const authUrl = client.buildAuthorizationUrl(config, { redirect_uri: redirect, scope: 'openid email profile', state: 's1' });
    const res = await signIn(authUrl, 'ada@example.test', 'Google');
    const callback = new URL(res.headers.get('location')!);
    expect(callback.origin + callback.pathname).toBe(redirect);
    const tokens = await client.authorizationCodeGrant(config, callback, { expectedState: 's1' });
    expect(tokens.claims()).toMatchObject({ email: 'ada@example.test', email_verified: true });
  });

  it("Apple: response_mode=form_post posts the code to the app, email_verified is Apple's string", async () => {
    const config = await configFor('apple');
    const redirect = `${APP_URL}/api/auth/callback/apple`;
    const authUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: redirect,
      scope: 'name email',
      response_mode: 'form_post',
      state: 's2',
    });
    const res = await signIn(authUrl, 'grace@example.test', 'Apple');
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain(`action="${redirect}"`);
    const fields = new URLSearchParams(
      [...page.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"/g)].map(([, name, value]) => [name!, value!]),
    );
    expect(fields.get('state')).toBe('s2');
    const posted = new Request(redirect, { method: 'POST', body: fields });
    const tokens = await client.authorizationCodeGrant(config, posted, { expectedState: 's2' });
    expect(tokens.claims()).toMatchObject({ email: 'grace@example.test', email_verified: 'true' });
  });

  it('an app with the wrong secret gets nothing', async () => {
    const apple = await configFor('apple');
    const wrong = new client.Configuration(apple.serverMetadata(), standIns.env.APPLE_CLIENT_ID!, 'not-the-secret');
    client.allowInsecureRequests(wrong);
    await expect(client.refreshTokenGrant(wrong, 'x')).rejects.toMatchObject({ error: 'invalid_client' });
  });
});
