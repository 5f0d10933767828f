import { expect, test, type APIRequestContext } from './fixtures';
import { signUpAndSignIn } from './account-helpers';
import { merchantApi, TEST_POL, type CreateChargeInput } from './api';
import { sendNativeFromOutside } from './chain';
import { uniqueEmail, waitForEmailMatch } from './outbox';

const testCharge: CreateChargeInput = { chargeData: { ...TEST_POL, amount: '1' }, isTest: true };
/** Whether `key` may create a charge: the status is the point here (a rolled key is refused at once). */
const createChargeStatus = async (request: APIRequestContext, key: string) =>
  (await merchantApi(request, key).createChargeResponse(testCharge)).status();

test('API Keys and Members tabs: the owner creates a key (shown once) that works, rolls it, invites a viewer who cannot create keys', async ({
  page,
  browser,
  request,
}) => {
  const ownerEmail = uniqueEmail('keys-owner');
  await signUpAndSignIn(page, ownerEmail);
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill('Keymaker Games');
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  await expect(page.getByTestId('new-test-key')).toBeVisible();

  await page.goto('/dashboard');
  await expect(page.getByTestId('dashboard-test-banner')).toBeVisible();
  await page.getByRole('link', { name: 'API Keys' }).click();
  await expect(page.getByRole('heading', { name: 'API Keys (test)' })).toBeVisible();
  await expect(page.getByTestId('api-key-row')).toHaveCount(1);

  await page.getByLabel('Name').fill('Game server');
  await page.getByRole('button', { name: 'Create key' }).click();
  const plaintext = (await page.getByTestId('new-key').textContent())!.trim();
  expect(plaintext).toMatch(/^cp_test_/);
  await expect(page.getByTestId('api-key-row')).toHaveCount(2);
  expect(await createChargeStatus(request, plaintext)).toBe(200);
  await page.reload();
  // Shown once: after a reload only the prefix remains, and "last used" is filled in.
  await expect(page.getByTestId('new-key')).toHaveCount(0);
  const row = page.getByTestId('api-key-row').filter({ hasText: 'Game server' });
  await expect(row.getByTestId('last-used')).not.toHaveText('never');
  // Its first request pinned it to the current API version (a date, lib/api/resolve-api-version.ts).
  await expect(row.getByTestId('api-version')).toHaveText(/^\d{4}-\d{2}-\d{2}$/);

  // Roll with no overlap: the old key stops at once, the new one works.
  await row.getByLabel('Old key keeps working for').selectOption('0');
  await row.getByRole('button', { name: 'Roll' }).click();
  const rolled = (await page.getByTestId('rolled-key').textContent())!.trim();
  expect(rolled).not.toBe(plaintext);
  expect(await createChargeStatus(request, plaintext)).toBe(401);
  expect(await createChargeStatus(request, rolled)).toBe(200);

  // The owner invites a viewer on the Members tab; the viewer accepts from the e-mailed link.
  const viewerEmail = uniqueEmail('keys-viewer');
  await page.getByRole('link', { name: 'Members' }).click();
  await page.getByLabel('E-mail').fill(viewerEmail);
  await page.getByRole('combobox', { name: 'Role', exact: true }).selectOption('viewer');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByRole('status')).toContainText(`Invitation sent to ${viewerEmail}`);
  await expect(page.getByTestId('invitation-row')).toContainText(viewerEmail);
  const link = await waitForEmailMatch(viewerEmail, /(\/invitations\/[\w-]+)/);

  const viewerContext = await browser.newContext();
  const viewer = await viewerContext.newPage();
  await signUpAndSignIn(viewer, viewerEmail);
  await viewer.goto(link);
  await expect(viewer.getByRole('heading', { name: 'Join Keymaker Games' })).toBeVisible();
  await viewer.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(viewer).toHaveURL(/\/dashboard$/);
  await expect(viewer.getByTestId('dashboard-merchant')).toHaveText('Keymaker Games');
  await viewer.goto('/dashboard/settings/api-keys');
  await expect(viewer.getByTestId('api-key-row').first()).toBeVisible();
  await expect(viewer.getByTestId('keys-read-only')).toContainText('viewer');
  await expect(viewer.getByRole('button', { name: 'Create key' })).toHaveCount(0);
  await expect(viewer.getByRole('button', { name: 'Roll' })).toHaveCount(0);
  await viewerContext.close();
});

test('the audit log shows owners what changed', async ({ page }) => {
  await signUpAndSignIn(page, uniqueEmail('audit-owner'));
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill('Ledger Games');
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  await expect(page.getByTestId('new-test-key')).toBeVisible();
  await page.goto('/dashboard/settings/api-keys');
  await page.getByLabel('Name').fill('Audited');
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByTestId('new-key')).toBeVisible();
  await page.getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByTestId('audit-entry').first()).toContainText('api_key.create');
  await expect(page.getByTestId('audit-entry').first()).toContainText('(owner)');
});

test('Profile tab: the owner renames the business and sets a logo; the checkout shows both', async ({ page, request }) => {
  await signUpAndSignIn(page, uniqueEmail('profile-owner'));
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill('Draft Name Games');
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  const testKey = (await page.getByTestId('new-test-key').textContent())!.trim();

  await page.goto('/dashboard/settings/profile');
  await expect(page.getByTestId('profile-verification-status')).toHaveText('not verified');
  await page.getByLabel('Business name').fill('Comet Games');
  await page.getByLabel('Logo URL').fill('http://insecure.example/logo.png');
  await page.getByRole('button', { name: 'Save profile' }).click();
  await expect(page.getByText('Logo URL must be an https:// image URL.')).toBeVisible();
  await page.getByLabel('Logo URL').fill('https://cdn.comet.example/logo.png');
  await page.getByRole('button', { name: 'Save profile' }).click();
  await expect(page.getByText('Profile saved.')).toBeVisible();
  await expect(page.getByTestId('dashboard-merchant')).toHaveText('Comet Games');

  await page.goto((await merchantApi(request, testKey).createCharge(testCharge)).paymentUrl);
  await expect(page.getByTestId('merchant-name')).toHaveText('Comet Games');
  await expect(page.getByTestId('merchant-logo')).toHaveAttribute('src', 'https://cdn.comet.example/logo.png');
});

test('Tokens tab and the test/live switch: the live list shows main networks; a token disabled there stays disabled', async ({ page }) => {
  await signUpAndSignIn(page, uniqueEmail('tokens-owner'));
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill('Token Forge');
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  await expect(page.getByTestId('new-test-key')).toBeVisible();

  await page.goto('/dashboard/settings/tokens');
  await expect(page.getByRole('heading', { name: 'Tokens (test)' })).toBeVisible();
  await expect(page.getByTestId('tokens')).toContainText('Polygon Amoy (test)');
  await expect(page.getByTestId('tokens')).not.toContainText('USDC');

  await page.getByRole('button', { name: 'Live' }).click();
  await expect(page.getByRole('heading', { name: 'Tokens (live)' })).toBeVisible();
  await expect(page.getByTestId('dashboard-test-banner')).toHaveCount(0);
  const usdc = page.getByTestId('token-row').filter({ hasText: 'USDC' }).filter({ hasText: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' });
  await expect(usdc.getByTestId('token-state')).toHaveText('Accepted');
  await usdc.getByRole('button', { name: 'Disable USDC on POLYGON' }).click();
  await expect(usdc.getByTestId('token-state')).toHaveText('Disabled');
  await page.reload();
  await expect(
    page.getByTestId('token-row').filter({ hasText: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' }).getByTestId('token-state'),
  ).toHaveText('Disabled');
});

test('Linked Accounts and Balances: the merchant wallet with its balance; the owner withdraws with the PIN', async ({ page }) => {
  await signUpAndSignIn(page, uniqueEmail('funds-owner'), '482915');
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill('Vault Games');
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  await expect(page.getByTestId('new-test-key')).toBeVisible();

  await page.goto('/dashboard/settings/linked-accounts');
  const merchantWallet = (await page.getByTestId('merchant-wallet').first().getByTestId('wallet-address').textContent())!.trim();
  expect(merchantWallet).toMatch(/^0x[0-9a-fA-F]{40}$/);
  await expect(page.getByTestId('sign-in-methods')).toContainText('@players.example');

  // Test mode: the merchant wallet holds 2 POL on the local Polygon Amoy node.
  await sendNativeFromOutside('POLYGON_AMOY', merchantWallet, '2');
  await page.getByRole('link', { name: 'Balances' }).click();
  const amoy = page.getByTestId('balance-row').filter({ hasText: 'Polygon Amoy (test)' });
  await expect(amoy.locator('td').last()).toHaveText('2');

  const destination = '0x000000000000000000000000000000000000dEaD';
  await page.getByLabel('Token').selectOption({ label: 'POL on Polygon Amoy (test)' });
  await page.getByLabel('Amount').fill('5');
  await page.getByLabel('To address').fill(destination);
  await page.getByLabel('Your PIN').fill('482915');
  await page.getByRole('button', { name: 'Withdraw' }).click();
  await expect(page.getByText(/The wallet holds 2 POL/)).toBeVisible();

  await page.getByLabel('Amount').fill('0.5');
  await page.getByLabel('Your PIN').fill('482915');
  await page.getByRole('button', { name: 'Withdraw' }).click();
  await expect(page.getByText(/Withdrawal sent: 0x[0-9a-f]{64}/)).toBeVisible({ timeout: 20_000 });
  await page.reload();
  // 2 − 0.5, less the network fee the wallet paid itself (it held native coin, so no gas top-up).
  await expect(page.getByTestId('balance-row').filter({ hasText: 'Polygon Amoy (test)' })).toContainText(/1\.4\d+/);
});
