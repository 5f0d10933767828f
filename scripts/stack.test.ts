/**
 * The launcher in production starts no local chain node, seeds no demo data and runs the jobs in a worker.
 *
 * The launcher (`npm run dev`) stops every process it started — the anvil nodes, PostgreSQL and Next.js —
 * whether the signal reaches the tsx wrapper (what `npm run dev` runs) or the launcher process itself, when
 * one of them does not stop, and when the launcher is killed outright.
 *
 * "Its processes": every process whose command line or environment names the run's DATA_DIR (anvil's state
 * file, the PostgreSQL cluster, Next.js's environment; PostgreSQL backends inherit the postmaster's).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import postgres from 'postgres';
import { findFreePort } from '@/scripts/stack/free-port';

const STARTUP_TIMEOUT_MS = 150_000;

interface Launched {
  wrapper: ChildProcess;
  dataDir: string;
  port: number;
  output: () => string;
}

const launched: Launched[] = [];

afterEach(() => {
  // A failed test must not leave its stack behind for the next one.
  for (const run of launched.splice(0)) {
    for (const pid of processesOf(run.dataDir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    rmSync(run.dataDir, { recursive: true, force: true });
  }
});

/** `npm run dev`'s command, on a fresh data dir; resolves once Next.js says it is ready. */
async function launchDev(extraEnv: Record<string, string> = {}): Promise<Launched> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'chargeport-launcher-'));
  const port = await findFreePort();
  const suiteNode = inject('stackEnv').RPC_URL_POLYGON!;
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    PRICE_FEED_URL: '',
    RUN_JOBS_IN_WEB: 'false',
    NEXT_TELEMETRY_DISABLED: '1',
    // Fewer processes to start: POLYGON and its test network run locally (the demo charge is on POLYGON), the
    // other EVM chains point at the suite's node.
    RPC_URL_BSC: suiteNode,
    RPC_URL_BSC_TESTNET: suiteNode,
    RPC_URL_DFK: suiteNode,
    RPC_URL_DFK_TESTNET: suiteNode,
    ...extraEnv,
  } as unknown as NodeJS.ProcessEnv; // no NODE_ENV: the launcher's own default (development)
  const wrapper = spawn('node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/stack.mts', 'dev'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, as a terminal would give it: signals below go to one process only.
    detached: true,
  });
  let output = '';
  wrapper.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  wrapper.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const run = { wrapper, dataDir, port, output: () => output };
  launched.push(run);
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!/Ready in/.test(output)) {
    if (wrapper.exitCode !== null) throw new Error(`the launcher exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`the launcher did not start within ${STARTUP_TIMEOUT_MS / 1000} s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return run;
}

function processesOf(dataDir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      if (cmdline.includes(dataDir) || environ.split('\0').includes(`DATA_DIR=${dataDir}`)) found.push(pid);
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
  return found;
}

function describeProcess(pid: number): string {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()}`;
  } catch {
    return `${pid} (gone)`;
  }
}

/** The launcher itself: the node process the tsx wrapper runs it in. */
function launcherPid(wrapperPid: number): number {
  const runtime = JSON.parse(readFileSync(path.join(launched.at(-1)!.dataDir, 'runtime.json'), 'utf8')) as { launcherPid: number };
  expect(runtime.launcherPid).not.toBe(wrapperPid);
  return runtime.launcherPid;
}

function anvilPids(dataDir: string): number[] {
  return processesOf(dataDir).filter((pid) => describeProcess(pid).includes(`${dataDir}/anvil/`));
}

async function expectAllGone(dataDir: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let left = processesOf(dataDir);
  while (left.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = processesOf(dataDir);
  }
  expect(left.map(describeProcess)).toEqual([]);
}

describe.skipIf(process.platform !== 'linux')('the launcher in production', () => {
  it('starts no local chain node and seeds no demo data, runs the jobs in one worker; it says which chains are not served and where the data lives', async () => {
    // `dev` with NODE_ENV=production: the launcher decides as `npm start` does, without needing a build.
    const run = await launchDev({
      NODE_ENV: 'production',
      RPC_URL_POLYGON: inject('stackEnv').RPC_URL_POLYGON!,
      AUTH_SECRET: 'a'.repeat(32),
      PIN_PEPPER: 'p'.repeat(32),
      WALLET_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
      DEPOSIT_HD_SEED: Buffer.alloc(32, 2).toString('base64'),
      ALLOW_DEV_OUTBOX: 'true',
    });
    const output = run.output();
    expect(processesOf(run.dataDir).map(describeProcess).join('\n')).not.toMatch(/anvil/);
    expect(output).not.toMatch(/Local chains \(anvil\)|LOCAL_CHAIN_NODES=true/);
    expect(output).toContain('Not served (no RPC URL): POLYGON_AMOY, SOLANA, SOLANA_DEVNET.');
    expect(output).toContain('RPC_URL_POLYGON_AMOY, RPC_URL_SOLANA, RPC_URL_SOLANA_DEVNET');
    expect(output).toContain(`Production data lives in the embedded PostgreSQL cluster at ${run.dataDir}/pg.`);
    expect(output).toContain('docs/operations.md, "Backups"');
    expect(output).toContain('no demo data is seeded');
    expect(output).not.toMatch(/Demo merchant|cp_test_Demo|cp_live_Demo/);
    // The jobs run in a worker process of their own, stopped with the rest below.
    expect(output).toMatch(/Worker: background jobs run in process \d+/);
    const deadline = Date.now() + 60_000;
    while (!/worker \d+: background jobs started/.test(run.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(run.output()).toMatch(/worker \d+: background jobs started/);
    expect(processesOf(run.dataDir).map(describeProcess).join('\n')).toMatch(/scripts\/worker\.mts/);
    const runtime = JSON.parse(readFileSync(path.join(run.dataDir, 'runtime.json'), 'utf8')) as { embeddedDatabaseUrl: string };
    const sql = postgres(runtime.embeddedDatabaseUrl, { max: 1, onnotice: () => {} });
    try {
      expect(await sql`select id from merchants`).toHaveLength(0);
      expect(await sql`select id from api_keys`).toHaveLength(0);
    } finally {
      await sql.end();
    }
    run.wrapper.kill('SIGTERM');
    await expectAllGone(run.dataDir, 40_000);
  }, 240_000);
});

describe.skipIf(process.platform !== 'linux')('the launcher stops what it started', () => {
  it('SIGTERM to the tsx wrapper stops Next.js, PostgreSQL, the anvil nodes and the sign-in stand-ins, even a node that ignores SIGTERM', async () => {
    const run = await launchDev();
    const running = processesOf(run.dataDir).map(describeProcess).join('\n');
    expect(running).toMatch(/anvil/);
    expect(running).toMatch(/postgres/);
    expect(running).toMatch(/next/);
    // Without Google or Apple credentials, "Continue with Google / Apple" signs in through the local stand-ins.
    const standIns = /Sign-in stand-ins for google and apple \(local OpenID providers\): (http:\/\/\S+)/.exec(run.output())?.[1];
    expect(standIns, run.output()).toBeDefined();
    const discovery = (await (await fetch(`${standIns}/google/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(discovery.issuer).toBe(`${standIns}/google`);
    const providers = (await (await fetch(`http://localhost:${run.port}/api/auth/providers`)).json()) as Record<string, unknown>;
    expect(Object.keys(providers)).toEqual(expect.arrayContaining(['google', 'apple']));
    // A child that will not stop: a stopped process leaves SIGTERM pending; only SIGKILL ends it.
    const [stuck] = anvilPids(run.dataDir);
    process.kill(stuck!, 'SIGSTOP');

    run.wrapper.kill('SIGTERM');
    await expectAllGone(run.dataDir, 40_000);
    expect(run.wrapper.exitCode ?? run.wrapper.signalCode).not.toBeNull();
    await expect(fetch(`${standIns}/google/.well-known/openid-configuration`)).rejects.toThrow();
  }, 240_000);

  it('SIGINT to the launcher process itself stops everything', async () => {
    const run = await launchDev();
    process.kill(launcherPid(run.wrapper.pid!), 'SIGINT');
    await expectAllGone(run.dataDir, 40_000);
  }, 240_000);

  it('the launcher killed with SIGKILL: its reaper stops everything', async () => {
    const run = await launchDev();
    process.kill(launcherPid(run.wrapper.pid!), 'SIGKILL');
    await expectAllGone(run.dataDir, 40_000);
  }, 240_000);
});
