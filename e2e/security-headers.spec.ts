/**
 * Browser-facing protection (docs/security.md): the security headers on pages, API responses and
 * static files; a Content-Security-Policy whose nonce is fresh per request and carried by every
 * script; no CSP violation while the checkout, the browser wallet, the QR codes, the wallet pages,
 * the dashboard, the on-ramp and the sandbox provider's screen are used; framing refused; the API's
 * envelope for unknown paths and wrong methods; the client IP not taken from a spoofed header.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type APIRequestContext, type BrowserContext } from './fixtures';
import { localDemoPayerAccount } from '@/scripts/stack/local-chain';
import { installAnvilWallet, signUpAndSignIn } from './account-helpers';
import { createVerifiedMerchant } from './admin';
import { polygonRpc } from './chain';
import { uniqueEmail } from './outbox';
import { createUsdcCharge as createUsdcChargeWith } from './charges';

const createUsdcCharge = (request: APIRequestContext, liveKey: string, amount: string) =>
  createUsdcChargeWith(request, liveKey, amount, { itemImage: 'https://shop.example/gem.png', cancelUrl: null });

/** Records every CSP / Permissions-Policy violation in the context's pages (popups included). */
async function watchPolicyViolations(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.exposeBinding('__reportPolicyViolation', (_source, text: string) => void violations.push(text));
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { __reportPolicyViolation: (text: string) => void }).__reportPolicyViolation;
      report(
        `${event.violatedDirective} blocked ${event.blockedURI || 'inline'} in ${event.sourceFile}:${event.lineNumber} (${location.pathname})`,
      );
    });
  });
  context.on('console', (message) => {
    if (/Content Security Policy|Permissions-Policy|Refused to/i.test(message.text())) violations.push(`console: ${message.text()}`);
  });
  return violations;
}

const nonceOf = (policy: string) => /'nonce-([^']+)'/.exec(policy)?.[1];

test.describe('security headers', () => {
  test('pages: the headers, a fresh nonce per request, carried by every script', async ({ request }) => {
    const merchant = await createVerifiedMerchant('Header Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '1');
    for (const path of ['/', '/signin', '/onramp?chain=POLYGON&token=USDC', new URL(charge.paymentUrl).pathname, '/docs/api']) {
      const first = await request.get(path);
      const second = await request.get(path);
      expect(first.status(), path).toBe(200);
      const headers = first.headers();
      expect(headers['x-content-type-options'], path).toBe('nosniff');
      expect(headers['referrer-policy'], path).toBe('strict-origin-when-cross-origin');
      expect(headers['permissions-policy'], path).toContain('microphone=()');
      expect(headers['x-frame-options'], path).toBe('DENY');
      // The e2e stack is a production build (NODE_ENV=production): HSTS is on.
      expect(headers['strict-transport-security'], path).toBe('max-age=63072000; includeSubDomains');
      const policy = headers['content-security-policy']!;
      expect(policy, path).toContain("frame-ancestors 'none'");
      expect(policy, path).toContain("object-src 'none'");
      // Scripts never run inline without the nonce; Redoc (/docs/api) alone needs inline styles.
      expect(/script-src[^;]*/.exec(policy)![0], path).not.toContain('unsafe-inline');
      if (path !== '/docs/api') expect(policy, path).not.toContain('unsafe-inline');
      expect(policy, path).not.toContain('unsafe-eval');
      const nonce = nonceOf(policy);
      expect(nonce, path).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      expect(nonceOf(second.headers()['content-security-policy']!), path).not.toBe(nonce);
      // Every script Next.js wrote carries this response's nonce.
      const html = await first.text();
      const scripts = html.match(/<script\b[^>]*>/g) ?? [];
      expect(scripts.length, path).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag, path).toContain(`nonce="${nonce}"`);
    }
  });

  test('API responses and static files: nosniff and a policy that loads nothing', async ({ request }) => {
    const health = await request.get('/api/health');
    expect(health.headers()['x-content-type-options']).toBe('nosniff');
    expect(health.headers()['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    const html = await (await request.get('/signin')).text();
    const chunk = /src="(\/_next\/static\/[^"]+\.js)"/.exec(html)![1]!;
    const asset = await request.get(chunk);
    expect(asset.status()).toBe(200);
    expect(asset.headers()['x-content-type-options']).toBe('nosniff');
  });

  test('another site cannot frame our pages', async ({ page, baseURL }) => {
    await page.setContent(`<iframe id="framed" src="${baseURL}/signin" onload="window.framedLoaded = true"></iframe>`);
    await expect.poll(() => page.evaluate(() => (window as unknown as { framedLoaded?: boolean }).framedLoaded === true)).toBe(true);
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    // Chromium replaces a frame it refused with its error page.
    expect(frame.url()).toMatch(/^chrome-error:/);
    await expect(frame.getByText('Send me a code')).toHaveCount(0);
  });
});

test.describe('no CSP violation in use', () => {
  test('the checkout: QR code, live status, and paying with a browser wallet (wagmi)', async ({ page, context, request }) => {
    const violations = await watchPolicyViolations(context);
    const merchant = await createVerifiedMerchant('Csp Checkout Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '1.25');
    await installAnvilWallet(page, polygonRpc(), localDemoPayerAccount.address);
    await page.goto(charge.paymentUrl);
    await expect(page.getByRole('img', { name: 'QR code of the payment request' })).toBeVisible();
    await page.getByRole('button', { name: 'Connect wallet and pay 1.25 USDC' }).click();
    // The wallet's transaction line shows until the status is pushed (ADR 0028): often less than a
    // second, so the proof is the charge paid with the exact amount, not that line.
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
    await expect(page.getByTestId('live-status')).toContainText('1.25 USDC');
    expect(violations).toEqual([]);
  });

  test('sign-up, sign-in, the wallet pages and the dashboard; audit entries carry the real client IP', async ({ page, context }) => {
    const violations = await watchPolicyViolations(context);
    // A client that claims another address: without a configured proxy the header is ignored.
    await page.setExtraHTTPHeaders({ 'x-forwarded-for': '203.0.113.77', 'x-real-ip': '203.0.113.78' });
    await signUpAndSignIn(page, uniqueEmail('csp-owner'));
    for (const path of ['/wallet', '/wallet/receive', '/wallet/activity', '/wallet/send', '/account/wallets']) {
      await page.goto(path);
      await expect(page.locator('main')).toBeVisible();
    }
    await page.goto('/account/profile');
    await page.getByLabel('Business name').fill('Csp Games');
    await page.getByRole('button', { name: 'Become a merchant' }).click();
    await expect(page.getByTestId('new-test-key')).toBeVisible();
    for (const path of [
      '/dashboard',
      '/dashboard/charges',
      '/dashboard/balances',
      '/dashboard/settings/api-keys',
      '/dashboard/settings/webhooks',
      '/dashboard/settings/members',
      '/dashboard/settings/tokens',
      '/dashboard/settings/profile',
    ]) {
      await page.goto(path);
      await expect(page.locator('main').first()).toBeVisible();
    }
    await page.goto('/dashboard/settings/api-keys');
    await page.getByLabel('Name').fill('Audited key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.getByTestId('new-key')).toBeVisible();
    await page.goto('/dashboard/settings/audit-log');
    const entry = page.getByRole('row').filter({ hasText: 'api_key.create' }).first();
    await expect(entry).toContainText(/127\.0\.0\.1|::1/);
    await expect(page.getByText('203.0.113.77')).toHaveCount(0);
    expect(violations).toEqual([]);
  });

  test('the on-ramp: quote, order, and paying on the sandbox provider’s screen', async ({ page, context }) => {
    const violations = await watchPolicyViolations(context);
    await page.setExtraHTTPHeaders({ 'cf-ipcountry': 'US' });
    await page.goto(`/onramp?chain=POLYGON&token=USDC&wallet=${localDemoPayerAccount.address}&wallet_label=Acme%20Games`);
    await page.getByLabel('Amount', { exact: true }).fill('40');
    await expect(page.getByTestId('quote-total')).toBeVisible();
    const popupEvent = page.waitForEvent('popup');
    await page.getByTestId('buy').click();
    const provider = await popupEvent;
    await expect(page).toHaveURL(/\/onramp\/orders\/ord_/);
    await provider.getByLabel('Card number').fill('4242 4242 4242 4242');
    await provider.getByLabel('Expiry (MM/YY)').fill('12/34');
    await provider.getByLabel('CVC').fill('123');
    await provider.getByLabel('Name on card').fill('Ada Buyer');
    await provider.getByRole('button', { name: /^Pay / }).click();
    await expect(provider.getByTestId('sandbox-outcome')).toHaveAttribute('data-outcome', 'paid');
    await expect(page.getByTestId('order-status')).toHaveAttribute('data-status', /pending|completed/, { timeout: 20_000 });
    expect(violations).toEqual([]);
  });

  test('the API reference and the SDK example page', async ({ page, context }) => {
    const violations = await watchPolicyViolations(context);
    await page.goto('/docs/api');
    // Redoc renders the document in the browser: a few seconds for the whole API on a busy machine.
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible({ timeout: 30_000 });
    await page.goto('/examples/pay');
    await expect(page.getByRole('heading', { name: 'Pixel Quest shop' })).toBeVisible();
    expect(violations).toEqual([]);
    // The watcher itself works: an inline event handler (what an injected `<img onerror>` would run) is refused and reported.
    await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<img src="data:," onerror="window.injected = true">'));
    await expect.poll(() => violations.join('\n')).toContain('script-src');
    expect(await page.evaluate(() => (window as unknown as { injected?: boolean }).injected)).toBeUndefined();
  });
});

test.describe('the API envelope over HTTP', () => {
  test('unknown paths → 404 not_found; wrong methods → 405 method_not_allowed with Allow', async ({ request }) => {
    for (const path of ['/api/no-such-route', '/api/charges/ch_x/no-such-action', '/api/auth/no-such-action']) {
      const res = await request.get(path);
      expect(res.status(), path).toBe(404);
      expect(res.headers()['content-type'], path).toContain('application/json');
      expect((await res.json()).error.code, path).toBe('not_found');
    }
    // Raw on purpose: a method the API does not take, which the typed fixture cannot send.
    const wrong = await request.delete('/api/createCharge');
    expect(wrong.status()).toBe(405);
    expect(wrong.headers()['allow']).toBe('OPTIONS, POST');
    expect(await wrong.json()).toEqual({ data: null, error: { code: 'method_not_allowed', message: expect.stringContaining('use POST') } });
    const put = await request.put('/api/charges', { data: {} });
    expect(put.status()).toBe(405);
    expect(put.headers()['allow']).toBe('GET, HEAD, OPTIONS');
  });

  test('server actions cap their body before reading it (256 KiB)', async ({ request }) => {
    // The sign-in page's "send me a code" action, called as the browser calls it (React's reply encoding:
    // the arguments in part 0, the form's fields under the 1_ prefix), with its id from this build.
    const manifest = JSON.parse(readFileSync('.next/server/server-reference-manifest.json', 'utf8')) as {
      node: Record<string, { exportedName?: string }>;
    };
    const actionId = Object.entries(manifest.node).find(([, action]) => action.exportedName === 'requestSignInCode')![0];
    const call = (email: string) =>
      request.post('/signin', {
        headers: { 'next-action': actionId, accept: 'text/x-component' },
        multipart: { '0': '[{},"$K1"]', '1_email': email, '1_callbackUrl': '/wallet' },
      });
    const small = await call('not-an-email');
    expect(small.status()).toBe(200);
    expect(await small.text()).toContain('is not an e-mail address');
    // Next.js stops reading at the cap and refuses the call (its log: "Body exceeded 256kb limit").
    const large = await call('x'.repeat(256 * 1024));
    expect(large.status()).toBeGreaterThanOrEqual(400);
    expect(await large.text()).not.toContain('is not an e-mail address');
  });

  test('a provider webhook over 256 KiB → 413 in the envelope', async ({ request }) => {
    const res = await request.post('/api/onramp/webhooks/sandbox', {
      headers: { 'content-type': 'application/json' },
      data: 'x'.repeat(256 * 1024 + 1),
    });
    expect(res.status()).toBe(413);
    expect((await res.json()).error.code).toBe('payload_too_large');
  });
});
