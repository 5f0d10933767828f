import type { Page } from '@playwright/test';

/**
 * Chromium's virtual authenticator (DevTools protocol) for a page: a platform authenticator with user
 * verification that always answers "yes" (no prompt to click), so the page's own WebAuthn code, the
 * browser library and the server's verification all run for real. Chromium only (desktop projects).
 */
export async function addVirtualAuthenticator(page: Page): Promise<{ credentialCount: () => Promise<number> }> {
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
