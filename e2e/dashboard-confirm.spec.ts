/**
 * Destructive dashboard actions confirm first (components/ui/confirm-dialog.tsx): a production key is
 * revoked only after its name (or "revoke") is typed in an accessible dialog; a webhook endpoint is
 * deleted only from its dialog; cancelling changes nothing.
 */
import { expect, test, type Page } from './fixtures';
import { enrolAuthenticatorApp, signUpAndSignIn } from './account-helpers';
import { admin, withE2eDatabase } from './admin';
import { merchantApi, TEST_POL } from './api';
import { uniqueEmail } from './outbox';

const liveCharge = { chargeData: { ...TEST_POL, amount: '1' } };

/** A signed-in owner of a new merchant named `name`, verified by support: production keys allowed. */
async function verifiedOwner(page: Page, name: string): Promise<string> {
  const email = uniqueEmail('confirm-owner');
  await signUpAndSignIn(page, email);
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill(name);
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  await expect(page.getByTestId('new-test-key')).toBeVisible();
  const [merchant] = await withE2eDatabase((sql) => sql<{ id: string }[]>`select id from merchants where name = ${name}`);
  admin('merchant', 'verify', merchant!.id);
  return email;
}

test('revoking a production key needs its name typed in a dialog; cancelling keeps the key working', async ({ page, request }) => {
  const name = `Confirm Games ${Date.now()}`;
  const email = await verifiedOwner(page, name);
  // Production keys: the owner of a verified merchant has a second factor (set up long enough ago to
  // count in live mode), and confirms with the PIN.
  await enrolAuthenticatorApp(page, { established: { email } });
  await page.goto('/dashboard/settings/api-keys');
  await page.getByRole('button', { name: 'Live' }).click();
  await expect(page.getByRole('heading', { name: 'API Keys (live)' })).toBeVisible();
  await page.getByLabel('Name').fill('Prod server');
  await page.getByLabel('Your PIN').fill('000000');
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByText(/Wrong PIN/).first()).toBeVisible();
  await expect(page.getByTestId('api-key-row').filter({ hasText: 'Prod server' })).toHaveCount(0);
  await page.getByLabel('Name').fill('Prod server');
  await page.getByLabel('Your PIN').fill('482915');
  await page.getByRole('button', { name: 'Create key' }).click();
  const liveKey = (await page.getByTestId('new-key').textContent())!.trim();
  expect(liveKey).toMatch(/^cp_live_/);
  // The status is the point (the key works, then is refused): the response itself, not its data.
  const charge = () => merchantApi(request, liveKey).createChargeResponse(liveCharge);
  expect((await charge()).status()).toBe(200);

  // One click only opens the dialog: focus moves to the field, the button waits for the name.
  const trigger = page.getByRole('button', { name: 'Revoke Prod server' });
  await trigger.click();
  const dialog = page.getByRole('dialog', { name: 'Revoke the production key “Prod server”?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('your live integration stops taking payments');
  const field = dialog.getByLabel(/Type the key's name \(Prod server\) or “revoke” to confirm/);
  await expect(field).toBeFocused();
  const confirm = dialog.getByRole('button', { name: 'Revoke key' });
  await expect(confirm).toBeDisabled();
  await field.fill('Prod');
  await expect(confirm).toBeDisabled();

  // Escape cancels: the dialog closes, focus returns to the trigger, the key still works.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(trigger).toBeFocused();
  expect((await charge()).status()).toBe(200);

  await trigger.click();
  await expect(field).toHaveValue('');
  await field.fill('Prod server');
  await confirm.click();
  await expect(page.getByRole('status').filter({ hasText: 'Key revoked.' })).toBeVisible();
  await expect(page.getByTestId('api-key-row').filter({ hasText: 'Prod server' })).toHaveCount(0);
  expect((await charge()).status()).toBe(401);
});

test('deleting a webhook endpoint and revoking a test key go through a dialog too', async ({ page }) => {
  await verifiedOwner(page, `Confirm Hooks ${Date.now()}`);
  await page.goto('/dashboard/settings/api-keys');
  await page.getByLabel('Name').fill('CI');
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByTestId('api-key-row').filter({ hasText: 'CI' })).toHaveCount(1);
  await page.getByRole('button', { name: 'Revoke CI' }).click();
  const revokeDialog = page.getByRole('dialog', { name: 'Revoke the test key “CI”?' });
  await expect(revokeDialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await revokeDialog.getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByTestId('api-key-row').filter({ hasText: 'CI' })).toHaveCount(0);

  await page.goto('/dashboard/settings/webhooks');
  await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hooks');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await expect(page).toHaveURL(/\/dashboard\/settings\/webhooks\/we_/);
  const endpointUrl = page.url();

  await page.getByRole('button', { name: 'Delete endpoint' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete this webhook endpoint?' });
  await expect(dialog).toContainText('GET /api/events');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await page.reload();
  await expect(page).toHaveURL(endpointUrl);

  await page.getByRole('button', { name: 'Delete endpoint' }).click();
  await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
  await expect(page).toHaveURL(/\/dashboard\/settings\/webhooks$/);
});
