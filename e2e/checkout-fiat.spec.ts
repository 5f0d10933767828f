import { expect, test, type APIRequestContext, type BrowserContext, type Page } from '@playwright/test';
import { createVerifiedMerchant } from './admin';
import { POLYGON_USDC } from './chain';

async function createUsdcCharge(request: APIRequestContext, liveKey: string, amount: string) {
  const response = await request.post('/api/createCharge', {
    headers: { 'x-api-key': liveKey },
    data: {
      chargeData: {
        symbol: 'USDC',
        chain: 'POLYGON',
        tokenAddress: POLYGON_USDC,
        amount,
        cancelUrl: 'https://shop.example/cancel',
        items: [{ name: 'Season pass', amount, quantity: 1 }],
      },
    },
  });
  expect(response.status()).toBe(200);
  return (await response.json()).data as { chargeId: string; paymentUrl: string };
}

async function inCountry(context: BrowserContext, baseURL: string | undefined, country: string) {
  await context.addCookies([{ name: 'cp_country', value: country, url: baseURL! }]);
}

/** Chooses the provider and card on the checkout and returns the provider's screen, opened in a new tab. */
async function startCardPayment(page: Page, context: BrowserContext, provider: string): Promise<Page> {
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
  test('the provider delivers to the charge and the checkout completes; a provider whose minimum is too high says why', async ({
    page,
    context,
    request,
    baseURL,
  }) => {
    const merchant = createVerifiedMerchant('Card Studio');
    const charge = await createUsdcCharge(request, merchant.liveKey, '25');
    await inCountry(context, baseURL, 'US');
    await page.goto(charge.paymentUrl);

    const fiat = page.getByTestId('fiat-methods');
    await expect(fiat.getByTestId('fiat-provider-moonpay')).toContainText('from $20');
    await expect(fiat.getByTestId('fiat-provider-transak')).toContainText('minimum purchase is $30, more than this payment');
    await expect(fiat.getByTestId('fiat-provider-transak').getByRole('radio')).toBeDisabled();

    const providerPage = await startCardPayment(page, context, 'moonpay');
    await expect(providerPage.getByTestId('sandbox-token-amount')).toHaveText('25 USDC');
    await expect(providerPage.getByTestId('sandbox-standing-in')).toHaveText('Standing in for MoonPay in this test environment.');
    await payByCard(providerPage, '4242 4242 4242 4242');
    await expect(providerPage.getByText(/tokens are on the way/i)).toBeVisible({ timeout: 20_000 });

    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });
  });

  test('a declined card leaves the charge payable and says so', async ({ page, context, request, baseURL }) => {
    const merchant = createVerifiedMerchant('Declined Studio');
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
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'pending');
    await expect(page.getByTestId('fiat-methods').getByRole('button', { name: 'Continue to Transak' })).toBeVisible();
  });
});
