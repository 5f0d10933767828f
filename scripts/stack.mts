/**
 * `npm run dev` / `npm start`: starts the embedded services the configuration leaves out
 * (scripts/stack/stack.ts) and applies the migrations, then Next.js with their URLs in its environment: `next dev`,
 * or for `npm start` the standalone server of the build, `node .next/standalone/server.js` (scripts/stack/next-server.ts).
 * In production it also starts one worker (scripts/worker.mts) and runs the web server without jobs.
 * `dev` also seeds the demo merchant and prints its keys; production never seeds.
 *
 * Local chain nodes (anvil for EVM chains, a LiteSVM cluster for Solana) start for chains without an RPC URL in
 * development, and in production only with LOCAL_CHAIN_NODES=true (scripts/stack/chain-plan.ts). Stopping: SIGINT, SIGTERM or SIGHUP — to this process or
 * to the tsx wrapper that runs it — stops Next.js, then the chains and PostgreSQL, each forced with SIGKILL
 * when it does not stop in time; if this process itself is killed, the reaper (scripts/stack/reaper.ts) does it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv, ConfigError } from '@/lib/env';
import { planChains } from '@/scripts/stack/chain-plan';
import { findFreePort, isPortOpen } from '@/scripts/stack/free-port';
import { fundLocalWallet, localDemoPayerAccount, type LocalChainNode } from '@/scripts/stack/local-chain';
import { fundLocalSolanaWallet } from '@/scripts/stack/local-solana';
import { localSolanaDemoPayerAccount } from '@/lib/keyring/local-solana-accounts';
import { CHAINS } from '@/lib/chains/registry';
import { demoSeedRefusal } from '@/lib/merchants/demo-seed-refusal';
import { gasTankAccountFromSeed, gasTankSolanaKeyFromSeed } from '@/lib/transactions/gas-tank-key';
import { ensureDevSecrets } from '@/scripts/stack/dev-secrets';
import { startReaper } from '@/scripts/stack/reaper';
import { resolveDataDir } from '@/scripts/stack/data-dir';
import { readRuntimeInfo, removeRuntimeInfo, writeRuntimeInfo } from '@/scripts/stack/runtime-file';
import { readServerStart } from '@/lib/admin/server-start';
import { startStack, type Stack } from '@/scripts/stack/stack';
import { nextServerCommand, NoProductionBuild, type NextServerCommand } from '@/scripts/stack/next-server';
import { startIdentityStandIns, STAND_IN_PROVIDERS } from '@/scripts/stack/identity-stand-ins';
import { LOCAL_SWAP_ADDRESSES } from '@/lib/chains/provision-local-swap';

const mode = process.argv[2];
if (mode !== 'dev' && mode !== 'start') {
  console.error('usage: tsx scripts/stack.mts dev|start');
  process.exit(2);
}
if (existsSync('.env')) process.loadEnvFile('.env');
(process.env as Record<string, string | undefined>).NODE_ENV ??= mode === 'dev' ? 'development' : 'production';
process.env.NEXT_TELEMETRY_DISABLED = '1';
// Outside the project unless DATA_DIR says otherwise (scripts/stack/data-dir.ts); set here, so Next.js and the
// worker (the dev outbox) use the same directory.
process.env.DATA_DIR = resolveDataDir({
  projectRoot: process.cwd(),
  migrate: mode === 'dev' && process.env.NODE_ENV !== 'production',
  log: (line) => (line.startsWith('WARNING') ? console.warn : console.log)(`[chargeport] ${line}`),
});

let config;
try {
  config = parseEnv(process.env);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}

const dataDir = config.DATA_DIR;
const running = readRuntimeInfo(dataDir);
if (running) {
  console.error(`Another Chargeport stack (pid ${running.launcherPid}) is running from ${dataDir}. Stop it first, or set DATA_DIR.`);
  process.exit(1);
}

const port = process.env.PORT ? Number(process.env.PORT) : await firstFreePort(3000);
// `next dev`, or the standalone server of the production build (with its static files copied beside it).
let nextCommand: NextServerCommand;
try {
  nextCommand = nextServerCommand(mode, { root: process.cwd(), port });
} catch (error) {
  if (!(error instanceof NoProductionBuild)) throw error;
  console.error(error.message);
  process.exit(1);
}
const appUrl = process.env.APP_URL ?? `http://localhost:${port}`;

const say = (line: string) => console.log(`[chargeport] ${line}`);
const isProduction = config.NODE_ENV === 'production';
// STACK_SKIP_LOCAL_CHAINS (e2e stack only): chains left without a local node, so one chain stays unserved.
const chainPlan = planChains(config, process.env.STACK_SKIP_LOCAL_CHAINS?.split(',').filter(Boolean));

// Signals may arrive while the stack is still starting: remember them, stop once started.
let stack: Stack | undefined;
let startupSignal: NodeJS.Signals | undefined;
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const onStartupSignal = (signal: NodeJS.Signals) => (startupSignal = signal);
for (const signal of STOP_SIGNALS) process.on(signal, onStartupSignal);

try {
  // STACK_POSTGRES_SETTINGS (benchmarks only: `bench:api -- --statements`): extra `-c` settings for the embedded cluster.
  const postgresSettings = process.env.STACK_POSTGRES_SETTINGS?.split(';').filter(Boolean);
  stack = await startStack({
    dataDir,
    env: process.env,
    chains: chainPlan.localChains,
    log: say,
    ...(postgresSettings?.length ? { postgresSettings } : {}),
  });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
await stopIfSignaled(stack);
// ADR 0035, decision 4: `npm run dev` and the e2e stack relay spends through EIP-7702 smart accounts on their local
// Polygon node (the launcher deployed the EntryPoint and Simple7702Account there). SMART_ACCOUNT_CHAINS set, even empty, wins.
if (process.env.SMART_ACCOUNT_CHAINS === undefined && stack.localChains.some((node) => node.chain === 'POLYGON')) {
  stack.env.SMART_ACCOUNT_CHAINS = 'POLYGON';
  say('Smart accounts (ADR 0035) on the local Polygon node: SMART_ACCOUNT_CHAINS=POLYGON');
}
for (const line of chainPlan.messages) {
  if (line.startsWith('WARNING')) console.warn(`[chargeport] ${line}`);
  else say(line);
}
if (isProduction && stack.embeddedDatabase) {
  say(`Production data lives in the embedded PostgreSQL cluster at ${stack.embeddedDatabase.clusterDir}.`);
  say('  Back it up, and escrow DEPOSIT_HD_SEED and WALLET_MASTER_KEY: docs/operations.md, "Backups".');
}
if (!isProduction) {
  // Before seeding demo data or starting Next.js: a database a production server opened is not for development (N17).
  const last = await readServerStart(stack.databaseUrl);
  if (last?.production) {
    console.error(
      `NODE_ENV is ${config.NODE_ENV}, not production, but this database was last opened by a production ${last.role} at ${last.at}. ` +
        'Start with the production environment, or use another DATA_DIR or DATABASE_URL for development.',
    );
    await stack.stop();
    process.exit(1);
  }
}
const devSecrets = mode === 'dev' && !isProduction ? ensureDevSecrets(dataDir, process.env) : {};
// "Continue with Google / Apple" on `npm run dev` without credentials: local stand-ins (never in production).
const standInProviders = STAND_IN_PROVIDERS.filter((name) => !config[name === 'google' ? 'GOOGLE_CLIENT_ID' : 'APPLE_CLIENT_ID']);
const identityStandIns =
  mode === 'dev' && !isProduction && standInProviders.length
    ? await startIdentityStandIns({ appUrl, providers: standInProviders })
    : undefined;
if (identityStandIns) say(`Sign-in stand-ins for ${standInProviders.join(' and ')} (local OpenID providers): ${identityStandIns.url}`);
const childEnv: NodeJS.ProcessEnv = {
  ...process.env,
  ...stack.env,
  ...devSecrets,
  ...identityStandIns?.env,
  PORT: String(port),
  APP_URL: appUrl,
  // Absolute: the standalone server runs in .next/standalone.
  DATA_DIR: dataDir,
};
const isSolanaNode = (node: LocalChainNode) => CHAINS[node.chain].family === 'solana';
if (childEnv.DEPOSIT_HD_SEED && stack.localChains.length) {
  // The gas tank pays fees for balance payments and sweeps (on Solana as the fee payer); on local chains it is funded here.
  const gasTank = gasTankAccountFromSeed(childEnv.DEPOSIT_HD_SEED).address;
  const solanaTank = gasTankSolanaKeyFromSeed(childEnv.DEPOSIT_HD_SEED).address;
  await Promise.all(
    stack.localChains.map((node) =>
      isSolanaNode(node)
        ? fundLocalSolanaWallet({ chain: node.chain, url: node.url, address: solanaTank })
        : fundLocalWallet({ chain: node.chain, url: node.url, address: gasTank, onTheRecord: true }),
    ),
  );
  say(`Gas tank ${gasTank} funded on the local chains${stack.localChains.some(isSolanaNode) ? `; on Solana ${solanaTank}` : ''}`);
}

if (mode === 'dev' && isProduction) say('NODE_ENV is production: no demo data is seeded.');
// Demo data and its fixed keys: development only (seedDemoData refuses in production too), and only into
// the embedded or a local database (or with SEED_DEMO=true): the demo keys are public.
const demoSeedSkipped =
  mode === 'dev' && !isProduction ? demoSeedRefusal({ databaseUrl: childEnv.DATABASE_URL, seedDemo: config.SEED_DEMO }) : null;
if (demoSeedSkipped) say(demoSeedSkipped);
if (mode === 'dev' && !isProduction && !demoSeedSkipped) {
  Object.assign(process.env, stack.env, devSecrets);
  process.env.APP_URL = appUrl;
  const { seedDemoData, createDemoCharge, DEMO_KEYS, DEMO_MERCHANT, DEMO_PEOPLE } = await import('@/lib/admin/seed-demo');
  const { closeDb } = await import('@/lib/db/client');
  const { consumerWallets } = await seedDemoData();
  const { seedDemoOAuthApp } = await import('@/lib/admin/seed-demo-app');
  const demoApp = await seedDemoOAuthApp();
  // On POLYGON: with LOCAL_CHAIN_NODES=false and no RPC_URL_POLYGON there is none (chain_not_configured).
  const demoCharge = await createDemoCharge(appUrl).catch((error: unknown) => {
    say(`No demo charge: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  });
  // The Contracts tab's demo: a game-items ERC-1155 on the local POLYGON node, registered with a mint rule.
  const polygonNode = stack.localChains.find((node) => node.chain === 'POLYGON');
  const gameItems = polygonNode
    ? await import('@/lib/admin/demo-game-items')
        .then(({ provisionDemoGameItems }) => provisionDemoGameItems({ url: polygonNode.url }))
        .catch((error: unknown) => {
          say(`No demo game items: ${error instanceof Error ? error.message : String(error)}`);
          return undefined;
        })
    : undefined;
  await closeDb();
  const consumerEvm = consumerWallets.find((wallet) => wallet.family === 'evm');
  const consumerSolana = consumerWallets.find((wallet) => wallet.family === 'solana');
  await Promise.all(
    // On the record (a transaction the wallet indexer sees): the ledger counts this service wallet's opening balance.
    // On Solana every top-up is a transaction (an airdrop from the faucet, a mint), in the wallet's history.
    stack.localChains.map(async (node) => {
      if (isSolanaNode(node)) {
        if (consumerSolana) await fundLocalSolanaWallet({ chain: node.chain, url: node.url, address: consumerSolana.address });
      } else if (consumerEvm) {
        await fundLocalWallet({ chain: node.chain, url: node.url, address: consumerEvm.address as `0x${string}`, onTheRecord: true });
      }
    }),
  );
  say(
    `Demo merchant: ${DEMO_MERCHANT.name} (${DEMO_MERCHANT.id}), verified; owner ${DEMO_PEOPLE.owner.email}, PIN ${DEMO_PEOPLE.owner.pin}`,
  );
  say(`  test key:              ${DEMO_KEYS.test.plaintext}`);
  say(`  production key:        ${DEMO_KEYS.live.plaintext}`);
  say(`  publishable test key:  ${DEMO_KEYS.publishableTest.plaintext}`);
  say(
    `Demo consumer: ${DEMO_PEOPLE.consumer.email}, PIN ${DEMO_PEOPLE.consumer.pin}; service wallet ${consumerEvm?.address ?? '-'} funded on the local chains`,
  );
  if (consumerSolana && stack.localChains.some(isSolanaNode))
    say(`  Solana service wallet ${consumerSolana.address} funded on the local Solana clusters (SOL, and USDC on SOLANA)`);
  say(`  (sign in at ${appUrl}/signin; codes arrive in ${appUrl}/dev/mailbox)`);
  if (demoCharge) say(`Demo charge, ready to pay: ${demoCharge.paymentUrl}  (paid or canceled, it returns to ${appUrl}/)`);
  // The swap on-ramp's token: merchants need its address for createCharge (symbol PZP, chain BSC).
  const pzpAddress =
    config.PZP_BSC_TOKEN_ADDRESS ?? (stack.localChains.some((node) => node.chain === 'BSC') ? LOCAL_SWAP_ADDRESSES.pzp : undefined);
  if (pzpAddress) say(`PZP on BNB Smart Chain (swap on-ramp): tokenAddress ${pzpAddress}  (createCharge: symbol PZP, chain BSC)`);
  if (gameItems) {
    say(`Demo game items (ERC-1155) on the local POLYGON node: ${gameItems}`);
    say("  on the demo merchant's Contracts tab: a succeeded charge with metadata.itemId mints that item to the payer");
  }
  say(`Demo OAuth app (Sign in with Chargeport): client id ${demoApp.clientId}; try it on ${appUrl}/examples/pay`);
  if (stack.localChains.length) {
    say(`Demo payer wallet on the local chains: ${localDemoPayerAccount.address}`);
    say(`  (anvil's well-known dev account #1; import its key into a browser wallet to pay test charges)`);
  }
  if (stack.localChains.some(isSolanaNode)) {
    say(`Demo payer wallet on the local Solana clusters: ${localSolanaDemoPayerAccount.address} (SOL, and USDC on SOLANA)`);
    say(`  (account 2 of anvil's mnemonic "test test … junk" imported into Phantom or Solflare; point the wallet at the cluster's URL)`);
  }
}

await stopIfSignaled(stack);
const startedStack = stack;
writeRuntimeInfo(dataDir, {
  launcherPid: process.pid,
  startedAt: new Date().toISOString(),
  appUrl,
  embeddedDatabaseUrl: startedStack.embeddedDatabase?.url,
  embeddedPostgresPid: startedStack.embeddedDatabase?.pid,
  localRpcUrls: Object.fromEntries(startedStack.localChains.map((node) => [node.chain, node.url])),
});

// Production: background jobs run in a worker process beside the web server, each with its own pool.
const startsWorker = isProduction && config.START_WORKER;
// Own process group, so stopping it also stops next-server's children.
const next = spawn(nextCommand.command, nextCommand.args, {
  cwd: nextCommand.cwd,
  env: { ...childEnv, ...nextCommand.env, ...(startsWorker ? { RUN_JOBS_IN_WEB: 'false' } : {}) },
  stdio: 'inherit',
  detached: true,
});
const worker = startsWorker
  ? spawn(path.resolve('node_modules/.bin/tsx'), ['--conditions=react-server', 'scripts/worker.mts'], {
      env: childEnv,
      stdio: 'inherit',
      detached: true,
    })
  : undefined;
const reaper = startReaper({
  watchPid: process.pid,
  pids: [startedStack.embeddedDatabase?.pid, ...startedStack.localChains.map((node) => node.process.pid)].filter(
    (pid): pid is number => pid !== undefined,
  ),
  processGroups: [next.pid, worker?.pid].filter((pid): pid is number => pid !== undefined),
});
say(`${mode === 'dev' ? 'Development' : 'Production'} server: ${appUrl}`);
say(`  API:       ${appUrl}/api/createCharge   (reference: ${appUrl}/docs/api)`);
say(`  Health:    ${appUrl}/api/health   (probes: /api/health/live, /api/health/ready)`);
if (worker) say(`Worker: background jobs run in process ${worker.pid ?? '?'}, not in the web server (START_WORKER=false: none)`);
else if (isProduction)
  say('No worker started (START_WORKER=false): run `npm run worker` beside this instance, or set RUN_JOBS_IN_WEB=true.');

const NEXT_STOP_GRACE_MS = 10_000;
/** Past this, whatever still runs is killed and the launcher exits anyway. */
const SHUTDOWN_DEADLINE_MS = 30_000;
let stopping = false;

function killGroup(child: ChildProcess | undefined, signal: NodeJS.Signals): void {
  try {
    if (child?.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
const killNextGroup = (signal: NodeJS.Signals) => killGroup(next, signal);

/** SIGTERM to the child's process group, SIGKILL after the grace period and for stragglers of its group. */
async function stopGroup(child: ChildProcess | undefined): Promise<void> {
  if (!child) return;
  if (child.exitCode !== null || child.signalCode !== null) return killGroup(child, 'SIGKILL');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), NEXT_STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
  killGroup(child, 'SIGKILL');
}

async function shutdown(code: number, reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  say(`Stopping (${reason}): Next.js and the worker, then the local chains and PostgreSQL`);
  setTimeout(() => {
    console.error(`[chargeport] still stopping after ${SHUTDOWN_DEADLINE_MS / 1000} s: killing what is left`);
    killNextGroup('SIGKILL');
    killGroup(worker, 'SIGKILL');
    for (const pid of [startedStack.embeddedDatabase?.pid, ...startedStack.localChains.map((node) => node.process.pid)]) {
      try {
        if (pid) process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    removeRuntimeInfo(dataDir);
    reaper.dismiss();
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS).unref();
  // Next.js and the worker first (they use the database and the chains), then everything else in parallel.
  await Promise.all([stopGroup(next), stopGroup(worker)]).catch(() => {});
  await Promise.all([startedStack.stop(), identityStandIns?.stop()]);
  removeRuntimeInfo(dataDir);
  reaper.dismiss();
  process.exit(code);
}
for (const signal of STOP_SIGNALS) {
  process.off(signal, onStartupSignal);
  process.on(signal, () => void shutdown(0, signal));
}
next.on('exit', (code, signal) => void shutdown(code ?? 0, `Next.js exited (${signal ?? `code ${code}`})`));
// A dead worker would leave payments undetected and webhooks undelivered: stop, so a supervisor restarts it all.
worker?.on('exit', (code, signal) => void shutdown(1, `the worker exited (${signal ?? `code ${code}`})`));
watchTsxWrapper();

/** A stop signal came while starting: stop what is up and leave before starting Next.js. */
async function stopIfSignaled(started: Stack): Promise<void> {
  if (!startupSignal) return;
  say(`${startupSignal} while starting: stopping`);
  await started.stop();
  process.exit(0);
}

/**
 * `npm run dev` runs this file in a child of the tsx wrapper. The wrapper relays SIGINT/SIGTERM here, but if it
 * is killed outright this process would keep the stack running with nobody to stop it: stop when it goes.
 */
function watchTsxWrapper(): void {
  const parent = process.ppid;
  let parentIsTsx = false;
  try {
    parentIsTsx = readFileSync(`/proc/${parent}/cmdline`, 'utf8').includes('tsx');
  } catch {
    return; // no /proc: nothing to watch with
  }
  if (!parentIsTsx) return;
  setInterval(() => {
    if (process.ppid !== parent) void shutdown(1, 'the tsx wrapper is gone');
  }, 1_000).unref();
}

async function firstFreePort(from: number): Promise<number> {
  for (let candidate = from; candidate < from + 100; candidate++) {
    if (!(await isPortOpen(candidate))) return candidate;
  }
  return findFreePort();
}
