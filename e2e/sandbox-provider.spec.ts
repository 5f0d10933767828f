import { expect, test, type APIRequestContext, type Page } from './fixtures';
import { createPublicClient, erc20Abi, http, parseUnits, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { E2E_BASE_URL, E2E_SANDBOX_PROVIDER_SECRET } from '../playwright.config';
import { POLYGON_USDC, polygonRpc } from './chain';

const RETURN_URL = `${E2E_BASE_URL}/?from=sandpiper`;

/** Opens a session as a partner would (Bearer key), for 12.5 USDC on Polygon at the quoted total. */
async function createSession(request: APIRequestContext, overrides: Record<string, string> = {}) {
  const walletAddress = privateKeyToAccount(generatePrivateKey()).address;
  const quote = await request.get(
    '/sandbox-provider/api/quote?chain=POLYGON&tokenSymbol=USDC&cryptoAmount=12.5&fiatCurrency=USD&paymentMethod=card',
  );
  expect(quote.status()).toBe(200);
  const { total } = (await quote.json()).data as { total: string };
  const response = await request.post('/sandbox-provider/api/sessions', {
    headers: { authorization: `Bearer ${E2E_SANDBOX_PROVIDER_SECRET}` },
    data: {
      partnerOrderId: `ord_e2e_${Date.now()}_${Math.random().toString(36).slice(2)}`,
      walletAddress,
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
      cryptoAmount: '12.5',
      fiatCurrency: 'USD',
      fiatAmount: total,
      paymentMethod: 'card',
      country: 'DE',
      redirectUrl: RETURN_URL,
      ...overrides,
    },
  });
  expect(response.status()).toBe(201);
  return { ...((await response.json()).data as { sessionId: string; url: string }), walletAddress, total };
}

async function fillCard(page: Page, number: string, expiry = '12/40') {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM/YY)').fill(expiry);
  await page.getByLabel('CVC').fill('123');
  await page.getByLabel('Name on card').fill('Ada Lovelace');
}

test.describe('the sandbox provider’s payment screen', () => {
  test('shows the purchase and test cards; the 3-D Secure card pays after authentication and the tokens arrive', async ({
    page,
    request,
  }) => {
    const session = await createSession(request);
    expect(session.total).toBe('13.50');
    await page.goto(session.url);

    await expect(page.getByText('Sandpiper Pay', { exact: true })).toBeVisible();
    await expect(page.getByTestId('sandbox-badge')).toHaveText('Sandbox');
    await expect(page.getByTestId('sandbox-token-amount')).toHaveText('12.5 USDC');
    await expect(page.getByTestId('sandbox-chain')).toHaveText('Polygon');
    await expect(page.getByTestId('sandbox-wallet')).toHaveText(`${session.walletAddress.slice(0, 6)}…${session.walletAddress.slice(-4)}`);
    await expect(page.getByTestId('sandbox-total')).toHaveText('$13.50');
    await expect(page.getByRole('tab', { name: 'Card' })).toHaveAttribute('aria-selected', 'true');
    const testCards = page.getByTestId('test-cards');
    for (const number of ['4242 4242 4242 4242', '4000 0000 0000 0002', '4000 0027 6000 3184'])
      await expect(testCards).toContainText(number);

    // Inline validation first: a wrong check digit and a past expiry change nothing.
    await fillCard(page, '4000 0027 6000 3185', '01/20');
    await page.getByRole('button', { name: 'Pay $13.50' }).click();
    await expect(page.getByText('This card number is not valid: check the digits')).toBeVisible();
    await expect(page.getByText('This card has expired: the expiry must be in the future')).toBeVisible();

    await fillCard(page, '4000 0027 6000 3184');
    await page.getByRole('button', { name: 'Pay $13.50' }).click();
    await page.getByRole('button', { name: 'Complete authentication' }).click();
    await expect(page.getByText('Payment received, your tokens are on the way')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Return to merchant' })).toHaveAttribute('href', RETURN_URL);

    const client = createPublicClient({ transport: http(polygonRpc()) });
    await expect
      .poll(
        () =>
          client.readContract({ address: POLYGON_USDC, abi: erc20Abi, functionName: 'balanceOf', args: [session.walletAddress as Hex] }),
        {
          timeout: 20_000,
        },
      )
      .toBe(parseUnits('12.5', 6));
    // Back to the merchant after a few seconds.
    await page.waitForURL(RETURN_URL, { timeout: 15_000 });
  });

  test('a declined card shows the decline message, and the finished session says so on reload', async ({ page, request }) => {
    const session = await createSession(request);
    await page.goto(session.url);
    await fillCard(page, '4000 0000 0000 0002');
    await page.getByRole('button', { name: `Pay $${session.total}` }).click();
    await expect(page.getByTestId('sandbox-outcome')).toHaveAttribute('data-outcome', 'failed');
    await expect(page.getByText('Your card was declined. No money was taken.')).toBeVisible();
    await page.reload();
    await expect(page.getByText('Your card was declined. No money was taken.')).toBeVisible();
    await expect(page.getByLabel('Card number')).toHaveCount(0);
  });

  test('the session’s method is the default tab; bank transfer confirms in one click', async ({ page, request }) => {
    const session = await createSession(request, { paymentMethod: 'bank_transfer' });
    await page.goto(session.url);
    await expect(page.getByRole('tab', { name: 'Bank transfer' })).toHaveAttribute('aria-selected', 'true');
    await page.getByRole('button', { name: /Confirm bank transfer/ }).click();
    await expect(page.getByText('Payment received, your tokens are on the way')).toBeVisible();
  });
});
