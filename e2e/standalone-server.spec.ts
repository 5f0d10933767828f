/**
 * The standalone server (`output: 'standalone'`), started as the container image starts it
 * (Dockerfile `app` target: `node server.js` with `.next/static` copied beside it, jobs off), on the e2e
 * stack's database and chains: the API and the checkout page answer, with their static assets.
 */
import { existsSync } from 'node:fs';
import { expect, test } from './fixtures';
import { createVerifiedMerchant } from './admin';
import { merchantApi } from './api';
import { POLYGON_USDC } from './chain';
import { STANDALONE_SERVER, startStandaloneServer, type StandaloneServer } from './standalone-server';

test.describe('the standalone server', () => {
  test.skip(!existsSync(STANDALONE_SERVER), 'no .next/standalone/server.js: run `next build` first (npm test does)');
  let server: StandaloneServer | undefined;
  let base = '';

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    server = await startStandaloneServer();
    base = server.base;
  });

  test.afterAll(() => server?.stop());

  test('answers POST /api/createCharge and serves the checkout page with its assets', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Standalone Studio');
    // The response itself: on a failure, the message is the standalone server's output, not only the body.
    const created = await merchantApi(request, merchant.liveKey, { baseUrl: base }).createChargeResponse({
      chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: POLYGON_USDC, amount: '2.5' },
    });
    expect(created.status(), server?.output()).toBe(200);
    const { chargeId } = (await created.json()).data;

    const failedAssets: string[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/_next/static/') && !response.ok()) failedAssets.push(`${response.status()} ${response.url()}`);
    });
    const checkout = await page.goto(`${base}/checkout/${chargeId}`);
    expect(checkout?.status()).toBe(200);
    await expect(page.getByTestId('deposit-address')).toBeVisible();
    expect(failedAssets).toEqual([]);
  });
});
