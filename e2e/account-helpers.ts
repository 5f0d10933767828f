import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { generate } from 'otplib';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { E2E_DATA_DIR, E2E_OIDC_PORT } from '../playwright.config';
import { withE2eDatabase } from './admin';
import { waitForCode } from './outbox';

/**
 * Accounts the `setup` project (e2e/accounts.setup.ts) signs up once per run, as browser storage states
 * (`test.use({ storageState: SHARED_ACCOUNTS.unfunded })`). Specs on both projects use them at the same time:
 * only for what reads, never for what changes the account (PIN, phone, keys, sessions, 2FA, balance).
 * In the stack's data directory, wiped with its database at every start, so a state never outlives its user.
 */
export const SHARED_ACCOUNTS = {
  /** A PIN (482915) and a wallet nothing ever funds. */
  unfunded: path.join(E2E_DATA_DIR, 'auth', 'unfunded.json'),
  /** Signed up and signed in, but no PIN set yet. */
  pinless: path.join(E2E_DATA_DIR, 'auth', 'pinless.json'),
} as const;

/**
 * Signs up and signs in with e-mail codes, then sets the PIN: a ready account on /wallet. With
 * `fromCurrentPage`, the sign-up form is already open (reached with a return address) and the journey
 * must land on `landsOn` instead.
 */
export async function signUpAndSignIn(
  page: Page,
  email: string,
  pin = '482915',
  options: { fromCurrentPage?: boolean; landsOn?: RegExp } = {},
): Promise<void> {
  await signUpAndSignInWithoutPin(page, email, options);
  await page.getByLabel('New PIN (6 digits)').fill(pin);
  await page.getByLabel('Repeat the PIN').fill(pin);
  await page.getByRole('button', { name: 'Set PIN' }).click();
  await expect(page).toHaveURL(options.landsOn ?? /\/wallet/);
}

/** The same, stopping on the PIN form a new account is sent to. */
export async function signUpAndSignInWithoutPin(page: Page, email: string, options: { fromCurrentPage?: boolean } = {}): Promise<void> {
  if (!options.fromCurrentPage) await page.goto('/signup');
  // The sign-in page has the same field and button: type only once the sign-up form is the one shown.
  await expect(page).toHaveURL(/\/signup/);
  await expect(page.getByRole('heading', { name: 'Create your account' })).toBeVisible();
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
}

/**
 * Turns on an authenticator app under Account → Security (owners of a verified merchant need a second
 * factor for production keys and withdrawals), confirmed with the account's PIN as the page asks. Returns
 * a generator of codes `ahead` seconds from now: a code is accepted once, so a later sign-in uses the
 * next time step. With `established` (the account's e-mail), the app is backdated past
 * FACTOR_COOLING_HOURS, as an app set up days ago: it then counts for live withdrawals and production keys.
 */
export async function enrolAuthenticatorApp(
  page: Page,
  options: { pin?: string; established?: { email: string } } = {},
): Promise<{ codeAhead: (seconds: number) => Promise<string>; recoveryCodes: string[] }> {
  await page.goto('/account/security');
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Turn on' }) });
  await form.getByLabel('Code from the app').fill(await generate({ secret }));
  await form.getByLabel('Your PIN').fill(options.pin ?? '482915');
  await form.getByRole('button', { name: 'Turn on' }).click();
  // The action renews this session (the others end): the page stays, signed in, and shows the codes once.
  await expect(page.getByTestId('totp-enabled')).toBeVisible();
  const recoveryCodes = await page.getByTestId('recovery-codes').locator('li').allTextContents();
  expect(recoveryCodes.length).toBeGreaterThan(0);
  if (options.established) {
    const email = options.established.email;
    await withE2eDatabase((sql) => sql`update users set totp_enabled_at = now() - interval '30 days' where email = ${email}`);
  }
  await page.reload();
  await expect(page.getByTestId('totp-enabled')).toBeVisible();
  return { codeAhead: (seconds) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + seconds }), recoveryCodes };
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
  await page.exposeFunction('__testWalletSign', async (messageHex: string) =>
    account.signMessage({ message: { raw: messageHex as `0x${string}` } }),
  );
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

/**
 * A browser wallet in the page backed by a funded anvil account: account and chain switching are
 * answered in the page; every other request (eth_sendTransaction, gas estimates, …) is forwarded to
 * the anvil node, which holds the account unlocked. It starts on Ethereum mainnet (chain 1), so the
 * checkout has to switch it to the charge's chain.
 */
export async function installAnvilWallet(page: Page, rpcUrl: string, address: string): Promise<void> {
  await page.exposeFunction('__anvilRpc', async (method: string, params: unknown[]) => {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { message: string; code: number } };
    if (body.error) throw new Error(body.error.message);
    return body.result;
  });
  await page.addInitScript((account: string) => {
    const listeners: Record<string, ((...args: unknown[]) => void)[]> = {};
    let chainId = '0x1';
    const emit = (event: string, value: unknown) => (listeners[event] ?? []).forEach((listener) => listener(value));
    const provider = {
      request: async ({ method, params }: { method: string; params?: unknown[] }) => {
        switch (method) {
          case 'eth_requestAccounts':
          case 'eth_accounts':
            return [account];
          case 'eth_chainId':
            return chainId;
          case 'wallet_switchEthereumChain':
            chainId = (params?.[0] as { chainId: string }).chainId;
            emit('chainChanged', chainId);
            return null;
          case 'wallet_requestPermissions':
          case 'wallet_getPermissions':
            return [{ parentCapability: 'eth_accounts' }];
          default:
            return (window as unknown as { __anvilRpc: (m: string, p: unknown[]) => Promise<unknown> }).__anvilRpc(method, params ?? []);
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
  }, address);
}
