import { expect, test, type APIRequestContext } from './fixtures';
import { localDemoPayerAccount } from '@/scripts/stack/local-chain';
import { installAnvilWallet, signUpAndSignIn } from './account-helpers';
import { createVerifiedMerchant, withE2eDatabase } from './admin';
import { POLYGON_USDC, fundOnPolygon, polygonRpc, sendUsdcFromOutside } from './chain';
import { uniqueEmail } from './outbox';
import { createUsdcCharge as createUsdcChargeWith } from './charges';

const createUsdcCharge = (request: APIRequestContext, liveKey: string, amount: string, successUrl?: string) =>
  createUsdcChargeWith(request, liveKey, amount, successUrl ? { successUrl } : {});

test.describe('paying a charge on the local chain', () => {
  test('a signed-in consumer pays from balance with the PIN and lands on successUrl', async ({ page, request, baseURL }) => {
    const merchant = await createVerifiedMerchant('Balance Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '3.75', `${baseURL}/?from=checkout`);

    await signUpAndSignIn(page, uniqueEmail('payer'), '482915');
    const evmAddress = await page.getByTestId('wallet-address').first().textContent();
    await fundOnPolygon(evmAddress!.trim());

    await page.goto(charge.paymentUrl);
    // Enough balance: paying from it is the suggested way.
    await expect(page.getByRole('tab', { name: 'Balance' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByTestId('balance')).toContainText('USDC');
    await page.getByLabel('PIN').fill('482915');
    await page.getByRole('button', { name: 'Pay 3.75 USDC', exact: true }).click();
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', /processing|succeeded/, { timeout: 20_000 });
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
    await expect(page).toHaveURL(new RegExp(`from=checkout.*chargeId=${charge.chargeId}`), { timeout: 10_000 });
  });

  test('a transfer from an outside wallet to the deposit address updates the page by itself', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Deposit Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '2.5');
    await page.goto(charge.paymentUrl);
    const deposit = (await page.getByTestId('deposit-address').textContent())!.trim();
    await expect(page.getByTestId('open-in-wallet')).toHaveAttribute(
      'href',
      `ethereum:${POLYGON_USDC}@137/transfer?address=${deposit}&uint256=2500000`,
    );
    await expect(page.getByRole('img', { name: 'QR code of the payment request' })).toBeVisible();

    await sendUsdcFromOutside(deposit, '1');
    await expect(page.getByTestId('amount-due')).toContainText('still due 1.50 USDC', { timeout: 20_000 });
    // The local node stands in for Polygon: polygonscan would not know the transaction, so no link to it.
    await expect(page.getByTestId('live-status')).toContainText('confirmations');
    await expect(page.getByTestId('view-transaction')).toHaveCount(0);
    await sendUsdcFromOutside(deposit, '1.5');
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
    await expect(page.getByText('Paid. You can close this page.')).toBeVisible();
  });

  test('"Connect wallet" switches the browser wallet to the chain and pays the exact amount in one click', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Wallet Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '1.75');
    await installAnvilWallet(page, polygonRpc(), localDemoPayerAccount.address);
    await page.goto(charge.paymentUrl);
    await page.getByRole('button', { name: 'Connect wallet and pay 1.75 USDC' }).click();
    // The wallet's transaction line shows until the status is pushed (ADR 0028): often less than a
    // second, so the proof is the charge paid with the exact amount, not that line.
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
    await expect(page.getByTestId('live-status')).toContainText('1.75 USDC');
  });

  test('expired and canceled charges refuse payment', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Closed Studio');
    const canceled = await createUsdcCharge(request, merchant.liveKey, '1');
    await request.post(`/api/charges/${canceled.chargeId}/cancel`, { headers: { 'x-api-key': merchant.liveKey } });
    await page.goto(canceled.paymentUrl);
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'canceled');
    await expect(page.getByText('This charge can no longer be paid.')).toBeVisible();
    await expect(page.getByTestId('deposit-address')).toHaveCount(0);

    const expired = await createUsdcCharge(request, merchant.liveKey, '1');
    await withE2eDatabase((sql) => sql`update charges set expires_at = now() - interval '1 second' where id = ${expired.chargeId}`);
    await page.goto(expired.paymentUrl);
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'expired');
    await expect(page.getByRole('button', { name: /^Pay / })).toHaveCount(0);
  });
});
