/**
 * The web SDK's pay() on a merchant page of another site: the page (http://127.0.0.1:<port>, served
 * here) loads the built SDK (sdk/dist, from `npm run sdk:build`), creates a charge with a publishable
 * key across origins (CORS), and pays it in the Chargeport popup (http://localhost:3210). The outcome
 * comes back by postMessage while the merchant page stays where it is.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Page } from './fixtures';
import { admin, createVerifiedMerchant } from './admin';
import { merchantApi } from './api';
import { POLYGON_USDC, sendUsdcFromOutside } from './chain';

const SDK_DIST = path.resolve('sdk/dist');

let server: Server;
let merchantOrigin: string;
let merchant: Awaited<ReturnType<typeof createVerifiedMerchant>>;
let publishableKey: string;

test.beforeAll(async ({ baseURL }) => {
  if (!existsSync(path.join(SDK_DIST, 'pay.js'))) throw new Error('sdk/dist is missing or stale: run `npm run sdk:build` first');
  merchant = await createVerifiedMerchant('Pixel Quest');
  server = createServer((request, response) => {
    void serveMerchantSite(request.url ?? '/', { publishableKey, chargeportUrl: baseURL! }).then(({ status, type, body }) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  merchantOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The key allows the shop's origin (and ours, for /examples/pay) and sends buyers back to the shop only.
  publishableKey = admin<{ key: { key: string } }>(
    'key',
    'create',
    merchant.merchantId,
    '--mode',
    'live',
    '--publishable',
    '--allowed-origin',
    merchantOrigin,
    '--allowed-origin',
    new URL(baseURL!).origin,
    '--redirect-origin',
    'https://pixelquest.example',
  ).key.key;
});

test.afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

/** The merchant's site: one shop page and the SDK's ES modules, nothing from Chargeport's origin. */
async function serveMerchantSite(url: string, config: { publishableKey: string; chargeportUrl: string }) {
  const { pathname } = new URL(url, 'http://merchant');
  if (pathname === '/') return { status: 200, type: 'text/html; charset=utf-8', body: shopPage(config) };
  const sdkModule = /^\/sdk\/([a-z-]+(?:\/[a-z-]+)?\.js)$/.exec(pathname);
  if (sdkModule) {
    const body = await readFile(path.join(SDK_DIST, sdkModule[1]!)).catch(() => undefined);
    if (body) return { status: 200, type: 'text/javascript; charset=utf-8', body };
  }
  return { status: 404, type: 'text/plain', body: 'not found' };
}

function shopPage(config: { publishableKey: string; chargeportUrl: string }): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Pixel Quest shop</title></head>
<body>
  <h1>Pixel Quest shop</h1>
  <button id="buy">Buy gem pack</button>
  <button id="buy-by-url">Buy gem pack (charge first, then pay its paymentUrl)</button>
  <p id="outcome" data-status=""></p>
  <script type="module">
    import { Chargeport, pay } from '/sdk/index.js';
    // The SDK is the client under test here: it creates the charge itself, not the typed fixture.
    const chargeport = new Chargeport(${JSON.stringify({ apiKey: config.publishableKey, baseUrl: config.chargeportUrl })});
    const gemPack = ${JSON.stringify({
      chain: 'POLYGON',
      symbol: 'USDC',
      tokenAddress: POLYGON_USDC,
      // Popup mode must win over both: a redirect to this site would never report back.
      successUrl: 'https://pixelquest.example/thanks',
      cancelUrl: 'https://pixelquest.example/shop',
      items: [{ name: 'Gem pack', amount: '2', quantity: 1 }],
    })};
    const outcome = document.getElementById('outcome');
    async function buy(payment) {
      try {
        const result = await payment();
        outcome.dataset.chargeId = result.chargeId;
        outcome.dataset.status = result.status;
      } catch (error) {
        outcome.dataset.status = 'error ' + error.code + ': ' + error.message;
      }
    }
    document.getElementById('buy').addEventListener('click', () => buy(() => chargeport.pay(chargeport.createCharge(gemPack))));
    // The standalone pay() has no key, so it cannot look a dismissed charge up: only the popup's message can tell it.
    document.getElementById('buy-by-url').addEventListener('click', () =>
      buy(async () => pay((await chargeport.createCharge(gemPack)).paymentUrl)),
    );
    // What the page itself receives: proof that the outcome came by postMessage, to this origin.
    window.checkoutMessages = [];
    window.addEventListener('message', (event) => window.checkoutMessages.push({ origin: event.origin, data: event.data }));
    window.shopLoadedAt = performance.timeOrigin;
  </script>
</body>
</html>`;
}

/** Opens the shop and returns a check that it is the same document (no navigation, no reload) later. */
async function openShop(page: Page): Promise<() => Promise<void>> {
  await page.goto(`${merchantOrigin}/`);
  const loadedAt = await page.evaluate(() => (window as unknown as { shopLoadedAt: number }).shopLoadedAt);
  expect(loadedAt).toBeGreaterThan(0);
  return async () => {
    await expect(page).toHaveURL(`${merchantOrigin}/`);
    expect(await page.evaluate(() => (window as unknown as { shopLoadedAt: number }).shopLoadedAt)).toBe(loadedAt);
  };
}

function checkoutMessages(page: Page): Promise<unknown[]> {
  return page.evaluate(() => (window as unknown as { checkoutMessages: unknown[] }).checkoutMessages);
}

async function serverSideStatus(request: APIRequestContext, chargeId: string): Promise<string> {
  return (await merchantApi(request, merchant.liveKey).getCharge(chargeId)).status;
}

test.describe('pay() from a merchant page on another site', () => {
  test('the buyer pays in the popup; the shop learns "succeeded" without leaving its page', async ({ page, request, baseURL }) => {
    const isSamePage = await openShop(page);
    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Buy gem pack', exact: true }).click();
    const popup = await popupOpened;

    // The overlay on the shop: labelled, focused on its first button.
    await expect(page.getByRole('dialog', { name: 'Complete your payment in the Chargeport window' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Show window' })).toBeFocused();

    await expect(popup).toHaveURL(
      new RegExp(`/checkout/ch_\\w+\\?mode=popup&origin=${encodeURIComponent(merchantOrigin).replace(/\./g, '\\.')}$`),
    );
    // Signing in from the popup comes back to the popup checkout, not to a plain page.
    const { pathname, search } = new URL(popup.url());
    await popup.getByRole('tab', { name: 'Balance' }).click();
    await expect(popup.getByRole('link', { name: 'Sign in to pay from your Chargeport balance' })).toHaveAttribute(
      'href',
      `/signin?callbackUrl=${encodeURIComponent(pathname + search)}`,
    );
    await popup.getByRole('tab', { name: 'Crypto wallet' }).click();
    const deposit = (await popup.getByTestId('deposit-address').textContent())!.trim();
    await sendUsdcFromOutside(deposit, '2');
    await expect(popup.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });

    const outcome = page.locator('#outcome');
    await expect(outcome).toHaveAttribute('data-status', 'succeeded', { timeout: 10_000 });
    await popup.waitForEvent('close', { timeout: 10_000 });
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await isSamePage();
    const chargeId = (await outcome.getAttribute('data-charge-id'))!;
    expect(await checkoutMessages(page)).toEqual([
      { origin: baseURL, data: { type: 'chargeport:checkout', chargeId, status: 'succeeded' } },
    ]);
    // What the merchant's server sees agrees with what the page was told.
    expect(await serverSideStatus(request, chargeId)).toBe('succeeded');
  });

  test('Cancel in the popup cancels the charge and the shop learns "canceled"', async ({ page, request, baseURL }) => {
    const isSamePage = await openShop(page);
    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Buy gem pack (charge first, then pay its paymentUrl)' }).click();
    const popup = await popupOpened;

    await popup.getByRole('button', { name: 'Cancel payment' }).click();
    const outcome = page.locator('#outcome');
    await expect(outcome).toHaveAttribute('data-status', 'canceled', { timeout: 10_000 });
    await popup.waitForEvent('close', { timeout: 10_000 });
    await isSamePage();
    const chargeId = (await outcome.getAttribute('data-charge-id'))!;
    expect(await checkoutMessages(page)).toEqual([
      { origin: baseURL, data: { type: 'chargeport:checkout', chargeId, status: 'canceled' } },
    ]);
    expect(await serverSideStatus(request, chargeId)).toBe('canceled');
  });

  test('Escape on the overlay closes the popup: "dismissed", and the charge stays payable', async ({ page, request }) => {
    const isSamePage = await openShop(page);
    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Buy gem pack', exact: true }).click();
    const popup = await popupOpened;
    await expect(popup.getByTestId('deposit-address')).toBeVisible();

    await page.keyboard.press('Escape');
    const outcome = page.locator('#outcome');
    await expect(outcome).toHaveAttribute('data-status', 'dismissed', { timeout: 10_000 });
    await expect.poll(() => popup.isClosed()).toBe(true);
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await isSamePage();
    expect(await checkoutMessages(page)).toEqual([]);
    expect(await serverSideStatus(request, (await outcome.getAttribute('data-charge-id'))!)).toBe('pending');
  });

  test('the example shop at /examples/pay pays in a popup too (here canceled)', async ({ page }) => {
    await page.goto('/examples/pay');
    await page.getByLabel('Publishable key').fill(publishableKey);
    await page.getByText('Dragon skin').click();
    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Buy Dragon skin for 0.2 POL' }).click();
    const popup = await popupOpened;
    await expect(popup.getByTestId('total')).toHaveText('0.2 POL');
    await popup.getByRole('button', { name: 'Cancel payment' }).click();
    await expect(page.getByTestId('outcome')).toHaveAttribute('data-status', 'canceled', { timeout: 10_000 });
    await expect(page.getByTestId('outcome')).toContainText('You canceled the payment');
    await expect(page).toHaveURL(/\/examples\/pay$/);
  });
});
