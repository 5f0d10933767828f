/**
 * Two-factor sign-in (issue 14): an account with an authenticator app signs in with its e-mail code and
 * then a code from the app (or a recovery code, once); in between, the session opens nothing, and
 * wrong codes are limited per account.
 */
import { expect, test, type Page } from './fixtures';
import { enrolAuthenticatorApp, signUpAndSignIn } from './account-helpers';
import { uniqueEmail, waitForCode } from './outbox';

/** Signs out, then passes the first step (e-mail code): the page lands on the second step. */
async function firstStep(page: Page, email: string, previous: string): Promise<string> {
  await page.context().clearCookies();
  await page.goto('/signin');
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  const code = await waitForCode(email, { previous });
  await page.getByLabel('6-digit code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/signin\/two-factor/);
  return code;
}

/** Submits the second-step form once and waits for the server's answer. */
async function submitSecondStep(page: Page, label: string, code: string): Promise<void> {
  await page.getByLabel(label).fill(code);
  await Promise.all([
    page.waitForResponse((response) => response.request().method() === 'POST'),
    page.getByRole('button', { name: 'Continue' }).click(),
  ]);
}

test('with an authenticator app on, sign-in asks for its code; a recovery code works once; wrong codes are limited', async ({ page }) => {
  const email = uniqueEmail('two-factor');
  await signUpAndSignIn(page, email);
  const app = await enrolAuthenticatorApp(page);
  let previous = await waitForCode(email);

  previous = await firstStep(page, email, previous);
  // The first factor alone opens nothing.
  await page.goto('/wallet');
  await expect(page).toHaveURL(/\/signin\/two-factor/);
  await submitSecondStep(page, 'Code from your authenticator app', '000000');
  await expect(page.getByText(/That code is not right/)).toBeVisible();
  await page.getByLabel('Code from your authenticator app').fill(await app.codeAhead(30));
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/wallet/);

  // A recovery code stands in for the app, once.
  const recovery = app.recoveryCodes[0]!;
  previous = await firstStep(page, email, previous);
  await page.getByRole('button', { name: 'Use a recovery code' }).click();
  await page.getByLabel('Recovery code').fill(recovery);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/wallet/);

  await firstStep(page, email, previous);
  await page.getByRole('button', { name: 'Use a recovery code' }).click();
  await submitSecondStep(page, 'Recovery code', recovery);
  await expect(page.getByText(/That recovery code is not right or was already used/)).toBeVisible();

  // Wrong codes count per account (10 per 10 minutes): past the limit even the right code is refused.
  await page.getByRole('button', { name: 'Use your authenticator app' }).click();
  for (let attempt = 0; attempt < 10 && !(await page.getByText(/Too many attempts/).isVisible()); attempt += 1) {
    await submitSecondStep(page, 'Code from your authenticator app', '000000');
  }
  await expect(page.getByText(/Too many attempts/)).toBeVisible();
  await submitSecondStep(page, 'Code from your authenticator app', await app.codeAhead(60));
  await expect(page.getByText(/Too many attempts/)).toBeVisible();
  await page.goto('/wallet');
  await expect(page).toHaveURL(/\/signin\/two-factor/);
});
