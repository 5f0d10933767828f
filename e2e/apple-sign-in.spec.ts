/**
 * Apple sign-up through the development stand-in (a real OpenID provider on loopback): its screen says
 * what it stands in for, and the answer reaches the app as a cross-site form POST (response_mode=form_post).
 */
import { expect, test } from './fixtures';
import { uniqueEmail, waitForEmailMatch } from './outbox';

test('Apple sign-up: the stand-in says what it is, the form_post answer signs the new account in', async ({ page }) => {
  const email = uniqueEmail('apple');
  await page.goto('/signup');
  await page.getByRole('button', { name: 'Continue with Apple' }).click();
  await expect(page.getByTestId('stand-in-note')).toContainText('Local stand-in for Apple sign-in');
  await page.getByLabel('E-mail of the Apple account').fill(email);
  const formPost = page.waitForRequest((request) => request.method() === 'POST' && request.url().includes('/api/auth/callback/apple'));
  await page.getByRole('button', { name: 'Continue' }).click();
  expect(new URLSearchParams((await formPost).postData() ?? '').get('code')).toBeTruthy();
  await expect(page).toHaveURL(/\/(wallet|account\/pin)/);
  await page.goto('/wallet');
  await expect(page.getByTestId('signed-in-as')).toHaveText(email);

  // Rule 4 (docs/adr/0029-the-code-is-the-password.md): the e-mail and code inputs do not sign in an account created with Apple.
  await page.context().clearCookies();
  await page.goto('/signin');
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/signin\/code/);
  expect(await waitForEmailMatch(email, /(created with Apple: continue with Apple)/)).toBeTruthy();
  await page.getByLabel('6-digit code').fill('000000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('That code is not right. 4 tries left.')).toBeVisible();
  await page.goto('/wallet');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fwallet/);
});
