import { expect, test, type APIRequestContext } from './fixtures';
import { SHARED_ACCOUNTS } from './account-helpers';
import { createVerifiedMerchant, withE2eDatabase } from './admin';
import { merchantApi, type CreateChargeInput } from './api';
import { POLYGON_USDC } from './chain';

const SOL_MINT = 'So11111111111111111111111111111111111111112';

const createCharge = (request: APIRequestContext, key: string, chargeData: CreateChargeInput['chargeData']) =>
  merchantApi(request, key).createCharge({ chargeData });

test.describe('checkout details', () => {
  test('shows the approximate USD value; the location selector (default from the request) decides the fiat methods and is remembered', async ({
    page,
    request,
  }) => {
    const merchant = await createVerifiedMerchant('Atlas Games');
    const charge = await createCharge(request, merchant.liveKey, {
      symbol: 'USDC',
      chain: 'POLYGON',
      tokenAddress: POLYGON_USDC,
      amount: '1234.5',
    });
    // Bank transfers take days to deliver: offered only for a charge that lives that long (ADR 0014).
    await withE2eDatabase((sql) => sql`update charges set expires_at = now() + interval '4 days' where id = ${charge.chargeId}`);

    // As served, before React runs, the tabs are disabled (they could not switch yet) by the disabled
    // fieldset around their list; hydrated, they work.
    const served = await (await request.get(charge.paymentUrl)).text();
    const servedTabList = /<fieldset[^>]*>\s*<div[^>]*role="tablist"[^>]*>(.*?)<\/div>\s*<\/fieldset>/s.exec(served);
    expect(servedTabList?.[0]).toMatch(/^<fieldset[^>]*\sdisabled=""/);
    expect(servedTabList?.[1]?.match(/<button[^>]*role="tab"/g)?.length).toBeGreaterThan(1);

    // As a CDN in front of the app geolocates the request (Cloudflare's header).
    await page.setExtraHTTPHeaders({ 'cf-ipcountry': 'DE' });
    await page.goto(charge.paymentUrl);
    await expect(page.getByTestId('usd-value')).toHaveText('≈ $1,234.50');
    const selector = page.getByRole('combobox', { name: 'Your location (country)' });
    await expect(selector).toHaveValue('DE');
    // In Germany both providers sell USDC on Polygon; Transak also takes bank transfers there.
    await expect(page.getByRole('tab', { name: 'Card or bank' })).toBeEnabled();
    await page.getByRole('tab', { name: 'Card or bank' }).click();
    const fiat = page.getByTestId('fiat-methods');
    await expect(fiat.getByTestId('fiat-provider-moonpay').getByRole('radio')).toBeEnabled();
    await fiat.getByTestId('fiat-provider-transak').getByRole('radio').check();
    await expect(fiat.getByText('Bank transfer', { exact: true })).toBeVisible();

    await selector.selectOption('CU');
    await expect(fiat).toContainText('MoonPay does not serve Cuba');
    await expect(fiat).toContainText('Transak does not serve Cuba');
    await page.reload();
    await expect(page.getByRole('combobox', { name: 'Your location (country)' })).toHaveValue('CU');
    expect((await page.context().cookies()).find((c) => c.name === 'cp_country')?.value).toBe('CU');
  });

  test.describe('as the shared consumer with a PIN and a wallet nothing funds (e2e/accounts.setup.ts)', () => {
    test.use({ storageState: SHARED_ACCOUNTS.unfunded });
    test('not enough balance: the page says how much is missing and where to send it', async ({ page, request }) => {
      const merchant = await createVerifiedMerchant('Broke Games');
      const charge = await createCharge(request, merchant.liveKey, {
        symbol: 'USDC',
        chain: 'POLYGON',
        tokenAddress: POLYGON_USDC,
        amount: '12.5',
      });
      await page.goto('/wallet');
      const walletAddress = (await page.getByTestId('wallet-address').first().textContent())!.trim();

      await page.goto(charge.paymentUrl);
      // Not enough balance: the wallet stays the suggested way, the balance one click away.
      await expect(page.getByRole('tab', { name: 'Crypto wallet' })).toHaveAttribute('aria-selected', 'true');
      await page.getByRole('tab', { name: 'Balance' }).click();
      await expect(page.getByTestId('balance')).toHaveText('0.00 USDC');
      await expect(page.getByTestId('top-up')).toContainText('12.50 USDC more is needed');
      await expect(page.getByTestId('top-up-address')).toHaveText(walletAddress);
      await expect(page.getByLabel('PIN')).toHaveCount(0);
      // "Buy it with a card" only where a provider serves the buyer: in Germany yes, in Cuba none does.
      await page.getByRole('combobox', { name: 'Your location (country)' }).selectOption('DE');
      await page.getByRole('tab', { name: 'Balance' }).click();
      await expect(page.getByTestId('top-up-onramp')).toBeVisible();
      await page.getByRole('combobox', { name: 'Your location (country)' }).selectOption('CU');
      await expect(page.getByTestId('fiat-methods')).toContainText('MoonPay does not serve Cuba');
      await page.getByRole('tab', { name: 'Balance' }).click();
      await expect(page.getByTestId('top-up')).toBeVisible();
      await expect(page.getByTestId('top-up-onramp')).toHaveCount(0);
    });
  });

  test.describe('as the shared consumer who never set a PIN (e2e/accounts.setup.ts)', () => {
    test.use({ storageState: SHARED_ACCOUNTS.pinless });
    test('signed in without a PIN: the balance tab says to set one and links back, instead of a top-up notice', async ({
      page,
      request,
    }) => {
      const merchant = await createVerifiedMerchant('Pinless Games');
      const charge = await createCharge(request, merchant.liveKey, {
        symbol: 'USDC',
        chain: 'POLYGON',
        tokenAddress: POLYGON_USDC,
        amount: '3',
      });
      await page.goto(charge.paymentUrl);
      await page.getByRole('tab', { name: 'Balance' }).click();
      await expect(page.getByTestId('set-pin')).toContainText('your account has none yet');
      await expect(page.getByRole('link', { name: 'Set a PIN, then come back to pay' })).toHaveAttribute(
        'href',
        `/account/pin?next=${encodeURIComponent(`/checkout/${charge.chargeId}`)}`,
      );
      await expect(page.getByTestId('top-up')).toHaveCount(0);
      await expect(page.getByTestId('balance')).toHaveCount(0);
    });
  });

  test('a Solana charge offers a Solana Pay transfer request (no EVM wallet button)', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Sol Studio');
    const charge = await createCharge(request, merchant.liveKey, {
      symbol: 'SOL',
      chain: 'SOLANA',
      tokenAddress: SOL_MINT,
      amount: '0.25',
    });
    await page.goto(charge.paymentUrl);
    const address = (await page.getByTestId('deposit-address').textContent())!.trim();
    expect(address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const href = await page.getByTestId('open-in-wallet').getAttribute('href');
    expect(href).toMatch(new RegExp(`^solana:${address}\\?amount=0\\.25&reference=[1-9A-HJ-NP-Za-km-z]{32,44}&message=`));
    await expect(page.getByRole('button', { name: /Connect wallet/ })).toHaveCount(0);
  });
});
