/**
 * Changing the PIN ends the account's other sessions (issue 14), and only those: the device that made
 * the change stays signed in (its session is renewed in the same server action), the other is refused.
 */
import { expect, test } from './fixtures';
import { signUpAndSignIn } from './account-helpers';
import { uniqueEmail, waitForCode } from './outbox';

test('a PIN change signs out the other session and keeps this one', async ({ page, browser }) => {
  const email = uniqueEmail('sessions');
  await signUpAndSignIn(page, email);
  const previous = await waitForCode(email);

  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await otherPage.goto('/signin');
  await otherPage.getByLabel('E-mail').fill(email);
  await otherPage.getByRole('button', { name: 'Send me a code' }).click();
  await otherPage.getByLabel('6-digit code').fill(await waitForCode(email, { previous }));
  await otherPage.getByRole('button', { name: 'Sign in' }).click();
  await expect(otherPage).toHaveURL(/\/wallet/);

  await page.goto('/account/pin');
  await page.getByLabel('Current PIN').fill('482915');
  await page.getByLabel('New PIN (6 digits)').fill('639205');
  await page.getByLabel('Repeat the new PIN').fill('639205');
  await page.getByRole('button', { name: 'Change PIN' }).click();
  await expect(page.getByText('Your other sessions were signed out')).toBeVisible();
  await page.goto('/wallet');
  await expect(page).toHaveURL(/\/wallet/);

  await otherPage.goto('/wallet');
  await expect(otherPage).toHaveURL(/\/signin/);
  await other.close();
});
