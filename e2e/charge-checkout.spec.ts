import { expect, test } from './fixtures';
import { createVerifiedMerchant, withE2eDatabase } from './admin';
import { merchantApi, TEST_POL } from './api';

test.describe('a merchant creates a charge and the consumer opens its paymentUrl', () => {
  test('live USDC charge: the checkout shows the merchant, items and the exact total', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Pixel Forge Games');
    const response = await request.post('/api/createCharge', {
      headers: { 'x-api-key': merchant.liveKey },
      data: {
        chargeData: {
          symbol: 'USDC',
          chain: 'POLYGON',
          tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
          successUrl: 'https://pixelforge.example/thanks',
          cancelUrl: 'https://pixelforge.example/shop',
          items: [
            { name: 'Dragon skin', image: 'https://pixelforge.example/dragon.png', amount: 0.1, quantity: 3 },
            { name: 'Gold coins', image: 'https://pixelforge.example/gold.png', amount: '1.25', quantity: 2 },
          ],
        },
        isTest: false,
      },
    });
    expect(response.status()).toBe(200);
    const body = await response.json();
    expect(body.error).toBeNull();
    const { paymentUrl, chargeId } = body.data;
    expect(paymentUrl).toContain(`/checkout/${chargeId}`);

    await page.goto(paymentUrl);
    await expect(page.getByTestId('merchant-name')).toHaveText('Pixel Forge Games');
    const items = page.getByTestId('items').locator('li');
    await expect(items).toHaveCount(2);
    await expect(items.nth(0)).toContainText('Dragon skin');
    // Stablecoin amounts read like money: with cents (lib/format-amount.ts).
    await expect(items.nth(0)).toContainText('3 × 0.10 USDC');
    await expect(items.nth(0)).toContainText('0.30 USDC');
    await expect(items.nth(1)).toContainText('2.50 USDC');
    await expect(page.getByTestId('total')).toHaveText('2.80 USDC');
    // The merchant's images do not load here: a placeholder tile, not a broken-image icon.
    await expect(items.nth(0).getByTestId('item-image-placeholder')).toBeVisible();
    await expect(page.getByTestId('item-image')).toHaveCount(0);
    // Not signed in: the wallet is the suggested way to pay, with the address and the exact amount to copy.
    await expect(page.getByRole('tab', { name: 'Crypto wallet' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByTestId('copy-address')).toBeVisible();
    await expect(page.getByTestId('copy-amount')).toBeVisible();
    await expect(page.getByTestId('walletconnect')).toHaveCount(0);
    await expect(page.getByTestId('chain')).toHaveText('Polygon');
    await expect(page.getByTestId('charge-status')).toHaveAttribute('data-status', 'pending');
    await expect(page.getByTestId('test-banner')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Cancel and return to Pixel Forge Games' })).toBeVisible();
  });

  test('test charge: the checkout carries a TEST banner and names the test network', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Test Mode Studio');
    const response = await request.post('/api/createCharge', {
      headers: { 'x-api-key': merchant.testKey },
      data: {
        chargeData: { symbol: 'POL', chain: 'POLYGON', tokenAddress: '0x0000000000000000000000000000000000000000', amount: 1.5 },
        isTest: true,
      },
    });
    const { data } = await response.json();
    await page.goto(data.paymentUrl);
    await expect(page.getByTestId('test-banner')).toContainText('TEST');
    await expect(page.getByTestId('total')).toHaveText('1.5 POL');
    await expect(page.getByTestId('chain')).toHaveText('Polygon Amoy (test)');
  });

  test('an unknown charge id is a clear not-found page', async ({ page }) => {
    const response = await page.goto('/checkout/ch_doesNotExist0000000000');
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
  });
});

test.describe('the production stack', () => {
  test('never seeds the demo merchant: its documented key is refused', async ({ request }) => {
    const response = await request.post('/api/createCharge', {
      headers: { 'x-api-key': 'cp_test_DemoTestKeyForLocalDevelopment01' },
      data: { chargeData: { symbol: 'POL', chain: 'POLYGON', tokenAddress: '0x0000000000000000000000000000000000000000', amount: 1 } },
    });
    expect(response.status()).toBe(401);
    expect((await response.json()).error.code).toBe('invalid_api_key');
  });

  test('expires lapsed charges in the background, with nobody looking', async ({ request }) => {
    const merchant = await createVerifiedMerchant('Expiry Studio');
    const api = merchantApi(request, merchant.testKey);
    const { chargeId } = await api.createCharge({ chargeData: { ...TEST_POL, amount: 1 } });
    await withE2eDatabase((sql) => sql`update charges set expires_at = now() - interval '1 second' where id = ${chargeId}`);
    await expect.poll(async () => (await api.getCharge(chargeId)).status, { timeout: 30_000, intervals: [1000] }).toBe('expired');
  });

  test('serves the API reference built from the OpenAPI document', async ({ page }) => {
    await page.goto('/docs/api');
    // Redoc renders the whole document in the browser: seconds on a busy machine.
    await expect(page.getByRole('heading', { name: 'Chargeport API' })).toBeVisible({ timeout: 30_000 });
    // Redoc, served from the app: the operations and the error table of the description.
    await expect(page.locator('[id="operation/createCharge"]')).toContainText('/api/createCharge');
    await expect(page.locator('[id="section/Responses-and-errors"]')).toContainText('idempotency_conflict');
  });

  test('serves the static files of public/: the icon every page links, and the Redoc bundle the build copied there', async ({
    page,
    request,
  }) => {
    await page.goto('/signin');
    await expect(page.locator('head link[rel="icon"]')).toHaveAttribute('href', /^\/icon\.svg/);
    const icon = await request.get('/icon.svg');
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toMatch(/^image\/svg\+xml/);
    const bundle = await request.get('/docs/api/redoc.standalone.js');
    expect(bundle.status()).toBe(200);
    expect(bundle.headers()['content-type']).toMatch(/javascript/);
    expect((await bundle.body()).length).toBeGreaterThan(500_000);
  });
});

test("the checkout's Cancel cancels the pending charge and returns to cancelUrl", async ({ page, request, baseURL }) => {
  const merchant = await createVerifiedMerchant('Cancel Studio');
  const api = merchantApi(request, merchant.testKey);
  const { chargeId, paymentUrl } = await api.createCharge({ chargeData: { ...TEST_POL, amount: 1, cancelUrl: `${baseURL}/?canceled=1` } });
  await page.goto(paymentUrl);
  await page.getByRole('button', { name: 'Cancel and return to Cancel Studio' }).click();
  await expect(page).toHaveURL(/\?canceled=1/);
  const charge = await api.getCharge(chargeId);
  expect(charge.status).toBe('canceled');
  expect(charge.timeline?.map((t) => t.status)).toEqual(['pending', 'canceled']);
});
