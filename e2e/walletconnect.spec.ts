/**
 * WalletConnect on the checkout (issue 19): shown only with WALLETCONNECT_PROJECT_ID, beside the browser
 * wallet. There is no internet here, so no real relay or phone wallet: the journey runs the real SDK
 * (wagmi's walletConnect connector → @walletconnect/ethereum-provider → Reown AppKit's QR modal) against a
 * stand-in relay answered by Playwright (`page.routeWebSocket`). It proves the button, the project id on
 * the relay connection, the page's CSP letting that connection out, and the modal with its QR code; what
 * a real relay and a real wallet would do after that is not tried (README, "WalletConnect").
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { expect, test, type Page } from './fixtures';
import { createVerifiedMerchant } from './admin';
import { createUsdcCharge } from './charges';
import { STANDALONE_SERVER, startStandaloneServer, type StandaloneServer } from './standalone-server';

const PROJECT_ID = 'e2e0c0ffee0123456789abcdef012345';
const RELAY = /^wss:\/\/relay\.walletconnect\.(org|com)\b/;

/**
 * Answers the relay's JSON-RPC (irn_subscribe, irn_publish, …) as a relay that accepts everything would,
 * and returns the URLs the page opened. Other WalletConnect and AppKit hosts (wallet list, analytics,
 * Verify) are unreachable, as they are offline: the SDK must cope.
 */
async function standInRelay(page: Page): Promise<{ urls: string[]; methods: string[] }> {
  const seen = { urls: [] as string[], methods: [] as string[] };
  await page.route(/walletconnect\.(org|com)|web3modal\.(org|com)|reown\.com/, (route) => route.abort('internetdisconnected'));
  await page.routeWebSocket(RELAY, (socket) => {
    seen.urls.push(socket.url());
    socket.onMessage((message) => {
      const request = JSON.parse(String(message)) as { id: number; method: string };
      seen.methods.push(request.method);
      const result = request.method.endsWith('batchSubscribe')
        ? []
        : request.method.endsWith('subscribe') && !request.method.endsWith('unsubscribe')
          ? randomBytes(32).toString('hex')
          : true;
      socket.send(JSON.stringify({ id: request.id, jsonrpc: '2.0', result }));
    });
  });
  return seen;
}

test.describe('WalletConnect on the checkout', () => {
  test('without WALLETCONNECT_PROJECT_ID: only the browser wallet, and the page may not reach the relay', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Lantern No WalletConnect');
    const charge = await createUsdcCharge(request, merchant.liveKey, '3');
    const response = await page.goto(charge.paymentUrl);
    await expect(page.getByRole('button', { name: /^Connect wallet and pay/ })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Pay with WalletConnect' })).toHaveCount(0);
    expect(response?.headers()['content-security-policy']).not.toContain('walletconnect');
  });

  test.describe('with WALLETCONNECT_PROJECT_ID', () => {
    test.skip(!existsSync(STANDALONE_SERVER), 'no .next/standalone/server.js: run `next build` first (npm test does)');
    let server: StandaloneServer | undefined;

    test.beforeAll(async () => {
      test.setTimeout(90_000);
      server = await startStandaloneServer({ WALLETCONNECT_PROJECT_ID: PROJECT_ID });
    });

    test.afterAll(() => server?.stop());

    test('the button sits beside the browser wallet and opens the QR modal on the relay with the project id', async ({ page, request }) => {
      const merchant = await createVerifiedMerchant('Lantern WalletConnect');
      const charge = await createUsdcCharge(request, merchant.liveKey, '4');
      const relay = await standInRelay(page);
      const logged: string[] = [];
      page.on('console', (message) => logged.push(message.text()));
      const response = await page.goto(`${server!.base}/checkout/${charge.chargeId}`);
      expect(response?.headers()['content-security-policy']).toContain('wss://relay.walletconnect.org');

      const options = page.getByTestId('payment-options');
      await expect(options.getByRole('button', { name: /^Connect wallet and pay/ })).toBeVisible();
      await options.getByRole('button', { name: 'Pay with WalletConnect' }).click();

      // The SDK connects to the relay with the server's project id, and the modal shows the pairing QR code.
      await expect.poll(() => relay.urls.join(' '), { timeout: 30_000 }).toContain(`projectId=${PROJECT_ID}`);
      await expect(page.locator('w3m-modal')).toBeAttached({ timeout: 30_000 });
      await expect(page.locator('wui-qr-code')).toBeVisible({ timeout: 30_000 });
      // The session proposal went out through the relay: the QR code carries a live pairing.
      expect(relay.methods).toContain('wc_proposeSession');
      // The modal is styled (a QR code of a sensible size, not dots across the page): the page's policy let
      // the SDK's connections and inline styles through.
      const qr = await page.locator('wui-qr-code').boundingBox();
      expect(qr!.width).toBeLessThan(400);
      expect(logged.filter((line) => line.includes('Content Security Policy'))).toEqual([]);
      await page.screenshot({ path: '.data/screenshots/checkout-walletconnect-desktop.png' });
    });
  });
});
