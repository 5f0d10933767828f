/**
 * Issue 29's journey on Solana, every step on the local cluster (RPC_URL_SOLANA / _DEVNET of the stack): a
 * consumer pays a Solana charge from their Chargeport balance with the PIN, the merchant refunds part of it
 * to the payer, then withdraws the rest from the Balances tab. No wallet holds SOL for fees: the service's
 * gas tank pays them as fee payer (lib/transactions/solana/).
 *
 * Needs the local Solana cluster of the launcher (requestAirdrop, finality advancing on a clock) serving the
 * test network, since a merchant made here has a test key (an unverified merchant: no second factor needed
 * for its withdrawals). Written with issue 29 point 2; run by the lead once the cluster (point 1) is merged.
 */
import { generateKeyPairSigner } from '@solana/kit';
import { expect, test } from './fixtures';
import { signUpAndSignIn } from './account-helpers';
import { merchantApi } from './api';
import { uniqueEmail } from './outbox';
import { localRpc } from './chain';

const SOL_MINT = 'So11111111111111111111111111111111111111112';
const OWNER_PIN = '482915';
const PAYER_PIN = '246813';

/** The stack's Solana test network: its local cluster (the launcher's runtime file names it). */
const solanaRpcUrl = () => localRpc('SOLANA_DEVNET');

async function solanaRpc<T>(method: string, params: unknown[]): Promise<T> {
  const response = await fetch(solanaRpcUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

const lamportsOf = async (address: string) =>
  BigInt((await solanaRpc<{ value: number }>('getBalance', [address, { commitment: 'confirmed' }])).value);

test('Solana: pay from balance with the PIN, refund part to the payer, withdraw the rest — no wallet pays a fee', async ({
  browser,
  request,
}) => {
  test.setTimeout(180_000);

  // The merchant: a new account that becomes a merchant (its test key).
  const merchantPage = await (await browser.newContext()).newPage();
  await signUpAndSignIn(merchantPage, uniqueEmail('sol-owner'), OWNER_PIN);
  await merchantPage.goto('/account/profile');
  await merchantPage.getByLabel('Business name').fill('Sol Games');
  await merchantPage.getByRole('button', { name: 'Become a merchant' }).click();
  const testKey = (await merchantPage.getByTestId('new-test-key').textContent())!.trim();

  // The consumer: 0.5 SOL in their Solana service wallet, exactly the price (nothing left for a fee).
  const payerPage = await (await browser.newContext()).newPage();
  await signUpAndSignIn(payerPage, uniqueEmail('sol-payer'), PAYER_PIN);
  await payerPage.goto('/wallet/receive');
  const payer = (await payerPage
    .locator('[data-testid="receive-wallet"][data-family="solana"]')
    .getByTestId('receive-address')
    .textContent())!.trim();
  await solanaRpc('requestAirdrop', [payer, 500_000_000]);
  await expect.poll(() => lamportsOf(payer), { timeout: 30_000 }).toBe(500_000_000n);

  // A SOL charge (the test key: Solana's test network), paid from the balance with the PIN.
  const charge = await merchantApi(request, testKey).createCharge({
    chargeData: {
      symbol: 'SOL',
      chain: 'SOLANA',
      tokenAddress: SOL_MINT,
      amount: '0.5',
      items: [{ name: 'Gem pack', amount: '0.5', quantity: 1 }],
    },
  });
  await payerPage.goto(charge.paymentUrl);
  await expect(payerPage.getByRole('tab', { name: 'Balance' })).toHaveAttribute('aria-selected', 'true');
  await expect(payerPage.getByTestId('balance')).toContainText('SOL');
  await payerPage.getByLabel('PIN').fill(PAYER_PIN);
  await payerPage.getByRole('button', { name: 'Pay 0.5 SOL', exact: true }).click();
  await expect(payerPage.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 60_000 });
  expect(await lamportsOf(payer)).toBe(0n); // the gas tank paid the fee

  // The merchant refunds 0.2 SOL to the payer (the default destination) with the PIN.
  await merchantPage.goto(`/dashboard/charges/${charge.chargeId}`);
  const refunds = merchantPage.getByTestId('refunds');
  await expect(refunds).toContainText('Refundable now: 0.5 SOL');
  await refunds.getByLabel('Amount (SOL)').fill('0.2');
  await refunds.getByLabel('Your PIN').fill(OWNER_PIN);
  await refunds.getByRole('button', { name: 'Refund' }).click();
  await expect(refunds.getByText(new RegExp(`^Refund rf_\\w+ of 0\\.2 SOL to ${payer}`))).toBeVisible();
  await expect
    .poll(
      async () => {
        await merchantPage.reload();
        return refunds.getByTestId('refund-row').first().textContent();
      },
      { timeout: 60_000 },
    )
    .toContain('Refunded');
  expect(await lamportsOf(payer)).toBe(200_000_000n);

  // The rest (0.3 SOL) is swept into the merchant's Solana wallet; the owner withdraws it all.
  await merchantPage.goto('/dashboard/balances');
  const solRow = merchantPage
    .getByTestId('balance-row')
    .filter({ hasText: 'SOL' })
    .filter({ hasText: /Solana/ });
  await expect
    .poll(
      async () => {
        await merchantPage.reload();
        return solRow.locator('td').last().textContent();
      },
      { timeout: 60_000 },
    )
    .toBe('0.3');
  const destination = (await generateKeyPairSigner()).address;
  const solOption = await merchantPage
    .getByLabel('Token')
    .locator('option', { hasText: /^SOL on Solana/ })
    .first()
    .getAttribute('value');
  await merchantPage.getByLabel('Token').selectOption(solOption!);
  await merchantPage.getByLabel('Amount').fill('0.3');
  await merchantPage.getByLabel('To address').fill(destination);
  await merchantPage.getByLabel('Your PIN').fill(OWNER_PIN);
  await merchantPage.getByRole('button', { name: 'Withdraw' }).click();
  await expect(merchantPage.getByText(/Withdrawal sent: [1-9A-HJ-NP-Za-km-z]{64,88}/)).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => lamportsOf(destination), { timeout: 60_000 }).toBe(300_000_000n);
  // The Balances tab reads balances through a 15-second cache (lib/wallets/cached-balance.ts).
  await expect
    .poll(
      async () => {
        await merchantPage.reload();
        return solRow.locator('td').last().textContent();
      },
      { timeout: 30_000 },
    )
    .toBe('0');
});
