// Smart accounts (issue 30, ADR 0035): the e2e stack turns SMART_ACCOUNT_CHAINS on for its local Polygon node
// (scripts/stack/stack.ts). A new account's Polygon wallet holds USDC and no POL at all; it pays a charge from its
// balance (the gas tank relays its own signed call, delegating it to Simple7702Account on first use), neither the
// wallet nor the deposit addresses ever receive POL, and a purchase inside a spending allowance needs no PIN while
// one above it does.
import { createPublicClient, erc20Abi, http, type Hex } from 'viem';
import { expect, test } from './fixtures';
import { signUpAndSignIn } from './account-helpers';
import { createVerifiedMerchant, withE2eDatabase } from './admin';
import { POLYGON_USDC, polygonRpc, sendUsdcFromOutside } from './chain';
import { createUsdcCharge } from './charges';
import { uniqueEmail } from './outbox';

const PIN = '482915';
/** Simple7702Account v0.8 at its canonical address (lib/chains/smart-account-contracts.ts). */
const SIMPLE_7702_ACCOUNT = '0xe6cae83bde06e4c305530e199d7217f42808555b';
const payButton = (amount: string) => new RegExp(`^Pay ${amount}(\\.00)?\\sUSDC$`);

async function depositAddressOf(chargeId: string): Promise<Hex> {
  return withE2eDatabase(async (sql) => {
    const [row] = await sql<{ address: string }[]>`select address from deposit_addresses where charge_id = ${chargeId}`;
    return row!.address as Hex;
  });
}

/** Gas top-ups the tank ever recorded to these addresses (any status): there must be none. */
async function topUpsTo(addresses: string[]): Promise<number> {
  return withE2eDatabase(async (sql) => {
    const lower = addresses.map((a) => a.toLowerCase());
    const [row] = await sql<{ n: string }[]>`
      select count(*) as n from outbound_transfers where purpose = 'gas_topup' and lower(to_address) = any(${lower})`;
    return Number(row!.n);
  });
}

test('a new Polygon wallet is a smart account: it pays USDC holding no POL, nothing receives POL, an allowance skips the PIN', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const client = createPublicClient({ transport: http(polygonRpc()) });

  // The service says local Polygon takes the sponsored path.
  // (Polled: the first health check may answer before the chain's code check has.)
  await expect
    .poll(async () => (await (await request.get('/api/health')).json()).smartAccounts.POLYGON, { timeout: 20_000 })
    .toEqual({ path: 'sponsored', reason: null });

  const merchant = await createVerifiedMerchant('Smart Arcade');
  await signUpAndSignIn(page, uniqueEmail('smart'), PIN);
  const wallet = (await page.getByTestId('wallet-address').first().textContent())!.trim() as Hex;
  // USDC only, sent on the record from an outside account: the wallet never held POL.
  await sendUsdcFromOutside(wallet, '20');
  expect(await client.getBalance({ address: wallet })).toBe(0n);
  expect(await client.getCode({ address: wallet })).toBeUndefined();

  // 1. The first purchase, with the PIN, approving a 5 USDC a day allowance for this merchant.
  const first = await createUsdcCharge(request, merchant.liveKey, '2', { cancelUrl: null });
  await page.goto(first.paymentUrl);
  await page.getByLabel('PIN').fill(PIN);
  await page.getByRole('checkbox', { name: /Approve a spending allowance for Smart Arcade/ }).check();
  await page.getByLabel('USDC per day').fill('5');
  await page.getByLabel('For days (1–90)').fill('30');
  await page.getByRole('button', { name: payButton('2') }).click();
  await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });

  // The wallet is now an EIP-7702 smart account: its code is the delegation to Simple7702Account.
  expect((await client.getCode({ address: wallet }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT.slice(2)}`);
  expect(await client.getBalance({ address: wallet })).toBe(0n);

  // 2. Inside the allowance: one tap, no PIN.
  const second = await createUsdcCharge(request, merchant.liveKey, '2', { cancelUrl: null });
  await page.goto(second.paymentUrl);
  await expect(page.getByTestId('allowance-one-tap')).toBeVisible();
  await expect(page.getByLabel('PIN')).toHaveCount(0);
  await page.getByRole('button', { name: payButton('2') }).click();
  await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });

  // 3. Above what is left today (3 USDC): the PIN is asked for, and with it the purchase completes.
  const third = await createUsdcCharge(request, merchant.liveKey, '4', { cancelUrl: null });
  await page.goto(third.paymentUrl);
  await expect(page.getByTestId('allowance-one-tap')).toHaveCount(0);
  await expect(page.getByLabel('PIN')).toBeVisible();
  await page.getByLabel('PIN').fill(PIN);
  await page.getByRole('button', { name: payButton('4') }).click();
  await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });

  // Read the chain: the wallet paid 8 USDC and still holds no POL; the deposit addresses never got POL, also once
  // their sweeps (relayed too) have moved the USDC on to the merchant.
  const balanceOf = (address: Hex) =>
    client.readContract({ address: POLYGON_USDC, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
  expect(await balanceOf(wallet)).toBe(12_000_000n);
  expect(await client.getBalance({ address: wallet })).toBe(0n);
  const deposits = await Promise.all([first, second, third].map((charge) => depositAddressOf(charge.chargeId)));
  for (const deposit of deposits) {
    await expect.poll(() => balanceOf(deposit), { timeout: 90_000 }).toBe(0n);
    expect(await client.getBalance({ address: deposit })).toBe(0n);
  }
  expect(await topUpsTo([wallet, ...deposits])).toBe(0);
});
