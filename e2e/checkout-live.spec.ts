import { expect, test, type Page } from './fixtures';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { localDemoPayerAccount } from '@/scripts/stack/local-chain';
import { installAnvilWallet } from './account-helpers';
import { createVerifiedMerchant, withE2eDatabase } from './admin';
import { merchantApi } from './api';
import { POLYGON_USDC, polygonRpc, sendUsdcFromOutside } from './chain';
import { createUsdcCharge } from './charges';

/** Every way to pay the open checkout offers, and its countdown. */
function waysToPay(page: Page) {
  return {
    address: page.getByTestId('deposit-address'),
    qr: page.getByRole('img', { name: 'QR code of the payment request' }),
    walletLink: page.getByTestId('open-in-wallet'),
    connectWallet: page.getByRole('button', { name: /^Connect wallet and pay/ }),
    balance: page.getByRole('link', { name: 'Sign in to pay from your Chargeport balance', includeHidden: true }),
    cards: page.getByTestId('fiat-methods'),
    cancel: page.getByRole('button', { name: /^Cancel and return/ }),
    countdown: page.getByTestId('expiry-countdown'),
  };
}

/** Opens the checkout and marks the document: the mark survives anything but a reload. */
async function openCheckout(page: Page, url: string): Promise<void> {
  await page.goto(url);
  // Every way is in the page; the ones on closed tabs are hidden until their tab is chosen.
  for (const way of Object.values(waysToPay(page))) await expect(way).toBeAttached();
  await expect(waysToPay(page).address).toBeVisible();
  await page.evaluate(() => ((window as unknown as { __notReloaded: boolean }).__notReloaded = true));
}

async function expectNoWayToPay(page: Page): Promise<void> {
  for (const [name, way] of Object.entries(waysToPay(page))) await expect(way, name).toHaveCount(0, { timeout: 15_000 });
  expect(await page.evaluate(() => (window as unknown as { __notReloaded?: boolean }).__notReloaded)).toBe(true);
}

/** What the QR code on the page encodes, read from its pixels. */
async function qrPayload(page: Page): Promise<string | undefined> {
  const png = PNG.sync.read(await waysToPay(page).qr.screenshot());
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

test.describe('the open checkout stops asking for money the moment the charge closes', () => {
  test('canceled by the merchant: every way to pay disappears without a reload', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Live Cancel Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '25');
    await openCheckout(page, charge.paymentUrl);
    await merchantApi(request, merchant.liveKey).cancelCharge(charge.chargeId);
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'canceled', { timeout: 15_000 });
    await expectNoWayToPay(page);
    await expect(page.getByTestId('not-payable')).toHaveText('This charge can no longer be paid.');
  });

  test('expired: every way to pay disappears at expiresAt without a reload', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Live Expiry Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '25');
    await openCheckout(page, charge.paymentUrl);
    await withE2eDatabase((sql) => sql`update charges set expires_at = now() + interval '3 seconds' where id = ${charge.chargeId}`);
    // expiresAt + the expiry job's 10 s interval + the chain watcher's cursor passing expiresAt, then the push.
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'expired', { timeout: 30_000 });
    await expectNoWayToPay(page);
  });

  test('paid from outside: every way to pay disappears without a reload', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Live Paid Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '25');
    await openCheckout(page, charge.paymentUrl);
    await sendUsdcFromOutside((await waysToPay(page).address.textContent())!.trim(), '25');
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', /processing|succeeded/, { timeout: 20_000 });
    await expectNoWayToPay(page);
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
  });
});

test('underpaid: the text, QR code, wallet link and wallet button ask for the rest only, and paying the rest completes it', async ({
  page,
  request,
}) => {
  const merchant = await createVerifiedMerchant('Part Paid Studio');
  const charge = await createUsdcCharge(request, merchant.liveKey, '2.5');
  await installAnvilWallet(page, polygonRpc(), localDemoPayerAccount.address);
  await openCheckout(page, charge.paymentUrl);
  const ways = waysToPay(page);
  const deposit = (await ways.address.textContent())!.trim();
  const request2500000 = `ethereum:${POLYGON_USDC}@137/transfer?address=${deposit}&uint256=2500000`;
  await expect(page.getByTestId('send-exactly')).toHaveText(/^Send exactly 2\.5 USDC on Polygon to:/);
  await expect(ways.walletLink).toHaveAttribute('href', request2500000);
  expect(await qrPayload(page)).toBe(request2500000);

  await sendUsdcFromOutside(deposit, '1');
  await expect(page.getByTestId('amount-due')).toContainText('still due 1.50 USDC', { timeout: 20_000 });
  const rest = `ethereum:${POLYGON_USDC}@137/transfer?address=${deposit}&uint256=1500000`;
  await expect(page.getByTestId('send-exactly')).toHaveText(/^Send the remaining 1\.5 USDC on Polygon to:/, { timeout: 15_000 });
  await expect(ways.walletLink).toHaveAttribute('href', rest);
  expect(await qrPayload(page)).toBe(rest);
  // The balance form would pay the whole total again: not offered once part has arrived.
  await expect(page.getByText('Part of this charge is paid: pay the rest from a crypto wallet.')).toBeAttached();
  expect(await page.evaluate(() => (window as unknown as { __notReloaded?: boolean }).__notReloaded)).toBe(true);

  await page.getByRole('button', { name: 'Connect wallet and pay 1.5 USDC', exact: true }).click();
  await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });
  const status = await (await request.get(`/api/checkout/${charge.chargeId}/status`)).json();
  expect(status.data).toMatchObject({ received: '2.5', due: '0' });
});
