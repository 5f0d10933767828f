import { expect, test, type Page } from './fixtures';
import { createPublicClient, erc20Abi, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { signUpAndSignIn } from './account-helpers';
import { POLYGON_USDC, polygonRpc } from './chain';
import { uniqueEmail } from './outbox';

/** A wallet nobody else in the suite uses, so its balance is this journey's alone. */
const freshWallet = () => privateKeyToAccount(generatePrivateKey()).address;
const merchantLink = (wallet: string) => `/onramp?chain=POLYGON&token=USDC&wallet=${wallet}&wallet_label=Acme%20Games`;

async function openAsUsBuyer(page: Page, path: string) {
  // As a CDN in front of the app geolocates the request: the providers offered depend on it.
  await page.setExtraHTTPHeaders({ 'cf-ipcountry': 'US' });
  await page.goto(path);
}

const amountInput = (page: Page) => page.getByLabel('Amount', { exact: true });

/** Buys `amount` USDC with the preselected (best) provider and pays on its screen with `card`; returns the provider's tab. */
async function buyAndPayByCard(page: Page, amount: string, card: string): Promise<Page> {
  await amountInput(page).fill(amount);
  await expect(page.getByTestId('quote-total')).toBeVisible();
  const popupEvent = page.waitForEvent('popup');
  await page.getByTestId('buy').click();
  const provider = await popupEvent;
  await expect(page).toHaveURL(/\/onramp\/orders\/ord_/);
  await provider.getByLabel('Card number').fill(card);
  await provider.getByLabel('Expiry (MM/YY)').fill('12/34');
  await provider.getByLabel('CVC').fill('123');
  await provider.getByLabel('Name on card').fill('Ada Buyer');
  await provider.getByRole('button', { name: /^Pay / }).click();
  return provider;
}

test.describe('on-ramp', () => {
  test('a merchant link: only its chain, its token preselected, its label; a quote once typing stops, with payment details', async ({
    page,
  }) => {
    const wallet = freshWallet();
    await openAsUsBuyer(page, merchantLink(wallet));

    const chains = page.getByTestId('chains').getByRole('radio');
    await expect(chains).toHaveCount(1);
    await expect(page.getByRole('radio', { name: 'Polygon' })).toBeChecked();
    await expect(page.getByTestId('tokens').getByRole('radio', { name: 'USDC' })).toBeChecked();
    // A merchant's wallet is an external one; its label is the link's word, shown as unverified.
    await expect(page.getByTestId('destination')).toContainText('Deliver to an external wallet');
    await expect(page.getByTestId('destination-merchant-label')).toHaveText(/Labelled “Acme Games” by the link \(unverified/);
    await expect(page.getByTestId('destination-address')).toHaveText(`· ${wallet.slice(0, 6)}…${wallet.slice(-4)}`);
    await expect(page.getByRole('combobox', { name: 'Your location (country)' })).toHaveValue('US');

    // Best offer first: Transak (3.5 % card fee) before MoonPay (4.5 %).
    await expect(page.getByRole('radio', { name: /Transak/ })).toBeChecked();
    await expect(page.getByRole('radio', { name: 'Card', exact: true })).toBeChecked();

    await amountInput(page).pressSequentially('50', { delay: 50 });
    await expect(page.getByTestId('quote-loading')).toBeVisible();
    // $50.00 of USDC + Transak's minimum fee $1.99 + Polygon network fee $0.01.
    await expect(page.getByTestId('quote-total')).toHaveText('$52.00');
    await expect(page.getByTestId('quote-details')).toHaveCount(0);
    await page.getByRole('button', { name: 'Show payment details' }).click();
    const details = page.getByTestId('quote-details');
    await expect(details).toContainText('1 USDC = $1.00');
    await expect(page.getByTestId('quote-provider-fee')).toHaveText('$1.99');
    await expect(page.getByTestId('quote-network-fee')).toHaveText('$0.01');
    await expect(page.getByTestId('quote-arrives')).toContainText(`50.00 USDC on Polygon at ${wallet.slice(0, 6)}…`);
    await expect(details.getByTestId('expiry-countdown')).toContainText('Expires in');

    // The USD toggle keeps the same purchase; another provider re-prices it.
    await page.getByRole('radio', { name: 'USD', exact: true }).click();
    await expect(amountInput(page)).toHaveValue('50.00');
    await page.getByText('MoonPay', { exact: true }).click();
    // MoonPay: 4.5 % of $50 = $2.25 is below its $3.99 minimum fee; + $0.01 network fee.
    await expect(page.getByTestId('quote-total')).toHaveText('$54.00');
  });

  test('a link to the site’s root (any install, CHECKOUT_URL or not): the on-ramp with its chain, token, wallet and label; / alone is the landing page', async ({
    page,
  }) => {
    const wallet = freshWallet();
    const link = `/?chain=POLYGON&token=USDC&wallet=${wallet}&wallet_label=Acme%20Games`;
    await openAsUsBuyer(page, link);
    // Rendered at /, not redirected: the merchant's link stays the address the buyer sees.
    await expect(page).toHaveURL(link);
    await expect(page).toHaveTitle('Buy crypto · Chargeport');
    await expect(page.getByRole('heading', { name: 'Buy crypto', level: 1 })).toBeVisible();
    await expect(page.getByTestId('chains').getByRole('radio')).toHaveCount(1);
    await expect(page.getByRole('radio', { name: 'Polygon' })).toBeChecked();
    await expect(page.getByTestId('tokens').getByRole('radio', { name: 'USDC' })).toBeChecked();
    await expect(page.getByTestId('destination')).toContainText('Deliver to an external wallet');
    await expect(page.getByTestId('destination-merchant-label')).toHaveText(/Labelled “Acme Games” by the link \(unverified/);
    await expect(page.getByTestId('destination-address')).toHaveAttribute('title', wallet);
    await amountInput(page).fill('50');
    await expect(page.getByTestId('quote-total')).toHaveText('$52.00');

    // Bad values get the on-ramp's own messages at /, as at /onramp.
    const bad = await page.goto('/?chain=POLYGON&token=USDC&wallet=0x1234');
    expect(bad?.status()).toBe(200);
    await expect(page.getByTestId('wallet-error')).toHaveText(/“0x1234” is not a valid Polygon wallet address/);
    await page.goto('/?chain=ETHEREUM');
    await expect(page.getByTestId('link-notice')).toContainText('There is no chain “ETHEREUM” to buy on here');

    // Without on-ramp parameters (others do not count), / is the landing page.
    await page.goto('/?utm_source=mail');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Sell items, coins and passes for crypto/);
    await expect(page.getByTestId('chains')).toHaveCount(0);
  });

  test('an invalid wallet for the chain is refused with a clear message', async ({ page }) => {
    await openAsUsBuyer(page, '/onramp?chain=POLYGON&token=USDC&wallet=0x1234&wallet_label=Acme%20Games');
    await expect(page.getByTestId('wallet-error')).toHaveText(
      /“0x1234” is not a valid Polygon wallet address, so nothing can be bought for it/,
    );
    await expect(page.getByTestId('buy')).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Buy for your own Chargeport wallet instead' })).toHaveAttribute(
      'href',
      '/onramp?chain=POLYGON&token=USDC',
    );
  });

  test('an unknown chain: a message and every chain; without wallet or session: sign in, and come back', async ({ page }) => {
    await openAsUsBuyer(page, '/onramp?chain=ETHEREUM&token=USDC');
    await expect(page.getByTestId('link-notice')).toContainText('There is no chain “ETHEREUM” to buy on here');
    await expect(page.getByTestId('chains').getByRole('radio')).toHaveCount(4);

    await page.goto('/onramp?chain=POLYGON&token=USDC');
    await expect(page.getByRole('link', { name: 'Sign in to buy for your Chargeport wallet' }).first()).toHaveAttribute(
      'href',
      `/signin?callbackUrl=${encodeURIComponent('/onramp?chain=POLYGON&token=USDC')}`,
    );
  });

  test('a provider that does not sell the token is shown unavailable with the reason; the buyer picks another', async ({ page }) => {
    await openAsUsBuyer(page, `/onramp?chain=POLYGON&token=POL&wallet=${freshWallet()}`);
    const transak = page.getByTestId('provider-transak');
    await expect(transak).toHaveAttribute('data-available', 'false');
    await expect(transak).toContainText('Unavailable: Transak does not sell POL on Polygon');
    await expect(page.getByRole('radio', { name: /Transak/ })).toBeDisabled();
    await expect(page.getByRole('radio', { name: /MoonPay/ })).toBeChecked();

    await page.getByTestId('tokens').getByText('USDC', { exact: true }).click();
    await expect(transak).toHaveAttribute('data-available', 'true');
  });

  test('below the minimum: the minimum in USD and tokens, and one click orders the minimum', async ({ page }) => {
    await openAsUsBuyer(page, merchantLink(freshWallet()));
    await amountInput(page).fill('5');
    const below = page.getByTestId('below-minimum');
    await expect(below).toContainText('Transak sells at least $30.00 (30 USDC) in one purchase');
    await expect(page.getByTestId('buy')).toHaveCount(0);

    const popup = page.waitForEvent('popup');
    await below.getByRole('button', { name: 'Buy the minimum (30 USDC)' }).click();
    await (await popup).close();
    await expect(page).toHaveURL(/\/onramp\/orders\/ord_[0-9A-Za-z]{22}$/);
    await expect(page.getByTestId('order-amount')).toHaveText('30.00 USDC');
    await expect(page.getByTestId('raised-to-minimum')).toContainText(
      'You asked for 5.00 USDC; Transak’s minimum purchase made this order 30.00 USDC',
    );
    await expect(page.getByTestId('order-status')).toHaveAttribute('data-status', 'created');
    await expect(page.getByTestId('order-status')).toContainText('Waiting for payment at Transak');
    await expect(page.getByTestId('provider-link')).toHaveAttribute('href', /\/sandbox-provider\/pay\//);
  });

  test('buying through the provider’s screen: pay by card, the order page follows it to completion and the tokens arrive', async ({
    page,
  }) => {
    const wallet = freshWallet();
    await openAsUsBuyer(page, merchantLink(wallet));
    const provider = await buyAndPayByCard(page, '50', '4242 4242 4242 4242');
    await expect(provider.getByTestId('sandbox-outcome')).toHaveAttribute('data-outcome', 'paid');

    // The order page follows the provider's webhooks without a reload.
    await expect(page.getByTestId('order-status')).toHaveAttribute('data-status', 'completed', { timeout: 45_000 });
    await expect(page.getByTestId('order-arrived')).toHaveText('50.00 USDC arrived on Polygon.');
    await expect(page.getByTestId('delivery-tx')).toContainText('Transaction 0x');
    await expect(page.getByTestId('order-timeline')).toContainText('Tokens delivered');

    const balance = await createPublicClient({ transport: http(polygonRpc()) }).readContract({
      address: POLYGON_USDC,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [wallet as Hex],
    });
    expect(balance).toBe(50_000000n);
  });

  test('signed in without a wallet parameter: the buyer’s own wallet receives, and the finished order links to the wallet', async ({
    page,
  }) => {
    await signUpAndSignIn(page, uniqueEmail('onramp'), '482915');
    const own = (await page.getByTestId('wallet-address').first().textContent())!.trim();
    await openAsUsBuyer(page, '/onramp?chain=POLYGON&token=USDC');
    await expect(page.getByTestId('destination')).toContainText('Deliver to your Chargeport wallet');
    await expect(page.getByTestId('destination-address')).toHaveAttribute('title', own);

    await buyAndPayByCard(page, '40', '4242 4242 4242 4242');
    await expect(page.getByTestId('order-status')).toHaveAttribute('data-status', 'completed', { timeout: 45_000 });
    await expect(page.getByText(own)).toBeVisible();
    await expect(page.getByRole('link', { name: 'Wallet home' })).toHaveAttribute('href', '/wallet');
    await expect(page.getByRole('link', { name: 'Activity' })).toHaveAttribute('href', '/wallet/activity');

    // The purchase is in the wallet's Activity, and its tokens on Home.
    await page.getByRole('link', { name: 'Activity' }).click();
    const entry = page.locator('[data-testid="activity-item"][data-kind="onramp"]');
    await expect(entry).toHaveCount(1);
    await expect(entry).toHaveAttribute('data-status', 'completed');
    await expect(entry.getByTestId('activity-amount')).toContainText('+40.00 USDC');
    await page.goto('/wallet');
    const usdc = page
      .locator('[data-testid="chain-balances"][data-chain="POLYGON"]')
      .first()
      .locator('[data-testid="token-row"][data-symbol="USDC"]');
    await expect(async () => {
      await page.reload();
      await expect(usdc.getByTestId('token-amount')).toHaveText('40.00', { timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
  });

  test('a declined card: the order page shows the failure and “Try again” goes back to the same link', async ({ page }) => {
    const wallet = freshWallet();
    await openAsUsBuyer(page, merchantLink(wallet));
    const provider = await buyAndPayByCard(page, '50', '4000 0000 0000 0002');
    await expect(provider.getByTestId('sandbox-outcome')).toHaveCount(1);

    await expect(page.getByTestId('order-status')).toHaveAttribute('data-status', 'failed', { timeout: 45_000 });
    await expect(page.getByTestId('failure-reason')).toContainText('No tokens were sent.');
    await expect(page.getByRole('link', { name: 'Try again' })).toHaveAttribute(
      'href',
      `/onramp?chain=POLYGON&token=USDC&wallet=${wallet}&wallet_label=Acme+Games`,
    );
  });
});
