// A player's spending allowance (issue 30 point 4, ADR 0034): approved with the PIN on one purchase, the next
// purchase from the same merchant is one tap, one above what is left asks for the PIN again; the wallet lists
// the allowance and revokes it. The purchase that approves it is paid with the PIN, so it spends none of it.
import { expect, test } from './fixtures';
import { signUpAndSignIn } from './account-helpers';
import { createVerifiedMerchant } from './admin';
import { fundOnPolygon } from './chain';
import { createUsdcCharge } from './charges';
import { uniqueEmail } from './outbox';

const PIN = '482915';
/** The pay button of a 2 USDC charge (stablecoins are shown with cents). */
const PAY_2 = /^Pay 2(\.00)?\sUSDC$/;

test('approve an allowance with the PIN, pay the next purchase with one tap, the PIN above it, then revoke', async ({ page, request }) => {
  const merchant = await createVerifiedMerchant('Allowance Arcade');
  await signUpAndSignIn(page, uniqueEmail('player'), PIN);
  const evmAddress = await page.getByTestId('wallet-address').first().textContent();
  await fundOnPolygon(evmAddress!.trim());

  // 1. The first purchase: the PIN, and "Approve a spending allowance" of 5 USDC a day.
  const first = await createUsdcCharge(request, merchant.liveKey, '2', { cancelUrl: null });
  await page.goto(first.paymentUrl);
  await page.getByLabel('PIN').fill(PIN);
  await page.getByRole('checkbox', { name: /Approve a spending allowance for Allowance Arcade/ }).check();
  await page.getByLabel('USDC per day').fill('5');
  await page.getByLabel('For days (1–90)').fill('30');
  await page.getByRole('button', { name: PAY_2 }).click();
  await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });

  // 2. The next purchase: one tap, no PIN field; the whole budget is left (the first purchase was the PIN's).
  const second = await createUsdcCharge(request, merchant.liveKey, '2', { cancelUrl: null });
  await page.goto(second.paymentUrl);
  await expect(page.getByTestId('allowance-one-tap')).toContainText(/5(\.00)?\sUSDC\s+left today/);
  await expect(page.getByLabel('PIN')).toHaveCount(0);
  await page.getByRole('button', { name: PAY_2 }).click();
  await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });

  // 3. Above what is left today (3 USDC): the PIN as before.
  const third = await createUsdcCharge(request, merchant.liveKey, '4', { cancelUrl: null });
  await page.goto(third.paymentUrl);
  await expect(page.getByTestId('allowance-one-tap')).toHaveCount(0);
  await expect(page.getByLabel('PIN')).toBeVisible();

  // 4. The wallet lists it (2 of 5 spent) and revokes it.
  await page.goto('/wallet/allowances');
  const row = page.getByTestId('allowance');
  await expect(row).toContainText('Allowance Arcade');
  await expect(row.getByTestId('allowance-per-day')).toHaveText('5 USDC');
  await expect(row.getByTestId('allowance-spent')).toHaveText('2 USDC');
  await row.getByRole('button', { name: 'Revoke the spending allowance for Allowance Arcade' }).click();
  await expect(page.getByTestId('no-allowances')).toBeVisible();
});
