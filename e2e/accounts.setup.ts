/**
 * The `setup` project: signs up the shared accounts once per run (through the UI, as anyone signs up) and
 * saves their browser storage states for specs that only need someone signed in (see SHARED_ACCOUNTS).
 */
import { test as setup } from '@playwright/test';
import { SHARED_ACCOUNTS, signUpAndSignIn, signUpAndSignInWithoutPin } from './account-helpers';
import { uniqueEmail } from './outbox';

setup('a consumer with a PIN and a wallet nothing funds', async ({ page }) => {
  await signUpAndSignIn(page, uniqueEmail('shared-unfunded'), '482915');
  await page.context().storageState({ path: SHARED_ACCOUNTS.unfunded });
});

setup('a consumer without a PIN', async ({ page }) => {
  await signUpAndSignInWithoutPin(page, uniqueEmail('shared-pinless'));
  await page.context().storageState({ path: SHARED_ACCOUNTS.pinless });
});
