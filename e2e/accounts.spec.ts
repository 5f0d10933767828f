import { expect, test } from './fixtures';
import { installTestWallet, setGoogleIdentity, signUpAndSignIn } from './account-helpers';
import { uniqueEmail, waitForCode, waitForEmailMatch } from './outbox';

test.describe('accounts', () => {
  test('e-mail sign-up → forced re-login with a new code → PIN prompt → PIN set', async ({ page }) => {
    const email = uniqueEmail('signup');
    await page.goto('/signup');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();

    const signUpCode = await waitForCode(email);
    await page.getByLabel('6-digit code').fill(signUpCode);
    await page.getByRole('button', { name: 'Create account' }).click();

    // Rule 3: registration does not sign in; the user logs in again, with a new code.
    await expect(page).toHaveURL(/\/signin\?/);
    await expect(page.getByRole('status')).toContainText('Sign in with a new code');
    await expect(page.getByLabel('E-mail')).toHaveValue(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    const signInCode = await waitForCode(email, { previous: signUpCode });
    expect(signInCode).not.toBe(signUpCode);
    await page.getByLabel('6-digit code').fill(signInCode);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // Rule 5: after the first login the user is prompted to set a PIN.
    await expect(page).toHaveURL(/\/account\/pin/);
    await expect(page.getByRole('heading', { name: 'Set your PIN' })).toBeVisible();
    await page.getByLabel('New PIN (6 digits)').fill('123456');
    await page.getByLabel('Repeat the PIN').fill('123456');
    await page.getByRole('button', { name: 'Set PIN' }).click();
    await expect(page.getByText(/too (simple|easy)|guess/i).first()).toBeVisible();

    await page.getByLabel('New PIN (6 digits)').fill('482915');
    await page.getByLabel('Repeat the PIN').fill('482915');
    await page.getByRole('button', { name: 'Set PIN' }).click();
    await expect(page).toHaveURL(/\/wallet/);
    await expect(page.getByText('Your PIN is set')).toBeVisible();
    await expect(page.getByTestId('wallet-address')).toHaveCount(2);
    await expect(page.getByTestId('pin-prompt')).toHaveCount(0);
  });

  test('a wrong code is refused next to the field, with the tries left', async ({ page }) => {
    const email = uniqueEmail('wrongcode');
    await page.goto('/signup');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    const code = await waitForCode(email);
    await page.getByLabel('6-digit code').fill(code === '111111' ? '222222' : '111111');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByText('That code is not right. 4 tries left.')).toBeVisible();
  });

  test('protected pages send a signed-out visitor to sign in', async ({ page }) => {
    await page.goto('/account/wallets');
    await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Faccount%2Fwallets/);
  });
});

test.describe('social sign-up', () => {
  test('Google sign-up against a real OIDC provider asks for no code; rule 4 then refuses the e-mail sign-in', async ({ page }) => {
    const email = uniqueEmail('google');
    await setGoogleIdentity({ sub: `google-${email}`, email });
    await page.goto('/signup');
    await page.getByRole('button', { name: 'Continue with Google' }).click();
    // No code is asked: straight into the account (the PIN prompt or the wallet).
    await expect(page).toHaveURL(/\/(wallet|account\/pin)/);
    await page.goto('/wallet');
    await expect(page.getByTestId('signed-in-as')).toHaveText(email);
    await expect(page.getByTestId('wallet-address')).toHaveCount(2);
    // Rule 5: without a PIN there is no export; the page sends the user to set one.
    await page.goto('/account/wallets');
    await expect(page.getByRole('button', { name: 'Export private key' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Set a PIN to export' }).first()).toHaveAttribute('href', /\/account\/pin/);

    // Rule 4 (docs/adr/0029-the-code-is-the-password.md): the e-mail and code inputs do not sign in an account created with Google.
    await page.context().clearCookies();
    await page.goto('/signin');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    // The page answers as for any address (no account enumeration); the e-mail says what to do, with no code.
    await expect(page).toHaveURL(/\/signin\/code/);
    const mail = await waitForEmailMatch(
      email,
      /(created with Google: continue with Google at \S+, or add e-mail sign-in to it through sign-up first)/,
    );
    expect(mail).toBeTruthy();
    // Whatever code is typed, it is refused as a wrong code is, and no session opens.
    await page.getByLabel('6-digit code').fill('000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByText('That code is not right. 4 tries left.')).toBeVisible();
    await page.goto('/wallet');
    await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fwallet/);
  });

  test('Sign in with Ethereum, then an e-mail must be verified by code before the account is usable', async ({ page }) => {
    await installTestWallet(page);
    await page.goto('/signin');
    await page.getByRole('button', { name: 'Sign in with Ethereum' }).click();
    await expect(page).toHaveURL(/\/verify-email/);
    // Not usable before: other pages send it back here.
    await page.goto('/wallet');
    await expect(page).toHaveURL(/\/verify-email/);

    const email = uniqueEmail('siwe');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    const verificationCode = await waitForCode(email);
    await page.getByLabel('6-digit code').fill(verificationCode);
    await page.getByRole('button', { name: 'Verify e-mail' }).click();
    await expect(page).toHaveURL(/\/wallet/);
    await expect(page.getByTestId('signed-in-as')).toHaveText(email);

    // Rule 4 as docs/adr/0029-the-code-is-the-password.md reads it: that code was the sign-up flow's e-mail step, so the
    // e-mail form now signs this account in (an account with no PIN yet is sent to set one, rule 5).
    await page.context().clearCookies();
    await page.goto('/signin');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.getByLabel('6-digit code').fill(await waitForCode(email, { previous: verificationCode }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/account\/pin/);
  });
});

test.describe('phone and PIN recovery', () => {
  test('without a phone, forgot-PIN says it cannot be reset; after linking one, an SMS code resets it', async ({ page }) => {
    const email = uniqueEmail('phone');
    await signUpAndSignIn(page, email, '482915');

    await page.goto('/forgot-pin');
    await expect(page.getByTestId('no-phone')).toContainText('only way to reset a PIN');

    const phone = `+3361${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    await page.goto('/account/phone');
    // Typed as dialled in France (the chosen country): linked in E.164.
    await page.getByLabel('Country').selectOption('FR');
    await page
      .getByLabel('Phone number')
      .fill(`0${phone.slice(3, 4)} ${phone.slice(4, 6)} ${phone.slice(6, 8)} ${phone.slice(8, 10)} ${phone.slice(10)}`);
    await page.getByLabel('Your PIN').fill('482915');
    await page.getByRole('button', { name: 'Send code' }).click();
    const linkCode = await waitForCode(phone, { channel: 'sms' });
    await page.getByLabel('6-digit code').fill(linkCode);
    await page.getByRole('button', { name: 'Link phone' }).click();
    await expect(page.getByTestId('linked-phone')).toHaveText(phone);

    await page.goto('/forgot-pin');
    await page.getByRole('button', { name: 'Send a code to my phone' }).click();
    await page.getByLabel('6-digit code').fill(await waitForCode(phone, { channel: 'sms', previous: linkCode }));
    await page.getByLabel('New PIN (6 digits)').fill('705318');
    await page.getByLabel('Repeat the new PIN').fill('705318');
    await page.getByRole('button', { name: 'Set new PIN' }).click();
    await expect(page).toHaveURL(/\/wallet\?pin=reset/);
    await expect(page.getByText('Your new PIN is set')).toBeVisible();
  });

  test('exporting a private key needs the PIN, shows the key once, and is recorded', async ({ page }) => {
    await signUpAndSignIn(page, uniqueEmail('export'), '482915');
    await page.goto('/account/wallets');
    await page.getByRole('button', { name: 'Export private key' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Export the EVM wallet private key' });
    await dialog.getByLabel('Your PIN').fill('000001');
    await dialog.getByRole('button', { name: 'Show private key' }).click();
    await expect(dialog.getByText(/Wrong PIN\. \d+ tries left/)).toBeVisible();
    await dialog.getByLabel('Your PIN').fill('482915');
    await dialog.getByRole('button', { name: 'Show private key' }).click();
    await expect(dialog.getByTestId('exported-key')).toHaveText(/^0x[0-9a-f]{64}$/);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await expect(page.getByTestId('exports').locator('li')).toHaveCount(1);
  });
});

test.describe('merchant accounts', () => {
  test('an account becomes a merchant on the Profile page and gets a test key at once', async ({ page }) => {
    await signUpAndSignIn(page, uniqueEmail('upgrade'));
    await page.goto('/account/profile');
    await page.getByLabel('Business name').fill('Nebula Games');
    await page.getByRole('button', { name: 'Become a merchant' }).click();
    await expect(page.getByTestId('new-test-key')).toHaveText(/^cp_test_[0-9A-Za-z]{32}$/);
    // The same credentials open the dashboard.
    await page.goto('/dashboard');
    await expect(page.getByTestId('merchant-name')).toHaveText('Nebula Games');
    await expect(page.getByTestId('verification-status')).toHaveText('not verified');
    await page.getByRole('button', { name: 'Request business verification' }).click();
    await expect(page.getByText('Verification requested')).toBeVisible();
  });

  test('signing up from the dashboard lands on the dashboard to create the merchant', async ({ page }) => {
    const email = uniqueEmail('dashboard');
    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fdashboard/);
    await page.goto('/signup?callbackUrl=/dashboard');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    const first = await waitForCode(email);
    await page.getByLabel('6-digit code').fill(first);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.getByLabel('6-digit code').fill(await waitForCode(email, { previous: first }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    // PIN prompt first, then on to the dashboard.
    await page.getByLabel('New PIN (6 digits)').fill('482915');
    await page.getByLabel('Repeat the PIN').fill('482915');
    await page.getByRole('button', { name: 'Set PIN' }).click();
    await expect(page).toHaveURL(/\/dashboard/);
    await expect(page.getByRole('heading', { name: 'Create your merchant account' })).toBeVisible();
  });

  test('"sign out everywhere" ends sessions on other devices too', async ({ page, browser }) => {
    await signUpAndSignIn(page, uniqueEmail('everywhere'));
    const otherDevice = await browser.newContext({ baseURL: page.url() });
    await otherDevice.addCookies(await page.context().cookies());
    const otherPage = await otherDevice.newPage();
    await otherPage.goto('/wallet');
    await expect(otherPage).toHaveURL(/\/wallet/);

    await page.goto('/account/profile');
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect(page).toHaveURL(/\/signin\?signedOut=everywhere/);
    await otherPage.goto('/wallet');
    await expect(otherPage).toHaveURL(/\/signin/);
    await otherDevice.close();
  });
});

test.describe('session security', () => {
  test('a cross-site request cannot act with the session (server actions and next-auth check origin / CSRF token)', async ({ page }) => {
    await signUpAndSignIn(page, uniqueEmail('csrf'));
    await page.goto('/account/profile');
    // The sign-out form is a server action; replay it as a forged cross-site POST.
    const actionField = await page.locator('header form input[name^="$ACTION_ID_"]').getAttribute('name');
    expect(actionField).toBeTruthy();
    const forged = await page.request.post('/account/profile', {
      headers: { origin: 'https://evil.example', 'next-action': actionField!.replace('$ACTION_ID_', '') },
      multipart: { [actionField!]: '' },
      maxRedirects: 0,
    });
    expect(forged.status()).not.toBe(303);
    // next-auth's own sign-out needs its CSRF token.
    const noToken = await page.request.post('/api/auth/signout', { form: { callbackUrl: '/' }, maxRedirects: 0 });
    expect(noToken.headers()['location'] ?? '').not.toMatch(/^\/$|localhost:\d+\/$/);
    // Still signed in.
    await page.goto('/wallet');
    await expect(page).toHaveURL(/\/wallet/);
  });
});
