/**
 * A stolen session (issue 26, finding N1): a second browser holding only the victim's session cookie
 * cannot turn on an authenticator app or add a passkey — the Security page asks for the PIN, a passkey
 * or an e-mail code up front, and the server refuses without one and stores nothing. The victim's
 * mailbox (the stack's dev outbox) shows what was tried; the victim's own passkey, confirmed with the
 * PIN, is e-mailed too, ends the thief's session, and is shown cooling down for live payments. Desktop
 * only (Chromium's virtual authenticator, as in e2e/passkeys.spec.ts).
 *
 * The same thief on a merchant's dashboard: no refund of a paid charge to the thief's own address, no
 * contract registered, no fulfilment rule added — each asks for the PIN or a passkey, and nothing is
 * stored. The owner's mailbox shows each refused attempt (what, when, from which IP and browser, what to
 * do), once per kind of action however often it is tried (lib/accounts/reporting-refusal.ts).
 */
import { expect, test, type Browser, type BrowserContext, type Page } from './fixtures';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { signUpAndSignIn } from './account-helpers';
import { withE2eDatabase } from './admin';
import { merchantApi, TEST_POL } from './api';
import { sendNativeFromOutside } from './chain';
import { deployGameItems } from './game-items';
import { emailsTo, uniqueEmail, waitForEmailMatch } from './outbox';
import { addVirtualAuthenticator } from './virtual-authenticator';

/** The thief is not bound by the browser's form validation: the PIN fields stop insisting, so the server decides. */
async function dropRequiredPin(page: Page): Promise<void> {
  await page.locator('input[name="pin"]').evaluateAll((inputs) => inputs.forEach((input) => input.removeAttribute('required')));
}

/** The thief's browser: the victim's session cookie only (an infostealer's loot), not the PIN. */
async function thiefWithSessionOf(page: Page, browser: Browser): Promise<{ thiefContext: BrowserContext; thief: Page }> {
  const session = (await page.context().cookies()).filter((cookie) => cookie.name.includes('session'));
  expect(session.length).toBeGreaterThan(0);
  const thiefContext = await browser.newContext({ baseURL: new URL(page.url()).origin });
  await thiefContext.addCookies(session);
  return { thiefContext, thief: await thiefContext.newPage() };
}

test('a stolen session cannot turn on an authenticator app or add a passkey; the victim is e-mailed', async ({ page, browser }) => {
  const email = uniqueEmail('stolen');
  await signUpAndSignIn(page, email);
  await waitForEmailMatch(email, /(your PIN was set|A PIN was set)/);

  const { thiefContext, thief } = await thiefWithSessionOf(page, browser);
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
  // The form says the same sentence up front: the server's refusal is the alert.
  await expect(turnOn.getByRole('alert')).toContainText(
    'Confirm with your PIN or a passkey: a session alone cannot change how you sign in.',
  );
  await expect(thief.getByTestId('totp-enabled')).toHaveCount(0);

  // The victim's mailbox shows what was tried, from where, and what to do.
  expect(await waitForEmailMatch(email, /(tried to turn on an authenticator app)/)).toBeTruthy();
  const totpMail = emailsTo(email).find((text) => text.includes('tried to turn on an authenticator app'))!;
  expect(totpMail).toMatch(/From: \S+/);
  expect(totpMail).toMatch(/Browser: Mozilla\//);
  expect(totpMail).toContain('Sign out everywhere');

  // A passkey: the thief's authenticator makes a credential, but the server stores none without the PIN.
  await addPasskey.getByLabel('Name of the new passkey').fill('Thief key');
  await dropRequiredPin(thief);
  await addPasskey.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(addPasskey.getByRole('alert')).toContainText(
    'Confirm with your PIN or a passkey: a session alone cannot change how you sign in.',
  );
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
  // Both passkey attempts reached the mailbox as one e-mail (the second within 15 minutes is recorded only),
  // and the guessed PIN is not in it.
  expect(
    await waitForEmailMatch(email, /(tried to add a passkey, and it was refused: no PIN, passkey or e-mail code was given)/),
  ).toBeTruthy();
  expect(emailsTo(email).filter((text) => text.includes('tried to add a passkey'))).toHaveLength(1);
  expect(emailsTo(email).some((text) => text.includes('000000'))).toBe(false);

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

test('a stolen session cannot refund a paid charge to the thief, register a contract or add a rule; nothing is stored', async ({
  page,
  browser,
  request,
}) => {
  const email = uniqueEmail('stolen-merchant');
  await signUpAndSignIn(page, email); // PIN 482915
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill('Stolen Session Games');
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  const api = merchantApi(request, (await page.getByTestId('new-test-key').textContent())!.trim());

  // A test charge paid from an outside wallet (the local demo payer); the watcher settles it meanwhile.
  const { chargeId } = await api.createCharge({ chargeData: { ...TEST_POL, amount: '0.25' }, isTest: true });
  const [deposit] = await withE2eDatabase(
    (sql) => sql<{ address: string }[]>`select address from deposit_addresses where charge_id = ${chargeId}`,
  );
  await sendNativeFromOutside('POLYGON_AMOY', deposit!.address, '0.25');
  const items = await deployGameItems();

  const { thiefContext, thief } = await thiefWithSessionOf(page, browser);
  const refusal = 'Confirm with your PIN (or a passkey): this change needs more than a session.';

  // Contracts: registering the game's contract without the PIN is refused; nothing is listed.
  await thief.goto('/dashboard/settings/contracts');
  await expect(thief.getByRole('heading', { name: 'Contracts (test)' })).toBeVisible();
  const thiefRegister = thief.getByRole('form', { name: 'Register a contract' });
  await thiefRegister.getByLabel('Network').selectOption('POLYGON_AMOY');
  await thiefRegister.getByLabel('Contract address').fill(items.address);
  await dropRequiredPin(thief);
  await thiefRegister.getByRole('button', { name: 'Register contract' }).click();
  await expect(thiefRegister.getByText(refusal)).toBeVisible();
  await thief.reload();
  await expect(thief.getByTestId('contract')).toHaveCount(0);

  // The owner registers it with the PIN (e-mailed to the owners): the thief now sees a rule form.
  await page.goto('/dashboard/settings/contracts');
  const register = page.getByRole('form', { name: 'Register a contract' });
  await register.getByLabel('Network').selectOption('POLYGON_AMOY');
  await register.getByLabel('Contract address').fill(items.address);
  await register.getByLabel('Your PIN').fill('482915');
  await register.getByRole('button', { name: 'Register contract' }).click();
  await expect(register.getByText(/Registered Journey items/)).toBeVisible();
  await waitForEmailMatch(email, new RegExp(`(The contract ${items.address} on Polygon Amoy)`));

  // A rule without the PIN is refused; the contract has none.
  await thief.reload();
  const thiefRule = thief.getByRole('form', { name: `Add a rule to ${items.address}` });
  await dropRequiredPin(thief);
  await thiefRule.getByRole('button', { name: 'Add rule' }).click();
  await expect(thiefRule.getByText(refusal)).toBeVisible();
  await thief.reload();
  await expect(thief.getByTestId('contract')).toHaveCount(1);
  await expect(thief.getByTestId('fulfilment-rule')).toHaveCount(0);

  // Refunds: the paid charge, refunded to the thief's own address (it never paid), without the PIN, then
  // with a guessed one: refused both times.
  await expect.poll(async () => (await api.getCharge(chargeId)).status, { timeout: 30_000 }).toBe('succeeded');
  const thiefAddress = privateKeyToAccount(generatePrivateKey()).address;
  await thief.goto(`/dashboard/charges/${chargeId}`);
  const refunds = thief.getByTestId('refunds');
  await expect(refunds).toContainText('Refundable now: 0.25 POL');
  await refunds.getByLabel('Refund to (optional)').fill(thiefAddress);
  await dropRequiredPin(thief);
  await refunds.getByRole('button', { name: 'Refund' }).click();
  await expect(refunds.getByText(refusal)).toBeVisible();
  await refunds.getByLabel('Refund to (optional)').fill(thiefAddress);
  await refunds.getByLabel('Your PIN').fill('000000');
  await refunds.getByRole('button', { name: 'Refund' }).click();
  await expect(refunds.getByText(/Wrong PIN/)).toBeVisible();

  // Nothing was refunded: not on the page, not through the API.
  await thief.reload();
  await expect(refunds.getByTestId('refund-row')).toHaveCount(0);
  await expect(refunds).toContainText('Refundable now: 0.25 POL');
  const listed = await api.listRefunds(chargeId);
  expect(listed.data).toEqual([]);
  expect(listed.refundable.amount).toBe('0.25');

  // The owner's mailbox: the owner's own registration, and each of the thief's refused attempts once —
  // the contract, the rule, the refund to the thief's address (tried twice, e-mailed once) — with what
  // to do; nothing that was not done is reported as done.
  await waitForEmailMatch(email, /(tried to refund a charge to an address that did not pay it for Stolen Session Games \(test mode\))/);
  const mailbox = emailsTo(email);
  expect(mailbox.filter((text) => text.includes(`The contract ${items.address}`))).toHaveLength(1);
  expect(mailbox.filter((text) => text.includes('tried to register a contract for fulfilment for Stolen Session Games'))).toHaveLength(1);
  expect(mailbox.filter((text) => text.includes('tried to add a fulfilment rule for Stolen Session Games'))).toHaveLength(1);
  const refundMails = mailbox.filter((text) => text.includes('tried to refund a charge to an address that did not pay it'));
  expect(refundMails).toHaveLength(1);
  expect(refundMails[0]).toContain('Nothing was changed.');
  expect(refundMails[0]).toContain('change your PIN');
  expect(mailbox.filter((text) => /fulfilment rule was added|were refunded/.test(text))).toEqual([]);
  await thiefContext.close();
});
