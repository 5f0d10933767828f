import { expect, test } from './fixtures';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { localDemoPayerAccount } from '@/scripts/stack/local-chain';
import { signUpAndSignIn } from './account-helpers';
import { withE2eDatabase } from './admin';
import { merchantApi } from './api';
import { sendNativeFromOutside } from './chain';
import { deployGameItems } from './game-items';
import { uniqueEmail, waitForEmailMatch } from './outbox';

const NATIVE = '0x0000000000000000000000000000000000000000';
test('Contracts tab: the owner registers the game’s ERC-1155 and adds a mint rule, confirming with the PIN; a paid charge fails to mint without the role, and after the grant Retry mints the item to the payer once', async ({
  page,
  request,
}) => {
  const ownerEmail = uniqueEmail('contracts-owner');
  await signUpAndSignIn(page, ownerEmail); // PIN 482915
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill('Itemforge Games');
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  const testKey = (await page.getByTestId('new-test-key').textContent())!.trim();

  await page.goto('/dashboard');
  await page.getByRole('link', { name: 'Contracts' }).first().click();
  await expect(page.getByRole('heading', { name: 'Contracts (test)' })).toBeVisible();
  // Said before any form is filled: changes are an owner's, confirmed with the PIN or a passkey.
  await expect(page.getByTestId('contracts-who-may-change')).toContainText('Only an owner can register contracts');
  await expect(page.getByTestId('contracts-who-may-change')).toContainText('confirming with their PIN or a passkey');
  const serviceWallet = (await page.getByTestId('service-wallet').textContent())!.trim() as Address;
  expect(serviceWallet).toMatch(/^0x[0-9a-fA-F]{40}$/);
  // The service wallet pays the mint's network fee itself here (the gas tank is the fallback).
  await sendNativeFromOutside('POLYGON_AMOY', serviceWallet, '1');

  // An address without code is refused with what to check.
  const form = page.getByRole('form', { name: 'Register a contract' });
  await form.getByLabel('Network').selectOption('POLYGON_AMOY');
  await form.getByLabel('Contract address').fill(privateKeyToAccount(generatePrivateKey()).address);
  await form.getByLabel('Your PIN').fill('482915');
  await form.getByRole('button', { name: 'Register contract' }).click();
  await expect(form.getByRole('alert')).toContainText('has no contract code on Polygon Amoy');

  const items = await deployGameItems();
  await form.getByLabel('Contract address').fill(items.address);
  await form.getByLabel('Label (optional)').fill('Game items');
  // A wrong PIN changes nothing; the right one registers.
  await form.getByLabel('Your PIN').fill('000000');
  await form.getByRole('button', { name: 'Register contract' }).click();
  await expect(form.getByRole('alert')).toContainText('Wrong PIN');
  await expect(page.getByTestId('contract')).toHaveCount(0);
  await form.getByLabel('Contract address').fill(items.address);
  await form.getByLabel('Label (optional)').fill('Game items');
  await form.getByLabel('Your PIN').fill('482915');
  await form.getByRole('button', { name: 'Register contract' }).click();
  await expect(form.getByText(/Registered Journey items: an ERC-1155 with 1 callable function/)).toBeVisible();

  const card = page.getByTestId('contract');
  await expect(card.getByTestId('contract-kind')).toContainText('ERC-1155');
  await expect(card.getByTestId('contract-functions')).toHaveText('mint(address,uint256,uint256)');
  await expect(card.getByTestId('minter-status')).toContainText('No');

  // mint(to, id, amount): the payer, metadata.itemId, the quantity (the form's defaults for these types).
  const ruleForm = page.getByRole('form', { name: `Add a rule to ${items.address}` });
  await expect(ruleForm.getByLabel('Metadata key for id')).toHaveValue('itemId');
  await ruleForm.getByLabel('Your PIN').fill('482915');
  await ruleForm.getByRole('button', { name: 'Add rule' }).click();
  await expect(card.getByTestId('fulfilment-rule')).toContainText('mint(address,uint256,uint256)');
  await expect(card.getByTestId('fulfilment-rule')).toContainText('Active');
  await expect(card.getByTestId('rule-price-list')).toContainText('never fires on charges of publishable keys');
  // The owners hear of it by e-mail.
  await waitForEmailMatch(ownerEmail, /(A fulfilment rule was added)/);

  // A test charge for item 7, paid from an outside wallet on the local Amoy node.
  const { chargeId } = await merchantApi(request, testKey).createCharge({
    chargeData: { symbol: 'POL', chain: 'POLYGON_AMOY', tokenAddress: NATIVE, amount: '0.2', metadata: { itemId: '7' } },
    isTest: true,
  });
  const [deposit] = await withE2eDatabase(
    (sql) => sql<{ address: string }[]>`select address from deposit_addresses where charge_id = ${chargeId}`,
  );
  const itemsBefore = await items.balanceOf(localDemoPayerAccount.address, 7n);
  await sendNativeFromOutside('POLYGON_AMOY', deposit!.address, '0.2');

  // Without the minter role the fulfilment fails, saying why; nothing was minted.
  await page.goto(`/dashboard/charges/${chargeId}`);
  const row = page.getByTestId('fulfilment-row');
  await expect(async () => {
    await page.reload();
    await expect(row).toHaveAttribute('data-status', 'failed', { timeout: 1_000 });
  }).toPass({ timeout: 45_000 });
  await expect(row).toContainText(/role|minter|revert/i);
  expect(await items.balanceOf(localDemoPayerAccount.address, 7n)).toBe(itemsBefore);

  // The merchant grants the role; the tab shows it held; Retry mints the item to the payer, once.
  await items.grantMinter(serviceWallet);
  await page.goto('/dashboard/settings/contracts');
  await expect(page.getByTestId('contract').getByTestId('minter-status')).toHaveText('Yes');
  await page.goto(`/dashboard/charges/${chargeId}`);
  await row.getByRole('button', { name: 'Retry' }).click();
  await expect(async () => {
    await page.reload();
    await expect(row).toHaveAttribute('data-status', 'succeeded', { timeout: 1_000 });
  }).toPass({ timeout: 45_000 });
  await expect(row).toContainText('Delivered');
  await expect(row).toContainText(', 7, 1)');
  expect(await items.balanceOf(localDemoPayerAccount.address, 7n)).toBe(itemsBefore + 1n);
});
