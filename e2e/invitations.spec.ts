import { expect, test } from './fixtures';
import { signUpAndSignIn } from './account-helpers';
import { uniqueEmail, waitForCode, waitForEmailMatch } from './outbox';

test('an invitation opened signed out says who invited whom to which merchant, and sign-up comes back to it to accept', async ({
  page,
  browser,
}) => {
  const owner = uniqueEmail('inviting-owner');
  await signUpAndSignIn(page, owner);
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill('Lantern Works');
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  await expect(page.getByTestId('new-test-key')).toBeVisible();
  await page.goto('/dashboard/settings/members');
  const invitee = uniqueEmail('invitee');
  const form = page.getByRole('form', { name: 'Invite a member' });
  await form.getByLabel('E-mail').fill(invitee);
  await form.getByRole('button', { name: 'Send invitation' }).click();
  const link = await waitForEmailMatch(invitee, /(\/invitations\/[\w-]+)/);

  // The invitee, in a browser that has never signed in.
  const context = await browser.newContext();
  const guest = await context.newPage();
  await guest.goto(link);
  await expect(guest.getByRole('heading', { name: 'Join Lantern Works' })).toBeVisible();
  await expect(guest.getByTestId('invitation-summary')).toHaveText(
    `${owner} invited ${invitee} to join Lantern Works on Chargeport as a developer.`,
  );

  // Sign-up, then the forced sign-in with a new code, then the PIN: the callback URL survives every step.
  await guest.getByRole('link', { name: 'Create an account' }).click();
  await expect(guest.getByLabel('E-mail')).toHaveValue(invitee);
  await guest.getByRole('button', { name: 'Send me a code' }).click();
  const first = await waitForCode(invitee);
  await guest.getByLabel('6-digit code').fill(first);
  await guest.getByRole('button', { name: 'Create account' }).click();
  await expect(guest).toHaveURL(/\/signin\?/);
  await guest.getByRole('button', { name: 'Send me a code' }).click();
  await guest.getByLabel('6-digit code').fill(await waitForCode(invitee, { previous: first }));
  await guest.getByRole('button', { name: 'Sign in' }).click();
  await expect(guest).toHaveURL(/\/account\/pin/);
  await guest.getByLabel('New PIN (6 digits)').fill('482915');
  await guest.getByLabel('Repeat the PIN').fill('482915');
  await guest.getByRole('button', { name: 'Set PIN' }).click();

  await expect(guest).toHaveURL(new RegExp(`${link}\\?pin=set$`));
  await expect(guest.getByText(`You are signed in as ${invitee}.`)).toBeVisible();
  await guest.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(guest).toHaveURL(/\/dashboard$/);
  await expect(guest.getByTestId('dashboard-merchant')).toHaveText('Lantern Works');
  await context.close();
});

test('a crafted callback URL to another site is not followed after sign-in', async ({ page }) => {
  const email = uniqueEmail('open-redirect');
  await signUpAndSignIn(page, email);
  await page.context().clearCookies();
  await page.goto(`/signin?callbackUrl=${encodeURIComponent('/\\evil.example/phish')}&email=${encodeURIComponent(email)}`);
  const previous = await waitForCode(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('6-digit code').fill(await waitForCode(email, { previous }));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/wallet$/);
});
