/**
 * Apple sign-up through the development stand-in (a real OpenID provider on loopback): its screen says
 * what it stands in for, and the answer reaches the app as a cross-site form POST (response_mode=form_post).
 */
import { expect, test } from '@playwright/test';
import { uniqueEmail } from './outbox';

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
});
