import { expect, test, type APIRequestContext } from './fixtures';
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { CHAINS } from '@/lib/chains/registry';
import { localDemoPayerAccount } from '@/scripts/stack/local-chain';
import { LOCAL_SWAP_ADDRESSES } from '@/lib/chains/provision-local-swap';
import { signUpAndSignIn } from './account-helpers';
import { createVerifiedMerchant } from './admin';
import { localRpc } from './chain';
import { merchantApi } from './api';
import { uniqueEmail } from './outbox';
import { E2E_COUNTRY_HEADER } from '../playwright.config';

const PZP = LOCAL_SWAP_ADDRESSES.pzp;
const BSC_USDC = CHAINS.BSC.tokens.find((t) => t.symbol === 'USDC')!.address as Address;

/** The spec's swap on-ramp charge: PZP on BSC, direct transfer to the wallet that should receive it. */
async function createPzpCharge(request: APIRequestContext, liveKey: string, amount: string, toAddress: Address) {
  return merchantApi(request, liveKey).createCharge({
    chargeData: { symbol: 'PZP', chain: 'BSC', tokenAddress: PZP, amount, toAddress, items: [{ name: 'PZP top-up', amount, quantity: 1 }] },
    isDirectTransfer: true,
  });
}

/** USDC on BSC from an outside wallet (anvil's dev account #1) into the payer's service wallet. */
async function sendBscUsdc(to: string, amount: string): Promise<void> {
  const transport = http(localRpc('BSC'));
  const wallet = createWalletClient({ account: localDemoPayerAccount, transport });
  const hash = await wallet.writeContract({
    address: BSC_USDC,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to as Address, parseUnits(amount, 18)],
    chain: null,
  });
  await createPublicClient({ transport }).waitForTransactionReceipt({ hash });
}

async function pzpBalance(owner: Address): Promise<bigint> {
  return createPublicClient({ transport: http(localRpc('BSC')) }).readContract({
    address: PZP,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

test.describe('swap on-ramp (PZP on BNB Smart Chain)', () => {
  test('outside the United States, a signed-in payer swaps USDC they hold into the PZP due; the charge succeeds and toAddress receives it', async ({
    page,
    request,
    context,
    baseURL,
  }) => {
    const merchant = await createVerifiedMerchant('PZP Studio');
    const toAddress = privateKeyToAccount(generatePrivateKey()).address;
    const charge = await createPzpCharge(request, merchant.liveKey, '40', toAddress);
    await context.addCookies([{ name: 'cp_country', value: 'DE', url: baseURL! }]);
    await context.setExtraHTTPHeaders({ [E2E_COUNTRY_HEADER]: 'DE' });

    await signUpAndSignIn(page, uniqueEmail('swapper'), '482915');
    await page.goto(charge.paymentUrl);
    // No PZP in the wallet: the balance section says where to top up — the payer's BSC service wallet.
    const wallet = (await page.getByTestId('top-up-address').textContent())!.trim();
    await sendBscUsdc(wallet, '25');

    await page.getByRole('tab', { name: 'With USDC' }).click();
    const panel = page.getByTestId('swap-onramp');
    await expect(panel).toBeVisible();
    // One choice: buy with card, or pay with USDC held. The card branch offers the provider that supports BSC here; the other says why not.
    await panel.getByTestId('swap-choice-card').click();
    await expect(page.getByTestId('swap-provider-moonpay')).toContainText('only Transak supports BNB Smart Chain in Germany');
    await expect(page.getByTestId('swap-provider-transak')).toBeVisible();
    await expect(panel.getByRole('button', { name: 'Get a quote' })).toBeHidden();
    await panel.getByTestId('swap-choice-held').click();

    await panel.getByRole('button', { name: 'Get a quote' }).click();
    const quote = page.getByTestId('swap-held-quote');
    await expect(quote).toBeVisible();
    await expect(quote.getByTestId('swap-amount-out')).toHaveText('40 PZP');
    await expect(quote).toContainText('USDC per PZP');
    await expect(quote).toContainText('1%');
    await expect(page.getByTestId('swap-usdc-balance')).toHaveText('25.00 USDC');
    // The details keep the exact maximum; the button rounds it up to cents, never below it.
    const max = (await quote.getByTestId('swap-amount-in-max').textContent())!.trim();
    expect(max).toMatch(/^\d+\.\d+ USDC$/);
    const [whole, fraction = ''] = max.split(' ')[0]!.split('.');
    const cents = BigInt(whole + fraction.slice(0, 2).padEnd(2, '0')) + (/[1-9]/.test(fraction.slice(2)) ? 1n : 0n);
    const shown = `${cents / 100n}.${String(cents % 100n).padStart(2, '0')} USDC`;

    await page.getByLabel('PIN to swap').fill('482915');
    await page.getByRole('button', { name: `Swap at most ${shown} and pay` }).click();
    // Sent: the form says so, or — once the page sees the swap in flight — every way to pay gives way to its progress;
    // on a fast local chain the page may see the charge paid before either shows.
    const paid = page.locator('[data-testid="live-status"][data-status="succeeded"]');
    await expect(page.getByTestId('swap-sent').or(page.getByTestId('payment-in-flight')).or(paid)).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });

    // The sweep delivers exactly the charge's PZP to toAddress.
    await expect.poll(() => pzpBalance(toAddress), { timeout: 30_000 }).toBe(parseUnits('40', 18));
  });

  test('in the United States the panel says the flow is unavailable and why, whatever location is picked', async ({
    page,
    request,
    context,
    baseURL,
  }) => {
    const merchant = await createVerifiedMerchant('PZP US Studio');
    const charge = await createPzpCharge(request, merchant.liveKey, '10', privateKeyToAccount(generatePrivateKey()).address);
    // The CDN locates the request in the US; the selector saying Germany does not unlock the swap.
    await context.setExtraHTTPHeaders({ [E2E_COUNTRY_HEADER]: 'US' });
    await context.addCookies([{ name: 'cp_country', value: 'DE', url: baseURL! }]);
    await page.goto(charge.paymentUrl);
    await page.getByRole('tab', { name: 'With USDC' }).click();
    await expect(page.getByTestId('swap-unavailable')).toContainText('not available in the United States');
    await expect(page.getByRole('button', { name: 'Get a quote' })).toHaveCount(0);
  });
});
