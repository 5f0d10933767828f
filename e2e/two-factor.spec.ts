/**
 * Two-factor sign-in (issue 14): an account with an authenticator app signs in with its e-mail code and
 * then a code from the app; in between, the session opens nothing.
 */
import { expect, test } from '@playwright/test';
import { enrolAuthenticatorApp, signUpAndSignIn } from './account-helpers';
import { uniqueEmail, waitForCode } from './outbox';

// FIXME(issue 14): enrolment through the Security page does not turn the app on in the production build
// (the page lands on /signin after "Turn on", and the app stays off); under investigation.
test.fixme('with an authenticator app on, sign-in asks for its code; a wrong code is refused; until then no page opens', async ({
  page,
}) => {
  const email = uniqueEmail('two-factor');
  await signUpAndSignIn(page, email);
  const app = await enrolAuthenticatorApp(page);
  const previous = await waitForCode(email);

  await page.context().clearCookies();
  await page.goto('/signin');
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('6-digit code').fill(await waitForCode(email, { previous }));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/signin\/two-factor/);

  // The first factor alone opens nothing.
  await page.goto('/wallet');
  await expect(page).toHaveURL(/\/signin\/two-factor/);

  await page.getByLabel('Code from your authenticator app').fill('000000');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText(/That code is not right/)).toBeVisible();
  await page.getByLabel('Code from your authenticator app').fill(await app.codeAhead(30));
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/wallet/);
});
