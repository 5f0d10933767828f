/**
 * "Sign in with Chargeport" and in-app pay on the example shop: the merchant registers an OAuth app in
 * the dashboard's OAuth tab; a player signs in to the shop in Chargeport's popup, consents, buys an
 * item and types the PIN in Chargeport's popup (never on the shop's page); the charge succeeds.
 */
import { expect, test } from './fixtures';
import { admin, withE2eDatabase } from './admin';
import { signUpAndSignIn } from './account-helpers';
import { sendNativeFromOutside } from './chain';
import { uniqueEmail } from './outbox';

const PIN = '482915';

test('merchant registers an app; the player signs in, consents and pays a charge with the PIN in the popup', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const ownerEmail = uniqueEmail('oauth-owner');
  await signUpAndSignIn(page, ownerEmail);
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill('Pixel Quest');
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  await expect(page.getByTestId('new-test-key')).toBeVisible();
  const merchantId = await withE2eDatabase(async (sql) => {
    const [row] = await sql<{ merchant_id: string }[]>`
      select m.merchant_id from merchant_members m join users u on u.id = m.user_id where u.email = ${ownerEmail}`;
    return row!.merchant_id;
  });
  // The example shop is served by Chargeport itself here: its origin is the key's allowed origin.
  const publishableKey = admin<{ key: { key: string } }>(
    'key',
    'create',
    merchantId,
    '--mode',
    'test',
    '--publishable',
    '--allowed-origin',
    new URL(baseURL!).origin,
  ).key.key;

  await page.goto('/dashboard/settings/oauth');
  await page.getByLabel('Name', { exact: true }).fill('Pixel Quest');
  await page.getByLabel('Redirect URIs, one per line').fill(`${baseURL}/examples/pay/callback`);
  await page.getByRole('button', { name: 'Register app' }).click();
  const clientId = (await page.getByTestId('new-client-id').textContent())!.trim();
  expect(clientId).toMatch(/^cpapp_/);

  const player = await (await browser.newContext()).newPage();
  const playerEmail = uniqueEmail('oauth-player');
  await signUpAndSignIn(player, playerEmail, PIN);
  const address = await withE2eDatabase(async (sql) => {
    const [row] = await sql<{ address: string }[]>`
      select w.address from wallets w join users u on u.id = w.user_id where u.email = ${playerEmail} and w.family = 'evm'`;
    return row!.address;
  });
  await sendNativeFromOutside('POLYGON_AMOY', address, '2');

  await player.goto('/examples/pay');
  await player.getByLabel('Publishable key').fill(publishableKey);
  await player.getByLabel('OAuth client id').fill(clientId);
  const consentPopup = player.waitForEvent('popup');
  await player.getByRole('button', { name: 'Sign in with Chargeport' }).click();
  const consent = await consentPopup;
  await expect(consent.getByTestId('consent-app')).toContainText('Pixel Quest');
  await consent.getByRole('button', { name: 'Allow' }).click();
  await expect(player.getByTestId('player-email')).toHaveText(playerEmail);

  const payPopup = player.waitForEvent('popup');
  await player.getByRole('button', { name: /^Buy/ }).click();
  const pay = await payPopup;
  await expect(pay).toHaveURL(/\/oauth\/pay/);
  await expect(pay.getByTestId('payment-request-title')).toContainText('Pixel Quest asks you to pay');
  await pay.getByLabel('PIN').fill(PIN);
  await pay.getByRole('button', { name: /^Pay / }).click();
  await expect(player.getByTestId('outcome')).toHaveAttribute('data-status', 'succeeded', { timeout: 90_000 });
});
