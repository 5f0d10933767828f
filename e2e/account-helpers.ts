import { expect, type Page } from '@playwright/test';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { E2E_OIDC_PORT } from '../playwright.config';
import { waitForCode } from './outbox';

/** Signs up and signs in with e-mail codes, then sets the PIN: a ready account on /wallet. */
export async function signUpAndSignIn(page: Page, email: string, pin = '482915'): Promise<void> {
  await page.goto('/signup');
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  const first = await waitForCode(email);
  await page.getByLabel('6-digit code').fill(first);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/signin\?/);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('6-digit code').fill(await waitForCode(email, { previous: first }));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/account\/pin/);
  await page.getByLabel('New PIN (6 digits)').fill(pin);
  await page.getByLabel('Repeat the PIN').fill(pin);
  await page.getByRole('button', { name: 'Set PIN' }).click();
  await expect(page).toHaveURL(/\/wallet/);
}

/** The identity the loopback OIDC provider ("Google") signs in next. */
export async function setGoogleIdentity(identity: { sub: string; email: string }): Promise<void> {
  const response = await fetch(`http://localhost:${E2E_OIDC_PORT + 1}/identity`, { method: 'POST', body: JSON.stringify(identity) });
  expect(response.status).toBe(204);
}

/**
 * An EIP-1193 wallet in the page: accounts and chain answered in the page, `personal_sign` signed in
 * the test process by a viem local account (the key never enters the page).
 */
export async function installTestWallet(page: Page): Promise<{ address: string }> {
  const account = privateKeyToAccount(generatePrivateKey());
  await page.exposeFunction('__testWalletSign', async (messageHex: string) => account.signMessage({ message: { raw: messageHex as `0x${string}` } }));
  await page.addInitScript((address: string) => {
    const listeners: Record<string, ((...args: unknown[]) => void)[]> = {};
    const provider = {
      isMetaMask: false,
      request: async ({ method, params }: { method: string; params?: unknown[] }) => {
        switch (method) {
          case 'eth_requestAccounts':
          case 'eth_accounts':
            return [address];
          case 'eth_chainId':
            return '0x89';
          case 'net_version':
            return '137';
          case 'wallet_requestPermissions':
            return [{ parentCapability: 'eth_accounts' }];
          case 'wallet_getPermissions':
            return [{ parentCapability: 'eth_accounts' }];
          case 'personal_sign':
            return (window as unknown as { __testWalletSign: (hex: string) => Promise<string> }).__testWalletSign(String(params?.[0]));
          default:
            throw Object.assign(new Error(`test wallet: ${method} not supported`), { code: 4200 });
        }
      },
      on: (event: string, listener: (...args: unknown[]) => void) => {
        (listeners[event] ??= []).push(listener);
      },
      removeListener: (event: string, listener: (...args: unknown[]) => void) => {
        listeners[event] = (listeners[event] ?? []).filter((l) => l !== listener);
      },
    };
    Object.defineProperty(window, 'ethereum', { value: provider, configurable: true });
  }, account.address);
  return { address: account.address };
}
