/**
 * The "cross-site request" case of the security table (app/security-table.test.ts) for server actions:
 * Next.js refuses an action whose Origin is not our host before running it. A real action post
 * (new recovery codes, confirmed with the PIN) is captured from the page and sent again with the
 * user's cookies: from another origin it is refused and renews nothing; from ours the very same
 * request works, so only the Origin made the difference.
 */
import { expect, test, type Request } from './fixtures';
import { enrolAuthenticatorApp, signUpAndSignIn } from './account-helpers';
import { uniqueEmail } from './outbox';

const RECOVERY_CODE = /\b[0-9A-Z]{5}-[0-9A-Z]{5}\b/g;

test('a server action posted from another origin is refused before it runs', async ({ page }) => {
  const pin = '482915';
  await signUpAndSignIn(page, uniqueEmail('action-origin'), pin);
  await enrolAuthenticatorApp(page);

  const recovery = page.locator('form').filter({ has: page.getByRole('button', { name: 'New recovery codes' }) });
  await recovery.getByLabel('Your PIN').fill(pin);
  const [post] = await Promise.all([
    page.waitForRequest((request: Request) => request.method() === 'POST' && request.headers()['next-action'] !== undefined),
    recovery.getByRole('button', { name: 'New recovery codes' }).click(),
  ]);
  await expect(recovery.getByTestId('recovery-codes')).toBeVisible();
  const shown = await recovery.getByTestId('recovery-codes').locator('li').allTextContents();

  const replay = (origin: string) =>
    page.request.fetch(post.url(), {
      method: 'POST',
      headers: { ...post.headers(), origin },
      data: post.postDataBuffer() ?? undefined,
    });

  const crossSite = await replay('https://attacker.example');
  expect(crossSite.status()).toBe(500);
  // The action's only output is the new codes: the refused post carries none.
  expect((await crossSite.text()).match(RECOVERY_CODE)).toBeNull();

  const sameSite = await replay(new URL(post.url()).origin);
  expect(sameSite.status()).toBe(200);
  const renewed = (await sameSite.text()).match(RECOVERY_CODE) ?? [];
  expect(renewed.length).toBeGreaterThanOrEqual(10);
  expect(renewed.some((code) => shown.includes(code))).toBe(false);
});
