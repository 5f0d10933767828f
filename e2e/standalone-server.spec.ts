/**
 * The standalone server (`output: 'standalone'`), started as the container image starts it
 * (Dockerfile `app` target: `node server.js` with `.next/static` copied beside it, jobs off), on the e2e
 * stack's database and chains: the API and the checkout page answer, with their static assets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_DATA_DIR } from '../playwright.config';
import { createVerifiedMerchant } from './admin';

const STANDALONE = path.resolve('.next/standalone');
const SERVER = path.join(STANDALONE, 'server.js');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test.describe('the standalone server', () => {
  test.skip(!existsSync(SERVER), 'no .next/standalone/server.js: run `next build` first (npm test does)');
  let server: ChildProcess | undefined;
  let base = '';
  let output = '';

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    // As the Dockerfile does: the standalone folder does not include the static assets.
    cpSync('.next/static', path.join(STANDALONE, '.next/static'), { recursive: true });
    if (existsSync('public')) cpSync('public', path.join(STANDALONE, 'public'), { recursive: true });
    const runtime = JSON.parse(readFileSync(path.join(E2E_DATA_DIR, 'runtime.json'), 'utf8')) as {
      embeddedDatabaseUrl: string;
      localRpcUrls: Record<string, string>;
    };
    const port = await freePort();
    base = `http://localhost:${port}`;
    server = spawn(process.execPath, [SERVER], {
      cwd: STANDALONE,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        NEXT_TELEMETRY_DISABLED: '1',
        PORT: String(port),
        HOSTNAME: '127.0.0.1',
        APP_URL: base,
        RUN_JOBS_IN_WEB: 'false',
        LOG_LEVEL: 'warn',
        DATABASE_URL: runtime.embeddedDatabaseUrl,
        ...Object.fromEntries(Object.entries(runtime.localRpcUrls).map(([chain, url]) => [`RPC_URL_${chain}`, url])),
        LOCAL_CHAINS: Object.keys(runtime.localRpcUrls).join(','),
        LOCAL_CHAIN_NODES: 'true',
        // The e2e stack's throwaway secrets (playwright.config.ts).
        AUTH_SECRET: 'e2e-auth-secret-0123456789abcdefghijklmnopq',
        PIN_PEPPER: 'e2e-pin-pepper-0123456789abcdefghijklmnopqr',
        WALLET_MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
        DEPOSIT_HD_SEED: Buffer.alloc(32, 11).toString('base64'),
        PRICE_FEED_URL: '',
        // Sign-in codes to the dev outbox, as on the e2e stack (production requires a real sender otherwise).
        ALLOW_DEV_OUTBOX: 'true',
        SMS_PROVIDER: 'dev',
      },
    });
    server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ready = await fetch(`${base}/api/health/ready`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the standalone server did not become ready:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });

  test.afterAll(() => {
    if (server?.pid && server.exitCode === null) process.kill(-server.pid, 'SIGTERM');
  });

  test('answers POST /api/createCharge and serves the checkout page with its assets', async ({ page, request }) => {
    const merchant = createVerifiedMerchant('Standalone Studio');
    const created = await request.post(`${base}/api/createCharge`, {
      headers: { 'x-api-key': merchant.liveKey },
      data: { chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', amount: '2.5' } },
    });
    expect(created.status(), output).toBe(200);
    const { chargeId } = (await created.json()).data;

    const failedAssets: string[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/_next/static/') && !response.ok()) failedAssets.push(`${response.status()} ${response.url()}`);
    });
    const checkout = await page.goto(`${base}/checkout/${chargeId}`);
    expect(checkout?.status()).toBe(200);
    await expect(page.getByTestId('deposit-address')).toBeVisible();
    expect(failedAssets).toEqual([]);
  });
});
