import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';

/**
 * The e2e stack: the production build on embedded PostgreSQL and local chains (LOCAL_CHAIN_NODES=true), fresh
 * data in a temporary directory (per port): outside the checkout, so root in a private checkout keeps the
 * cluster there too (scripts/stack/embedded-postgres.ts).
 */
const PORT = Number(process.env.E2E_PORT ?? 3210);
export const E2E_BASE_URL = `http://localhost:${PORT}`;
export const E2E_DATA_DIR = path.join(tmpdir(), `chargeport-e2e-${PORT}`);
/** The OIDC provider standing in for Google (e2e/oidc-server.mts); its control port is the next one. */
export const E2E_OIDC_PORT = Number(process.env.E2E_OIDC_PORT ?? 3211);
/** Fixed secrets of the throwaway e2e stack: every process of it (the admin CLI included) shares them. */
export const E2E_SECRETS = {
  AUTH_SECRET: 'e2e-auth-secret-0123456789abcdefghijklmnopq',
  PIN_PEPPER: 'e2e-pin-pepper-0123456789abcdefghijklmnopqr',
  WALLET_MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
  DEPOSIT_HD_SEED: Buffer.alloc(32, 11).toString('base64'),
};
/** The Apple sign-in stand-in (scripts/stack/identity-stand-ins.ts), as `npm run dev` runs it. */
const E2E_APPLE_PORT = E2E_OIDC_PORT + 3;
const E2E_APPLE_SECRET = 'chargeport-e2e-apple-secret';
/** The sandbox on-ramp provider's partner key on the e2e stack (journeys create sessions with it). */
/** The header standing in for the CDN's geolocation (cf-ipcountry in production behind Cloudflare). */
export const E2E_COUNTRY_HEADER = 'x-e2e-country';
export const E2E_SANDBOX_PROVIDER_SECRET = 'e2e-sandbox-provider-secret-0123456789abcdef';

/** The specs that also run at phone width: what a player or buyer does, often on a phone. */
const PHONE_SPECS = [
  'accounts.spec.ts',
  'apple-sign-in.spec.ts',
  'charge-checkout.spec.ts',
  'checkout-*.spec.ts',
  'oauth-in-app-pay.spec.ts',
  'onramp.spec.ts',
  'sandbox-provider.spec.ts',
  'sdk-pay.spec.ts',
  'swap-onramp.spec.ts',
  'wallet.spec.ts',
].map((name) => `**/${name}`);

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  // Two spec files at a time (tests within a file stay in order): the journeys mostly wait on blocks and polls.
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  timeout: 60_000,
  reporter: [['list'], ['json', { outputFile: '.data/test-results/playwright.json' }]],
  // Reconciliation of the stack's books against its chains: before the first journey (the gas tank's books
  // open) and after the last one, before the stack stops (any difference fails the run).
  globalSetup: './e2e/global-setup.ts',
  globalTeardown: './e2e/global-teardown.ts',
  use: {
    baseURL: E2E_BASE_URL,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  projects: [
    // Signs up the shared accounts once (e2e/accounts.setup.ts, SHARED_ACCOUNTS in e2e/account-helpers.ts).
    { name: 'setup', testMatch: /\.setup\.ts$/, fullyParallel: true, use: { ...devices['Desktop Chrome'], channel: undefined } },
    { name: 'desktop', dependencies: ['setup'], use: { ...devices['Desktop Chrome'], channel: undefined } },
    {
      name: 'phone',
      dependencies: ['setup'],
      // The consumer's journeys (sign-up, checkout, on-ramp, wallet, in-app pay) on a 375 px phone. The
      // dashboard, headers and bundle-size specs do not depend on the viewport and run on desktop only.
      testMatch: PHONE_SPECS,
      use: { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true },
    },
  ],
  webServer: [
    {
      command: 'node_modules/.bin/tsx --conditions=react-server scripts/identity-stand-ins.mts',
      url: `http://127.0.0.1:${E2E_APPLE_PORT}/apple/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 90_000,
      stdout: 'pipe',
      env: { PORT: String(E2E_APPLE_PORT), APP_URL: E2E_BASE_URL, STAND_IN_PROVIDERS: 'apple', STAND_IN_CLIENT_SECRET: E2E_APPLE_SECRET },
    },
    {
      command: 'node_modules/.bin/tsx e2e/oidc-server.mts',
      url: `http://127.0.0.1:${E2E_OIDC_PORT}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 90_000,
      stdout: 'pipe',
      env: { OIDC_PORT: String(E2E_OIDC_PORT) },
    },
    {
      command: `node -e "require('fs').rmSync('${E2E_DATA_DIR}',{recursive:true,force:true})" && node_modules/.bin/tsx --conditions=react-server scripts/stack.mts start`,
      url: `${E2E_BASE_URL}/api/health/ready`,
      reuseExistingServer: false,
      timeout: 120_000,
      env: {
        DATA_DIR: E2E_DATA_DIR,
        PORT: String(PORT),
        APP_URL: E2E_BASE_URL,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        // A production build never starts local chains on its own: the journeys pay on local anvil nodes and
        // the launcher's local Solana clusters (one per Solana chain, scripts/stack/solana-cluster.ts).
        LOCAL_CHAIN_NODES: 'true',
        // One chain left unserved: production-safety.spec.ts checks that charges on it are refused.
        STACK_SKIP_LOCAL_CHAINS: 'DFK_TESTNET',
        ...E2E_SECRETS,
        // Codes go to the dev outbox ($DATA_DIR/outbox), where the journeys read them.
        ALLOW_DEV_OUTBOX: 'true',
        // No internet here: no price feed (stablecoins still show their USD value).
        PRICE_FEED_URL: '',
        SMS_PROVIDER: 'dev',
        // Sponsored sweeps go as soon as they are due (no 30 s batching window): journeys wait on merchant balances.
        SWEEP_BATCH_WINDOW_SECONDS: '0',
        // Every journey signs in from 127.0.0.1: the per-IP limit would stop the suite, not an attacker.
        AUTH_RATE_LIMIT_PER_IP: '100000',
        ONRAMP_ORDERS_PER_IP: '100000',
        SMS_PER_IP_PER_HOUR: '100000',
        PUBLISHABLE_KEY_RATE_LIMIT_PER_IP: '100000',
        // "Google" is the OIDC provider on loopback (e2e/oidc-server.mts).
        GOOGLE_CLIENT_ID: 'chargeport-e2e',
        GOOGLE_CLIENT_SECRET: 'chargeport-e2e-secret',
        GOOGLE_ISSUER: `http://localhost:${E2E_OIDC_PORT}`,
        // "Apple" is the development stand-in: it answers with a cross-site form_post, as Apple does.
        APPLE_CLIENT_ID: 'chargeport-dev-apple',
        APPLE_CLIENT_SECRET: E2E_APPLE_SECRET,
        APPLE_ISSUER: `http://localhost:${E2E_APPLE_PORT}/apple`,
        // NODE_ENV=production defaults it to false; the webhook journey's receiver runs on 127.0.0.1
        // (test-mode endpoints only: live endpoints never target loopback).
        WEBHOOKS_ALLOW_LOOPBACK: 'true',
        // NODE_ENV=production defaults the sandbox on-ramp provider off; the on-ramp journeys buy through it.
        ONRAMP_SANDBOX: 'true',
        SANDBOX_PROVIDER_SECRET: E2E_SANDBOX_PROVIDER_SECRET,
        // The CDN's geolocation header the compliance rules trust (lib/geo/compliance-country.ts): the
        // journeys send it as a CDN in front of the app would.
        COMPLIANCE_COUNTRY_HEADER: E2E_COUNTRY_HEADER,
      },
      stdout: 'pipe',
      gracefulShutdown: { signal: 'SIGTERM', timeout: 15_000 },
    },
  ],
});
