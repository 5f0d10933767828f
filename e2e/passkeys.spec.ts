/**
 * Passkeys in Chromium (issue 14): a passkey enrolled under Account → Security is the second factor at
 * the next sign-in and stands in for the PIN in a step-up. The browser's own WebAuthn code runs against
 * Chromium's virtual authenticator (DevTools protocol), so the page, @simplewebauthn/browser and the
 * server's verification are all the real ones. Desktop only (Chromium's CDP).
 */
import { expect, test } from './fixtures';
import { signUpAndSignIn } from './account-helpers';
import { uniqueEmail, waitForCode } from './outbox';
import { addVirtualAuthenticator } from './virtual-authenticator';

test('a passkey is the second factor at sign-in and stands in for the PIN in a step-up', async ({ page }) => {
  const authenticator = await addVirtualAuthenticator(page);
  const email = uniqueEmail('passkey');
  await signUpAndSignIn(page, email);
  const firstCode = await waitForCode(email);

  // Enrol under Account → Security, confirmed with the PIN: the authenticator now holds one credential,
  // the page lists it, still cooling down for live payments.
  await page.goto('/account/security');
  const add = page.getByTestId('add-passkey');
  await add.getByLabel('Name of the new passkey').fill('Test laptop');
  await add.getByLabel('Your PIN').fill('482915');
  await add.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(page.getByTestId('recovery-codes')).toBeVisible();
  expect(await authenticator.credentialCount()).toBe(1);
  await page.reload();
  await expect(page.getByTestId('passkeys')).toContainText('Test laptop');
  await expect(page.getByTestId('passkeys')).toContainText('Usable for payments from');
  const codesBefore = await page.getByTestId('recovery-codes-left').textContent();

  // Sign out and in again: after the e-mail code the session opens nothing until the passkey answers.
  await page.context().clearCookies();
  await page.goto('/signin');
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('6-digit code').fill(await waitForCode(email, { previous: firstCode }));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/signin\/two-factor/);
  await page.goto('/wallet');
  await expect(page).toHaveURL(/\/signin\/two-factor/);
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await expect(page).toHaveURL(/\/wallet/);

  // A step-up with the passkey instead of the PIN: new recovery codes (the PIN field is left empty).
  await page.goto('/account/security');
  const recovery = page.locator('form').filter({ has: page.getByRole('button', { name: 'New recovery codes' }) });
  await recovery.getByRole('button', { name: 'Use a passkey instead' }).click();
  await expect(recovery.getByTestId('step-up-passkey-ready')).toBeVisible();
  await recovery.getByRole('button', { name: 'New recovery codes' }).click();
  await expect(recovery.getByTestId('recovery-codes')).toBeVisible();

  // The same assertion sent again is refused: its challenge was used up by the step-up above.
  await recovery.getByRole('button', { name: 'New recovery codes' }).click();
  await expect(recovery.getByText('The passkey did not confirm it is you. Try again, or enter your PIN.')).toBeVisible();
  await expect(recovery.getByTestId('recovery-codes')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('recovery-codes-left')).toHaveText(codesBefore!);
});
