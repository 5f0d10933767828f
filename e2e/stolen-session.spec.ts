/**
 * A stolen session (issue 26, finding N1): a second browser holding only the victim's session cookie
 * cannot turn on an authenticator app or add a passkey — the Security page asks for the PIN, a passkey
 * or an e-mail code up front, and the server refuses without one and stores nothing. The victim's
 * mailbox (the stack's dev outbox) shows what was tried; the victim's own passkey, confirmed with the
 * PIN, is e-mailed too, ends the thief's session, and is shown cooling down for live payments. Desktop
 * only (Chromium's virtual authenticator, as in e2e/passkeys.spec.ts).
 */
import { expect, test, type Page } from '@playwright/test';
import { signUpAndSignIn } from './account-helpers';
import { uniqueEmail, waitForEmailMatch } from './outbox';

/** The thief is not bound by the browser's form validation: the PIN fields stop insisting, so the server decides. */
async function dropRequiredPin(page: Page): Promise<void> {
  await page.locator('input[name="pin"]').evaluateAll((inputs) => inputs.forEach((input) => input.removeAttribute('required')));
}

/** A platform authenticator with user verification that always answers "yes" (no prompt to click). */
async function addVirtualAuthenticator(page: Page): Promise<{ credentialCount: () => Promise<number> }> {
  const session = await page.context().newCDPSession(page);
  await session.send('WebAuthn.enable');
  const { authenticatorId } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    credentialCount: async () => (await session.send('WebAuthn.getCredentials', { authenticatorId })).credentials.length,
  };
}

test('a stolen session cannot turn on an authenticator app or add a passkey; the victim is e-mailed', async ({ page, browser }) => {
  const email = uniqueEmail('stolen');
  await signUpAndSignIn(page, email);
  await waitForEmailMatch(email, /(your PIN was set|A PIN was set)/);

  // The thief's browser gets the session cookie only (an infostealer's loot), not the PIN.
  const session = (await page.context().cookies()).filter((cookie) => cookie.name.includes('session'));
  expect(session.length).toBeGreaterThan(0);
  const thiefContext = await browser.newContext({ baseURL: new URL(page.url()).origin });
  await thiefContext.addCookies(session);
  const thief = await thiefContext.newPage();
  const thiefAuthenticator = await addVirtualAuthenticator(thief);
  await thief.goto('/account/security');
  await expect(thief).toHaveURL(/\/account\/security/);

  // The page says what it will ask for before anything is filled.
  const addPasskey = thief.getByTestId('add-passkey');
  await expect(addPasskey.getByTestId('factor-proof')).toContainText('Confirm with your PIN or a passkey');

  // An authenticator app: the secret is handed out, but turning it on without the PIN is refused.
  await thief.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await expect(thief.getByTestId('totp-secret')).toBeVisible();
  const turnOn = thief.locator('form').filter({ has: thief.getByRole('button', { name: 'Turn on' }) });
  await expect(turnOn.getByTestId('factor-proof')).toContainText('Confirm with your PIN or a passkey');
  await turnOn.getByLabel('Code from the app').fill('123456');
  await expect(turnOn.getByLabel('Your PIN')).toHaveAttribute('required', '');
  await dropRequiredPin(thief);
  await turnOn.getByRole('button', { name: 'Turn on' }).click();
  await expect(turnOn.getByText('Confirm with your PIN or a passkey: a session alone cannot change how you sign in.')).toBeVisible();
  await expect(thief.getByTestId('totp-enabled')).toHaveCount(0);

  // The victim's mailbox shows what was tried, from where.
  expect(await waitForEmailMatch(email, /(tried to turn on an authenticator app)/)).toBeTruthy();

  // A passkey: the thief's authenticator makes a credential, but the server stores none without the PIN.
  await addPasskey.getByLabel('Name of the new passkey').fill('Thief key');
  await dropRequiredPin(thief);
  await addPasskey.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(addPasskey.getByText('Confirm with your PIN or a passkey: a session alone cannot change how you sign in.')).toBeVisible();
  expect(await thiefAuthenticator.credentialCount()).toBe(1);
  await thief.reload();
  await expect(thief.getByTestId('passkeys').locator('li')).toHaveCount(0);
  // A guessed PIN is refused (and counted like every PIN entry).
  await thief.getByTestId('add-passkey').getByLabel('Name of the new passkey').fill('Thief key');
  await thief.getByTestId('add-passkey').getByLabel('Your PIN').fill('000000');
  await thief.getByTestId('add-passkey').getByRole('button', { name: 'Add a passkey' }).click();
  await expect(thief.getByTestId('add-passkey').getByText(/Wrong PIN/)).toBeVisible();
  await thief.reload();
  await expect(thief.getByTestId('passkeys').locator('li')).toHaveCount(0);

  // The victim adds their own passkey with the PIN: e-mailed, shown cooling down, and the thief's session ends.
  await addVirtualAuthenticator(page);
  await page.goto('/account/security');
  await expect(page.getByTestId('passkeys').locator('li')).toHaveCount(0);
  const mine = page.getByTestId('add-passkey');
  await mine.getByLabel('Name of the new passkey').fill('My laptop');
  await mine.getByLabel('Your PIN').fill('482915');
  await mine.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(page.getByTestId('recovery-codes')).toBeVisible();
  expect(await waitForEmailMatch(email, /(A passkey named “My laptop” was added)/)).toBeTruthy();
  await page.reload();
  await expect(page.getByTestId('passkeys')).toContainText('My laptop');
  await expect(page.getByTestId('factor-cooling')).toContainText('Usable for payments from');

  await thief.goto('/account/security');
  await expect(thief).toHaveURL(/\/signin/);
  await thiefContext.close();
});
