import { expect, test, type APIRequestContext, type BrowserContext, type Page } from './fixtures';
import { signUpAndSignIn } from './account-helpers';
import { createVerifiedMerchant } from './admin';

import { uniqueEmail } from './outbox';
import { createUsdcCharge as createUsdcChargeWith } from './charges';

const createUsdcCharge = (request: APIRequestContext, liveKey: string, amount: string) =>
  createUsdcChargeWith(request, liveKey, amount, { itemName: 'Season pass' });

async function inCountry(context: BrowserContext, baseURL: string | undefined, country: string) {
  await context.addCookies([{ name: 'cp_country', value: country, url: baseURL! }]);
}

/** Opens the checkout's card tab (a wallet is the suggested way for a guest). */
async function openCardTab(page: Page) {
  await page.getByRole('tab', { name: 'Card or bank' }).click();
}

/** Chooses the provider and card on the checkout and returns the provider's screen, opened in a new tab. */
async function startCardPayment(page: Page, context: BrowserContext, provider: string): Promise<Page> {
  await openCardTab(page);
  const fiat = page.getByTestId('fiat-methods');
  await fiat.getByTestId(`fiat-provider-${provider}`).getByRole('radio').check();
  const opened = context.waitForEvent('page');
  await fiat.getByRole('button', { name: /^Continue to / }).click();
  const providerPage = await opened;
  await providerPage.waitForURL(/\/sandbox-provider\/pay\//);
  return providerPage;
}

async function payByCard(providerPage: Page, number: string) {
  await providerPage.getByLabel('Card number').fill(number);
  await providerPage.getByLabel('Expiry (MM/YY)').fill('12/40');
  await providerPage.getByLabel('CVC').fill('123');
  await providerPage.getByLabel('Name on card').fill('Ada Lovelace');
  await providerPage.getByRole('button', { name: /^Pay \$/ }).click();
}

test.describe('paying a charge by card through an on-ramp provider', () => {
  test('the provider delivers to the charge and the checkout completes; a provider whose minimum is higher says so', async ({
    page,
    context,
    request,
    baseURL,
  }) => {
    const merchant = await createVerifiedMerchant('Card Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '25');
    await inCountry(context, baseURL, 'US');
    await page.goto(charge.paymentUrl);
    await openCardTab(page);

    const fiat = page.getByTestId('fiat-methods');
    await expect(fiat.getByTestId('fiat-provider-moonpay')).toContainText('from $20');
    // Transak's minimum is above the amount due: it offers its minimum instead (the journey below).
    await expect(fiat.getByTestId('fiat-provider-transak')).toContainText('minimum $30, more than this payment');
    await expect(fiat.getByTestId('fiat-provider-transak').getByRole('radio')).toBeEnabled();

    const providerPage = await startCardPayment(page, context, 'moonpay');
    await expect(providerPage.getByTestId('sandbox-token-amount')).toHaveText('25 USDC');
    await expect(providerPage.getByTestId('sandbox-standing-in')).toHaveText('Standing in for MoonPay in this test environment.');
    await payByCard(providerPage, '4242 4242 4242 4242');
    await expect(providerPage.getByText(/tokens are on the way/i)).toBeVisible({ timeout: 20_000 });

    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });
  });

  test('a declined card leaves the charge payable and says so', async ({ page, context, request, baseURL }) => {
    const merchant = await createVerifiedMerchant('Declined Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '40');
    await inCountry(context, baseURL, 'DE');
    await page.goto(charge.paymentUrl);

    const providerPage = await startCardPayment(page, context, 'transak');
    await payByCard(providerPage, '4000 0000 0000 0002');
    await expect(providerPage.getByText(/declined/i).first()).toBeVisible({ timeout: 20_000 });

    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId('fiat-order-failed')).toContainText('Transak payment failed', { timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
    // The provider's code in words, never as it is.
    await expect(page.getByTestId('fiat-order-failed')).toContainText('Your card was declined.');
    await expect(page.getByTestId('fiat-order-failed')).not.toContainText('card_declined');
    await openCardTab(page);
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'pending');
    await expect(page.getByTestId('fiat-methods').getByRole('button', { name: 'Continue to Transak' })).toBeVisible();
  });

  test('below the provider’s minimum: a $4.99 charge is paid from the $20 minimum bought by card, and the rest is on the wallet’s Home', async ({
    page,
    context,
    request,
    baseURL,
  }) => {
    const merchant = await createVerifiedMerchant('Small Items Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '4.99');
    await inCountry(context, baseURL, 'US');

    // A guest is told the rest needs an account of theirs, and is sent to sign in and back here.
    await page.goto(charge.paymentUrl);
    await openCardTab(page);
    await page.getByTestId('fiat-methods').getByTestId('fiat-provider-moonpay').getByRole('radio').check();
    const signIn = page.getByTestId('buy-minimum-sign-in');
    await expect(signIn).toHaveText('sign in or create an account');
    expect(decodeURIComponent((await signIn.getAttribute('href'))!)).toContain(`callbackUrl=/checkout/${charge.chargeId}`);
    await expect(page.getByRole('button', { name: 'Buy the minimum with MoonPay' })).toBeDisabled();

    // The account is created on the way: sign-up keeps the return address, and the buyer lands back here.
    await signIn.click();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await signUpAndSignIn(page, uniqueEmail('card-minimum'), undefined, {
      fromCurrentPage: true,
      landsOn: new RegExp(`/checkout/${charge.chargeId}`),
    });
    await openCardTab(page);

    // The provider's minimum is said, and what buying it means, before anything is bought.
    const fiat = page.getByTestId('fiat-methods');
    const moonpay = fiat.getByTestId('fiat-provider-moonpay');
    await expect(moonpay).toContainText('minimum $20, more than this payment');
    await moonpay.getByRole('radio').check();
    const offer = fiat.getByTestId('buy-minimum');
    await expect(offer).toContainText('MoonPay’s minimum purchase is $20, more than this payment.');
    await expect(offer).toContainText('4.99 USDC pays this charge');
    const remainder = (await offer.getByTestId('buy-minimum-remainder').textContent())!.trim();
    expect(remainder).toMatch(/^\d+(\.\d+)? USDC$/);
    const remainderAmount = remainder.split(' ')[0]!;
    const minimum = (await offer.textContent())!.match(/Buy the minimum instead: ([\d.]+) USDC/)![1]!;
    expect(Number(remainderAmount)).toBeGreaterThan(14);

    const opened = context.waitForEvent('page');
    await fiat.getByRole('button', { name: 'Buy the minimum with MoonPay' }).click();
    const providerPage = await opened;
    await providerPage.waitForURL(/\/sandbox-provider\/pay\//);
    await expect(providerPage.getByTestId('sandbox-token-amount')).toHaveText(`${minimum} USDC`);
    await payByCard(providerPage, '4242 4242 4242 4242');
    await expect(providerPage.getByText(/tokens are on the way/i)).toBeVisible({ timeout: 20_000 });

    // The minimum reaches the buyer's wallet, which pays the charge once; the checkout completes.
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 45_000 });

    // The rest stays in the buyer's balance: on the wallet's Home.
    await page.goto('/wallet');
    const usdc = page
      .locator('[data-testid="chain-balances"][data-chain="POLYGON"]')
      .first()
      .locator('[data-testid="token-row"][data-symbol="USDC"]');
    await expect(async () => {
      await page.reload();
      await expect(usdc.getByTestId('token-amount')).toHaveText(remainderAmount, { timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
  });
});
