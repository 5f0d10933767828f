/**
 * The new-owner hold (issue 14): an owner seated by another member less than 48 hours ago sees on
 * Balances until when their withdrawals are held (the server refuses them: lib/accounts/step-up.test.ts).
 */
import { expect, test } from './fixtures';
import { signUpAndSignIn } from './account-helpers';
import { withE2eDatabase } from './admin';
import { uniqueEmail } from './outbox';

test('an owner seated an hour ago sees the withdrawal hold on Balances; the founding owner does not', async ({ page }) => {
  const name = `Hold Games ${Date.now()}`;
  await signUpAndSignIn(page, uniqueEmail('hold-owner'));
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill(name);
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  await expect(page.getByTestId('new-test-key')).toBeVisible();

  await page.goto('/dashboard/balances');
  await expect(page.getByRole('heading', { name: /Balances/ })).toBeVisible();
  await expect(page.getByTestId('withdrawal-hold')).toHaveCount(0);

  // As if another owner had invited this one an hour ago (the invitation flow sets owner_since).
  const seated = new Date(Date.now() - 3_600_000);
  await withE2eDatabase(
    (sql) => sql`update merchant_members set owner_since = ${seated} where merchant_id = (select id from merchants where name = ${name})`,
  );
  await page.reload();
  await expect(page.getByTestId('withdrawal-hold')).toContainText('your withdrawals are held until');
  const until = new Date(seated.getTime() + 48 * 3_600_000);
  await expect(page.getByTestId('withdrawal-hold')).toContainText(String(until.getFullYear()));
});
