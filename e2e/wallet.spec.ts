import { expect, test, type Page } from './fixtures';
import { createPublicClient, erc20Abi, http, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { SHARED_ACCOUNTS, signUpAndSignIn } from './account-helpers';
import { POLYGON_USDC, polygonRpc, sendNativeFromOutside, sendUsdcFromOutside } from './chain';
import { uniqueEmail } from './outbox';

const PIN = '482915';

/** Reloads until `check` passes: balances are cached for 15 s and incoming transfers are indexed every few seconds. */
async function untilShown(page: Page, check: () => Promise<void>): Promise<void> {
  await expect(async () => {
    await page.reload();
    await check();
  }).toPass({ timeout: 45_000, intervals: [1_000, 2_000, 3_000] });
}

test.describe('wallet website', () => {
  test('funded from outside: Home and Activity show it; Receive shows the address and a QR; Send with the PIN; Buy goes to the on-ramp', async ({
    page,
  }) => {
    test.setTimeout(150_000);
    await signUpAndSignIn(page, uniqueEmail('wallet'), PIN);
    const wallet = (await page.getByTestId('wallet-address').first().textContent())!.trim();

    // Funds from an outside wallet: USDC, and POL for the network fee of the send below.
    await sendUsdcFromOutside(wallet, '25.5');
    await sendNativeFromOutside('POLYGON', wallet, '1');

    // Home: the token on its chain, with its USD value.
    const polygon = page.locator('[data-testid="chain-balances"][data-chain="POLYGON"]').first();
    const usdc = polygon.locator('[data-testid="token-row"][data-symbol="USDC"]');
    await untilShown(page, async () => {
      await expect(usdc.getByTestId('token-amount')).toHaveText('25.50', { timeout: 1_000 });
    });
    await expect(usdc.getByTestId('token-usd')).toHaveText('≈ $25.50');
    await expect(polygon.locator('[data-testid="token-row"][data-symbol="POL"]').getByTestId('token-amount')).toHaveText('1');
    await expect(page.getByTestId('total-usd')).toHaveText('≈ $25.50');
    await expect(usdc.getByRole('link', { name: 'Buy USDC on Polygon' })).toHaveAttribute(
      'href',
      `/wallet/buy?chain=POLYGON&token=USDC&wallet=${wallet}`,
    );

    // Activity: the incoming transfers, indexed from the chain.
    await page.getByRole('navigation', { name: 'Wallet' }).getByRole('link', { name: 'Activity' }).click();
    await expect(page).toHaveURL(/\/wallet\/activity$/);
    const received = page.locator('[data-testid="activity-item"][data-kind="received"]');
    await untilShown(page, async () => {
      await expect(received.filter({ hasText: '+25.50 USDC' })).toHaveCount(1, { timeout: 1_000 });
    });
    await expect(received.filter({ hasText: '+1 POL' })).toHaveCount(1);
    await expect(received.first()).toContainText('from 0x7099…79C8');
    // A local chain: the hash, no link to the real network's explorer.
    await expect(received.first()).toContainText('local network: no public explorer');

    // Receive: the address as text, as a QR code, and a copy button.
    await page.getByRole('navigation', { name: 'Wallet' }).getByRole('link', { name: 'Receive' }).click();
    const evmReceive = page.locator('[data-testid="receive-wallet"][data-family="evm"]');
    await expect(evmReceive.getByTestId('receive-address')).toHaveText(wallet);
    await expect(evmReceive.getByRole('img', { name: 'QR code of your EVM address' }).locator('svg')).toBeVisible();
    await expect(evmReceive.getByRole('button', { name: 'Copy address' })).toBeVisible();
    await expect(
      page.locator('[data-testid="receive-wallet"][data-family="solana"]').getByTestId('receive-qr').locator('svg'),
    ).toBeVisible();

    // Send to an external address: review with the fee, a wrong PIN first, then the right one.
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    await page.getByRole('navigation', { name: 'Wallet' }).getByRole('link', { name: 'Send' }).click();
    await expect(page.getByTestId('solana-send-note')).toContainText('Chargeport pays the network fee');
    await page.getByLabel('Token and network').selectOption(`POLYGON:${POLYGON_USDC}`);
    await page.getByLabel('To address').fill('0x1234');
    await page.getByLabel('Amount').fill('5.25');
    await page.getByRole('button', { name: 'Review' }).click();
    await expect(page.getByText('That is not an EVM address')).toBeVisible();
    await page.getByLabel('To address').fill(recipient);
    await page.getByLabel('Amount').fill('5.25');
    await page.getByRole('button', { name: 'Review' }).click();
    await expect(page.getByTestId('review-amount')).toHaveText('5.25 USDC');
    await expect(page.getByTestId('review-to')).toHaveText(recipient);
    await expect(page.getByTestId('review-fee')).toContainText(/up to [\d.]+ POL/);
    // The e2e stack turns smart accounts on for local Polygon (ADR 0035): the send is relayed, the gas tank pays.
    await expect(page.getByTestId('review-fee')).toContainText('paid by Chargeport');
    await page.getByLabel('Your PIN').fill('000000');
    await page.getByRole('button', { name: 'Send 5.25 USDC' }).click();
    await expect(page.getByText('Wrong PIN. 4 tries left')).toBeVisible();
    await page.getByLabel('Your PIN').fill(PIN);
    await page.getByRole('button', { name: 'Send 5.25 USDC' }).click();
    await expect(page).toHaveURL(/\/wallet\/send\/wsend_/);
    await expect(page.getByTestId('send-result')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
    const client = createPublicClient({ transport: http(polygonRpc()) });
    expect(await client.readContract({ address: POLYGON_USDC, abi: erc20Abi, functionName: 'balanceOf', args: [recipient] })).toBe(
      parseUnits('5.25', 6),
    );

    await page.getByRole('link', { name: 'See it in Activity' }).click();
    const sent = page.locator('[data-testid="activity-item"][data-kind="sent"]');
    await expect(sent).toHaveCount(1);
    await expect(sent).toContainText('−5.25 USDC');
    await expect(sent).toContainText(`to ${recipient.slice(0, 6)}…${recipient.slice(-4)}`);
    await expect(sent).toHaveAttribute('data-status', 'completed');

    // Home reads the new balance at once (the send forgets the cached one).
    await page.getByRole('navigation', { name: 'Wallet' }).getByRole('link', { name: 'Home' }).click();
    await expect(usdc.getByTestId('token-amount')).toHaveText('20.25');

    // Buy: a server-side redirect to the on-ramp with the same parameters, adding the user's own wallet.
    const buy = await page.request.get('/wallet/buy?chain=POLYGON&token=USDC&wallet_label=Demo%20Game%20Studio', { maxRedirects: 0 });
    expect([303, 307, 308]).toContain(buy.status());
    const target = new URL(buy.headers()['location']!, 'http://localhost');
    expect(target.pathname).toBe('/onramp');
    expect(Object.fromEntries(target.searchParams)).toEqual({ chain: 'POLYGON', token: 'USDC', wallet_label: 'Demo Game Studio', wallet });
    const given = await page.request.get(`/wallet/buy?chain=POLYGON&token=USDT&wallet=${recipient}`, { maxRedirects: 0 });
    expect(new URL(given.headers()['location']!, 'http://localhost').searchParams.get('wallet')).toBe(recipient);
  });

  test('signed out, /wallet with on-ramp parameters: a link that names its wallet opens the on-ramp at once; otherwise sign in (here: sign up), then Buy with them', async ({
    page,
  }) => {
    const external = privateKeyToAccount(generatePrivateKey()).address;
    await page.goto(`/wallet?chain=POLYGON&token=USDC&wallet=${external}&wallet_label=Acme%20Games`);
    await expect(page).toHaveURL(`/onramp?chain=POLYGON&token=USDC&wallet=${external}&wallet_label=Acme+Games`);
    await expect(page.getByTestId('destination-merchant-label')).toHaveText(/Labelled “Acme Games” by the link/);

    await page.goto('/wallet?chain=POLYGON&token=USDC&wallet_label=Acme%20Games');
    await expect(page).toHaveURL(/\/signin\?callbackUrl=/);
    expect(new URL(page.url()).searchParams.get('callbackUrl')).toBe('/wallet/buy?chain=POLYGON&token=USDC&wallet_label=Acme+Games');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await signUpAndSignIn(page, uniqueEmail('wallet-buy-link'), PIN, { fromCurrentPage: true, landsOn: /\/onramp\?/ });
    const target = new URL(page.url());
    expect(Object.fromEntries(target.searchParams)).toEqual({
      chain: 'POLYGON',
      token: 'USDC',
      wallet: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      wallet_label: 'Acme Games',
    });
    await expect(page.getByTestId('chains').getByRole('radio')).toHaveCount(1);
    await expect(page.getByRole('radio', { name: 'Polygon' })).toBeChecked();
    await expect(page.getByTestId('tokens').getByRole('radio', { name: 'USDC' })).toBeChecked();
    await expect(page.getByTestId('destination')).toContainText('Deliver to your Chargeport wallet');
    await expect(page.getByTestId('destination-address')).toHaveAttribute('title', target.searchParams.get('wallet')!);
  });

  test.describe('as the shared consumer whose wallet nothing funds (e2e/accounts.setup.ts)', () => {
    test.use({ storageState: SHARED_ACCOUNTS.unfunded });
    test('/wallet with on-ramp parameters lands on Buy with them: the link’s wallet and label, or the user’s own wallet', async ({
      page,
    }) => {
      await page.goto('/wallet');
      const own = (await page.getByTestId('wallet-address').first().textContent())!.trim();
      const external = privateKeyToAccount(generatePrivateKey()).address;

      await page.goto(`/wallet?chain=POLYGON&token=USDC&wallet=${external}&wallet_label=Acme%20Games`);
      await expect(page).toHaveURL(`/onramp?chain=POLYGON&token=USDC&wallet=${external}&wallet_label=Acme+Games`);
      await expect(page.getByTestId('chains').getByRole('radio')).toHaveCount(1);
      await expect(page.getByRole('radio', { name: 'Polygon' })).toBeChecked();
      await expect(page.getByTestId('tokens').getByRole('radio', { name: 'USDC' })).toBeChecked();
      await expect(page.getByTestId('destination')).toContainText('Deliver to an external wallet');
      await expect(page.getByTestId('destination-merchant-label')).toHaveText(/Labelled “Acme Games” by the link/);
      await expect(page.getByTestId('destination-address')).toHaveAttribute('title', external);

      await page.goto('/wallet?chain=POLYGON&token=USDC');
      await expect(page).toHaveURL(`/onramp?chain=POLYGON&token=USDC&wallet=${own}`);
      await expect(page.getByTestId('destination-address')).toHaveAttribute('title', own);
    });

    test('the wallet tabs fit and work on every screen, Profile included', async ({ page }) => {
      await page.goto('/wallet');
      const tabs = page.getByRole('navigation', { name: 'Wallet' });
      for (const name of ['Home', 'Activity', 'Buy', 'Receive', 'Send', 'Profile'])
        await expect(tabs.getByRole('link', { name })).toBeInViewport();
      await expect(tabs.getByRole('link', { name: 'Home' })).toHaveAttribute('aria-current', 'page');
      await tabs.getByRole('link', { name: 'Profile' }).click();
      await expect(page.getByRole('heading', { name: 'Profile' })).toBeVisible();
      await page.goto('/wallet/profile');
      await expect(page).toHaveURL(/\/account\/profile$/);
      await page.goto('/wallet/activity');
      await expect(page.getByTestId('activity-empty')).toHaveText('Nothing yet. Buy or receive tokens and they show up here.');
      // Nothing sticks out sideways on a phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    });
  });
});
