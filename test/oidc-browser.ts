/**
 * A browser's part of "Sign in with Chargeport" for tests: the provider's endpoints through the app's
 * route handler, with a cookie jar, and the sign-in and consent steps the interaction page performs.
 */
import { handleOidcRequest } from '@/lib/oauth/handle-oidc-request';
import { approveConsent } from '@/lib/oauth/approve-consent';
import { completeLogin } from '@/lib/oauth/complete-login';
import { loadAuthorizationStep } from '@/lib/oauth/load-authorization-step';

/** APP_URL in tests (test/setup-env.ts): the provider's issuer. */
export const ISSUER = 'http://localhost:3999';

/** A browser's cookie jar, enough for the provider's interaction and session cookies. */
export class OidcBrowser {
  private readonly cookies = new Map<string, string>();
  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  async request(url: string, init: { method?: string; body?: string } = {}): Promise<Response> {
    const headers = new Headers({ cookie: this.cookieHeader });
    if (init.body) headers.set('content-type', 'application/x-www-form-urlencoded');
    const res = await handleOidcRequest(new Request(new URL(url, ISSUER), { method: init.method ?? 'GET', headers, body: init.body }));
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const value = pair!.slice(at + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(pair!.slice(0, at));
      else this.cookies.set(pair!.slice(0, at), value);
    }
    return res;
  }
}

const uidOf = (location: string) => /\/oauth\/authorize\/([\w-]+)$/.exec(location)?.[1];

/** The person's part: sign in to Chargeport, then allow the app; returns where the provider finally sends the browser. */
export async function signInAndConsent(browser: OidcBrowser, start: Response, userId: string): Promise<Response> {
  let res = start;
  for (let step = 0; step < 6; step += 1) {
    const location = res.headers.get('location');
    if (res.status >= 400) throw new Error(`provider answered ${res.status}: ${await res.text()}`);
    if (!location) return res;
    const uid = uidOf(new URL(location, ISSUER).pathname);
    if (!uid) {
      if (!location.startsWith(ISSUER) && !location.startsWith('/')) return res;
      res = await browser.request(location);
      continue;
    }
    const input = { uid, cookieHeader: browser.cookieHeader, userId };
    const { prompt } = await loadAuthorizationStep(input);
    const returnTo = prompt === 'login' ? await completeLogin(input) : await approveConsent(input);
    res = await browser.request(returnTo);
  }
  throw new Error('too many steps');
}

/** The device flow's verification page: the user enters the code a game shows, signs in and allows. */
export async function approveDeviceCode(userCode: string, userId: string): Promise<Response> {
  const browser = new OidcBrowser();
  const page = await browser.request(`/oidc/device?user_code=${encodeURIComponent(userCode)}`);
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!xsrf) throw new Error('no xsrf field on the device page');
  const submitted = await browser.request('/oidc/device', {
    method: 'POST',
    body: new URLSearchParams({ xsrf, user_code: userCode, confirm: 'yes' }).toString(),
  });
  return signInAndConsent(browser, submitted, userId);
}
