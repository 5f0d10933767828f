/**
 * The C# game SDK (sdk/csharp, the Unity package's runtime and its sample's logic, through a recording
 * transport) against the running production stack (`npm start`), as a game would use it: compiled with
 * Mono, it signs the player in by the device flow and pays a live USDC charge; the
 * player does their part in Chromium on Chargeport (enters the device code, allows the app, types the
 * PIN on Chargeport's pay page). Skipped with a reason where Mono is not installed (.ci/run installs it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { compileCsharpSdkTest } from '@/test/compile-csharp-sdk';
import { expect, test, type APIRequestContext, type Page } from './fixtures';
import { signUpAndSignIn } from './account-helpers';
import { merchantApi } from './api';
import { admin, createVerifiedMerchant, withE2eDatabase } from './admin';
import { POLYGON_USDC, fundOnPolygon, sendUsdcFromOutside } from './chain';
import { uniqueEmail } from './outbox';

const PIN = '482915';
const monoInstalled = spawnSync('mcs', ['--version']).status === 0 && spawnSync('mono', ['--version']).status === 0;

async function usdcCharge(request: APIRequestContext, liveKey: string): Promise<string> {
  const charge = await merchantApi(request, liveKey).createCharge({
    chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: POLYGON_USDC, amount: '0.75' },
  });
  return charge.chargeId;
}

/** The player's part of the device flow, on Chargeport: the code, then the consent screen. */
async function enterDeviceCode(player: Page, baseURL: string, userCode: string): Promise<void> {
  await player.goto(`${baseURL}/oidc/device?user_code=${encodeURIComponent(userCode)}`);
  // Device-code phishing (N14): the warning is shown before the player confirms.
  await expect(player.getByTestId('device-code-warning')).toContainText('Only enter a code you started yourself');
  await player.getByRole('button', { name: 'Continue' }).click();
  await expect(player.getByTestId('consent-app')).toContainText('Pixel Forge');
  await player.getByRole('button', { name: 'Allow' }).click();
}

test('a game on the C# SDK signs the player in by the device flow and pays a live charge; the PIN is typed on Chargeport', async ({
  page,
  browser,
  baseURL,
  request,
}) => {
  test.skip(!monoInstalled, 'Mono (mcs, mono) is not installed: apt-get install mono-mcs mono-runtime libmono-system-net-http4.0-cil');
  test.setTimeout(180_000);
  const exe = compileCsharpSdkTest();

  // The studio registers its game as a public OAuth app.
  const ownerEmail = uniqueEmail('csharp-owner');
  await signUpAndSignIn(page, ownerEmail);
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill('Pixel Forge');
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  await expect(page.getByTestId('new-test-key')).toBeVisible();
  await page.goto('/dashboard/settings/oauth');
  await page.getByLabel('Name', { exact: true }).fill('Pixel Forge');
  await page.getByLabel('Redirect URIs, one per line').fill('com.pixelforge.game:/callback');
  await page.getByRole('button', { name: 'Register app' }).click();
  const clientId = (await page.getByTestId('new-client-id').textContent())!.trim();
  const merchantId = await withE2eDatabase(async (sql) => {
    const [row] = await sql<{ merchant_id: string }[]>`
      select m.merchant_id from merchant_members m join users u on u.id = m.user_id where u.email = ${ownerEmail}`;
    return row!.merchant_id;
  });
  // Live charges need a verified merchant: support verifies it and makes a live key with the admin CLI.
  admin('merchant', 'verify', merchantId);
  const key = admin<{ key: { key: string } }>('key', 'create', merchantId, '--mode', 'live').key.key;

  // The player, with USDC in their Chargeport wallet.
  const player = await (await browser.newContext()).newPage();
  const playerEmail = uniqueEmail('csharp-player');
  await signUpAndSignIn(player, playerEmail, PIN);
  const wallet = await withE2eDatabase(async (sql) => {
    const [row] = await sql<{ address: string }[]>`
      select w.address from wallets w join users u on u.id = w.user_id where u.email = ${playerEmail} and w.family = 'evm'`;
    return row!.address;
  });
  await fundOnPolygon(wallet);
  await sendUsdcFromOutside(wallet, '5');

  const chargeId = await usdcCharge(request, key);
  const foreignChargeId = await usdcCharge(request, (await createVerifiedMerchant('Other Studio')).liveKey);

  const child = spawn('mono', [exe, baseURL!, clientId, chargeId, foreignChargeId], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
  const lines: string[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    lines.push(line);
    const [word, arg] = line.split(' ');
    if (word === 'SIGN-IN') await enterDeviceCode(player, baseURL!, arg!);
    if (word === 'PAY') {
      await player.goto(`${baseURL}/oauth/pay?user_code=${encodeURIComponent(arg!)}`);
      await expect(player.getByTestId('payment-request-title')).toContainText('Pixel Forge asks you to pay');
      await player.getByLabel('PIN').fill(PIN);
      await player.getByRole('button', { name: /^Pay / }).click();
    }
  }
  const code = await new Promise<number | null>((resolve) =>
    child.exitCode === null ? child.once('exit', (exitCode) => resolve(exitCode)) : resolve(child.exitCode),
  );
  expect({ code, stderr, last: lines.at(-1) }).toMatchObject({ code: 0, last: 'OK' });
  expect(lines.find((l) => l.startsWith('USER '))).toContain(playerEmail);
  expect(lines.find((l) => l.startsWith('ADDRESSES'))!.toLowerCase()).toContain(wallet.toLowerCase());
  expect(lines).toContain('FOREIGN 404 not_found');
  expect(lines.find((l) => l.startsWith('PAID'))).toMatch(/^PAID confirmed 0x[0-9a-f]{64}$/);
});
