/**
 * `npm run dev` / `npm start`: starts the embedded services the configuration leaves out
 * (lib/infra/stack.ts), then Next.js (`next dev` or `next start`) with their URLs in its environment.
 * Stops everything on Ctrl-C / SIGTERM. `dev` also seeds the demo merchant and prints its keys;
 * `start` (production) never seeds.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CHAIN_NAMES, EVM_CHAIN_NAMES } from '@/lib/chains/registry';
import { parseEnv, rpcEnvName, ConfigError } from '@/lib/env';
import { findFreePort, isPortOpen } from '@/lib/infra/free-port';
import { fundLocalWallet, localDemoPayerAccount } from '@/lib/infra/local-chain';
import { demoSeedRefusal } from '@/lib/merchants/demo-seed-guard';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { ensureDevSecrets } from '@/lib/infra/dev-secrets';
import { readRuntimeInfo, removeRuntimeInfo, writeRuntimeInfo } from '@/lib/infra/runtime-file';
import { startStack } from '@/lib/infra/stack';

const mode = process.argv[2];
if (mode !== 'dev' && mode !== 'start') {
  console.error('usage: tsx scripts/stack.mts dev|start');
  process.exit(2);
}
if (existsSync('.env')) process.loadEnvFile('.env');
(process.env as Record<string, string | undefined>).NODE_ENV ??= mode === 'dev' ? 'development' : 'production';
process.env.NEXT_TELEMETRY_DISABLED = '1';

let config;
try {
  config = parseEnv(process.env);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}

const dataDir = path.resolve(config.DATA_DIR);
const running = readRuntimeInfo(dataDir);
if (running) {
  console.error(`Another Chargeport stack (pid ${running.launcherPid}) is running from ${dataDir}. Stop it first, or set DATA_DIR.`);
  process.exit(1);
}
if (mode === 'start' && !existsSync(path.join('.next', 'BUILD_ID'))) {
  console.error('No production build found: run `npm run build` first.');
  process.exit(1);
}

const port = process.env.PORT ? Number(process.env.PORT) : await firstFreePort(3000);
const appUrl = process.env.APP_URL ?? `http://localhost:${port}`;

const say = (line: string) => console.log(`[chargeport] ${line}`);
const stack = await startStack({ dataDir, env: process.env, log: say });
const devSecrets = mode === 'dev' ? ensureDevSecrets(dataDir, process.env) : {};
const childEnv: NodeJS.ProcessEnv = { ...process.env, ...stack.env, ...devSecrets, PORT: String(port), APP_URL: appUrl };
if (childEnv.DEPOSIT_HD_SEED && stack.localChains.length) {
  // The gas tank pays fees for balance payments and sweeps; on local chains it is funded here.
  const gasTank = gasTankAccountFromSeed(childEnv.DEPOSIT_HD_SEED).address;
  await Promise.all(stack.localChains.map((node) => fundLocalWallet({ chain: node.chain, url: node.url, address: gasTank })));
  say(`Gas tank ${gasTank} funded on the local chains`);
}

// The demo keys are public: seeded only into the embedded or a local database (or with SEED_DEMO=true).
const demoSeedSkipped = mode === 'dev' ? demoSeedRefusal({ databaseUrl: childEnv.DATABASE_URL, seedDemo: config.SEED_DEMO }) : null;
if (demoSeedSkipped) say(demoSeedSkipped);
if (mode === 'dev' && !demoSeedSkipped) {
  Object.assign(process.env, stack.env, devSecrets);
  process.env.APP_URL = appUrl;
  const { seedDemoData, createDemoCharge, DEMO_KEYS, DEMO_MERCHANT, DEMO_PEOPLE } = await import('@/lib/merchants/seed-demo');
  const { closeDb } = await import('@/lib/db/client');
  const { consumerWallets } = await seedDemoData();
  const demoCharge = await createDemoCharge();
  await closeDb();
  const consumerEvm = consumerWallets.find((wallet) => wallet.family === 'evm');
  if (consumerEvm) {
    await Promise.all(
      stack.localChains.map((node) => fundLocalWallet({ chain: node.chain, url: node.url, address: consumerEvm.address as `0x${string}` })),
    );
  }
  say(`Demo merchant: ${DEMO_MERCHANT.name} (${DEMO_MERCHANT.id}), verified; owner ${DEMO_PEOPLE.owner.email}`);
  say(`  test key:              ${DEMO_KEYS.test.plaintext}`);
  say(`  production key:        ${DEMO_KEYS.live.plaintext}`);
  say(`  publishable test key:  ${DEMO_KEYS.publishableTest.plaintext}`);
  say(
    `Demo consumer: ${DEMO_PEOPLE.consumer.email}, PIN ${DEMO_PEOPLE.consumer.pin}; service wallet ${consumerEvm?.address ?? '-'} funded on the local chains`,
  );
  say(`  (sign in at ${appUrl}/signin; codes arrive in ${appUrl}/dev/mailbox)`);
  say(`Demo charge, ready to pay: ${demoCharge.paymentUrl}`);
  if (stack.localChains.length) {
    say(`Demo payer wallet on the local chains: ${localDemoPayerAccount.address}`);
    say(`  (anvil's well-known dev account #1; import its key into a browser wallet to pay test charges)`);
  }
}

writeRuntimeInfo(dataDir, {
  launcherPid: process.pid,
  startedAt: new Date().toISOString(),
  appUrl,
  embeddedDatabaseUrl: stack.embeddedDatabase?.url,
  embeddedPostgresPid: stack.embeddedDatabase?.pid,
  localRpcUrls: Object.fromEntries(stack.localChains.map((node) => [node.chain, node.url])),
});

const unconfigured = CHAIN_NAMES.filter((chain) => !childEnv[rpcEnvName(chain)] && !EVM_CHAIN_NAMES.includes(chain));
if (unconfigured.length) say(`No RPC URL for ${unconfigured.join(', ')}: charges on them are created but cannot be paid until one is set.`);

const nextBin = path.resolve('node_modules/.bin/next');
// Own process group, so stopping it also stops next-server's children.
const next = spawn(nextBin, [mode, '--port', String(port)], { env: childEnv, stdio: 'inherit', detached: true });
say(`${mode === 'dev' ? 'Development' : 'Production'} server: ${appUrl}`);
say(`  API:       ${appUrl}/api/createCharge   (reference: ${appUrl}/docs/api)`);
say(`  Health:    ${appUrl}/api/health`);

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  try {
    if (next.pid && next.exitCode === null) process.kill(-next.pid, 'SIGTERM');
  } catch {
    // already gone
  }
  await new Promise((resolve) => (next.exitCode !== null ? resolve(null) : next.once('exit', resolve)));
  await stack.stop();
  removeRuntimeInfo(dataDir);
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
next.on('exit', (code) => void shutdown(code ?? 0));

async function firstFreePort(from: number): Promise<number> {
  for (let candidate = from; candidate < from + 100; candidate++) {
    if (!(await isPortOpen(candidate))) return candidate;
  }
  return findFreePort();
}
