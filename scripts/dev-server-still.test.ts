/**
 * `npm run dev` stays still: with a checkout page open for a minute while the local chains dump their state
 * (anvil writes `<DATA_DIR>/anvil/<CHAIN>.json` every 5 s), the dev server recompiles nothing and the page
 * never reloads. The state lives outside the project (scripts/stack/data-dir.ts), where Next's watcher does not
 * look; inside it, a newcomer saw a checkout page reload 49 times in 40 s (issue 31).
 *
 * Counted after the page has settled (its first compiles done): `Compil…` lines in the dev server's output
 * and navigations of the page's main frame. The chains' state files must have been rewritten meanwhile, or the
 * minute proved nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { findFreePort } from '@/scripts/stack/free-port';
import { defaultDataDir } from '@/scripts/stack/data-dir';

const ROOT = path.resolve(import.meta.dirname, '..');
const STARTUP_TIMEOUT_MS = 180_000;
const WATCH_MS = 60_000;
const QUIET_MS = 8_000;

const base = mkdtempSync(path.join(tmpdir(), 'chargeport-dev-still-'));
// Reachable by the `postgres` user when this runs as root: the cluster stays inside and goes with it.
chmodSync(base, 0o755);
let launcher: ChildProcess | undefined;

afterAll(async () => {
  if (launcher?.pid && launcher.exitCode === null) {
    const exited = new Promise((resolve) => launcher!.once('exit', resolve));
    process.kill(launcher.pid, 'SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 45_000))]);
  }
  rmSync(base, { recursive: true, force: true });
}, 60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const compiles = (text: string) => text.match(/Compil/g)?.length ?? 0;

describe.skipIf(process.platform !== 'linux')('npm run dev with a page open', () => {
  it('recompiles nothing and reloads nothing for a minute while the local chains dump their state outside the project', async () => {
    // The default place (as DATA_DIR, so a `.data` of this checkout is never moved by a test).
    const dataDir = defaultDataDir(ROOT, { XDG_STATE_HOME: path.join(base, 'state') });
    expect(path.relative(ROOT, dataDir).startsWith('..')).toBe(true);
    const port = await findFreePort();
    const suiteNode = inject('stackEnv').RPC_URL_POLYGON!;
    launcher = spawn('node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/stack.mts', 'dev'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATA_DIR: dataDir,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        PRICE_FEED_URL: '',
        NEXT_TELEMETRY_DISABLED: '1',
        // POLYGON (the demo charge's chain) and POLYGON_AMOY run locally and dump state; the rest use the suite's node.
        RPC_URL_BSC: suiteNode,
        RPC_URL_BSC_TESTNET: suiteNode,
        RPC_URL_DFK: suiteNode,
        RPC_URL_DFK_TESTNET: suiteNode,
      } as unknown as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    launcher.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    launcher.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (!/Ready in/.test(output)) {
      if (launcher.exitCode !== null) throw new Error(`the launcher exited early:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the launcher did not start within ${STARTUP_TIMEOUT_MS / 1000} s:\n${output}`);
      await sleep(200);
    }
    const checkoutUrl = /Demo charge, ready to pay: (\S+)/.exec(output)?.[1];
    expect(checkoutUrl, output).toBeDefined();

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
    try {
      const page = await browser.newPage();
      let navigations = 0;
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) navigations++;
      });
      // The first request compiles the page (cold on a fresh checkout): fetched once before the browser opens it.
      const warm = await fetch(checkoutUrl!, { signal: AbortSignal.timeout(240_000) }).catch((error: unknown) => error);
      expect(warm instanceof Response && warm.status, `${String(warm)}\n${output.slice(-4000)}`).toBe(200);
      await page.goto(checkoutUrl!, { waitUntil: 'domcontentloaded', timeout: 120_000 });
      const rendered = await page
        .getByTestId('merchant-name')
        .waitFor({ timeout: 90_000 })
        .then(() => true)
        .catch(() => false);
      if (!rendered) throw new Error(`the checkout page did not render:\n${(await page.content()).slice(0, 3000)}\n${output.slice(-5000)}`);
      expect(await page.getByTestId('merchant-name').textContent()).toBe('Demo Game Studio');
      // Settled: no compile line for QUIET_MS (the page's first requests compile their routes).
      let last = compiles(output);
      let quietSince = Date.now();
      const settleBy = Date.now() + 90_000;
      while (Date.now() - quietSince < QUIET_MS && Date.now() < settleBy) {
        await sleep(500);
        if (compiles(output) !== last) [last, quietSince] = [compiles(output), Date.now()];
      }
      const stateFiles = readdirSync(path.join(dataDir, 'anvil')).filter((name) => name.endsWith('.json'));
      expect(stateFiles).toEqual(expect.arrayContaining(['POLYGON.json']));
      const writtenAt = () => stateFiles.map((name) => statSync(path.join(dataDir, 'anvil', name)).mtimeMs);
      const before = { output: output.length, navigations, state: writtenAt() };

      await sleep(WATCH_MS);

      const during = output.slice(before.output);
      expect(
        writtenAt().every((at, i) => at > before.state[i]!),
        'the chains dumped their state during the minute',
      ).toBe(true);
      expect(compiles(during), during).toBe(0);
      expect(navigations - before.navigations).toBe(0);
      expect(page.url()).toBe(checkoutUrl);
      // The launcher ran from that directory.
      expect(readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')).toContain(`"launcherPid"`);
    } finally {
      await browser.close();
    }
  }, 600_000);
});
