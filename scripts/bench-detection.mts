/**
 * `npm run bench:detection`: how soon a paid charge is known, against the production build (issue 27,
 * point 2; ADR "payments seen at their block").
 *
 * Builds if `.next/BUILD_ID` is missing, starts the production stack (scripts/stack.mts start: the web
 * server, one worker, embedded PostgreSQL and local anvil nodes) on a free loopback port with a fresh
 * data dir (.data/bench-detection), creates a verified merchant with the admin CLI and a test-mode webhook
 * endpoint on a receiver on 127.0.0.1 (live endpoints must be https to a public address), then runs one
 * phase per `--rates` entry: `--seconds` × rate test charges (0.1 POL, the smallest POL charge, on the local POLYGON_AMOY node), an
 * open checkout event stream (GET /api/checkout/{id}/events) per charge, and one payment per charge sent
 * at that rate (one sender, nonces counted here). On the local node one
 * confirmation makes a payment final (lib/chains/required-confirmations.ts), so the block that makes it
 * final is the block that includes it; its time is when this script's own newHeads subscription heard
 * of it (the same WebSocket the worker listens on). Printed per rate, p50 and p95 of:
 *  (a) block → the charge's checkout stream sending `succeeded`;
 *  (b) block → the receiver getting `charge.succeeded`;
 * beside the figures measured before (polling: 1.9–2.4 s from send to Paid). Aim: p95 ≤ 1 s.
 *
 * The node makes a block every `--block-seconds` (1: between BNB Smart Chain's 0.75 s and Polygon's 2 s;
 * 0 = anvil's automine, a block per payment, which at 50/s is 50 blocks a second, more than any chain).
 *
 * Then the same per rate on Solana (`--chains`, default both): test charges of 0.01 SOL on the local
 * SOLANA_DEVNET cluster (LiteSVM, a slot every 400 ms), one SOL transfer per charge from the demo payer. The
 * worker's block reader is woken by each slot (ADR 0037) and reads the slot's block once it is complete. The
 * cluster is one node: a slot's block is confirmed and finalized when the next slot begins, so the moment the
 * payment is final is when this script's own slotSubscribe hears the slot after the payment's (the same
 * websocket the worker listens on); (a) and (b) are measured from there.
 *
 *   npm run bench:detection -- [--chains evm,solana] [--rates 1,50] [--seconds 10] [--block-seconds 1] [--verbose]
 *
 * Progress goes to stderr, the table to stdout. Stops the stack and deletes its data dir afterwards,
 * also on Ctrl-C. Exit code 0 when every payment was seen by both, 1 otherwise (the aim is reported).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Signature,
} from '@solana/kit';
import { createPublicClient, createWalletClient, defineChain, http as httpTransport, parseEther, webSocket, type Hex } from 'viem';
import { CHAINS, SOLANA_NATIVE_MINT } from '@/lib/chains/registry';
import { localSolanaDemoPayerAccount } from '@/lib/keyring/local-solana-accounts';
import { localDemoPayerAccount } from '@/scripts/stack/local-chain';
import { readRuntimeInfo } from '@/scripts/stack/runtime-file';
import { BenchError, benchEnv, killGroup, ProductionStack, sleep } from './lib/production-stack.mts';

const { values: args } = parseArgs({
  options: {
    chains: { type: 'string', default: 'evm,solana' },
    rates: { type: 'string', default: '1,50' },
    seconds: { type: 'string', default: '10' },
    'block-seconds': { type: 'string', default: '1' },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  console.log('usage: npm run bench:detection -- [--chains evm,solana] [--rates 1,50] [--seconds 10] [--block-seconds 1] [--verbose]');
  process.exit(0);
}
const RATES = args.rates.split(',').map(Number);
const FAMILIES = args.chains.split(',');
const SECONDS = Number(args.seconds);
/** 0: a block per transaction (anvil's automine); else a block every that many seconds, as a real chain. */
const BLOCK_SECONDS = Number(args['block-seconds']);
if (
  !RATES.every((rate) => Number.isInteger(rate) && rate >= 1 && rate <= 200) ||
  !FAMILIES.length ||
  !FAMILIES.every((family) => family === 'evm' || family === 'solana') ||
  !Number.isInteger(SECONDS) ||
  SECONDS < 1 ||
  SECONDS > 120
) {
  console.error(
    '--chains: evm, solana or both, comma-separated; --rates: integers from 1 to 200, comma-separated; --seconds: an integer from 1 to 120',
  );
  process.exit(2);
}

const ROOT = process.cwd();
const DATA_DIR = path.join('.data', 'bench-detection');
const DATA_DIR_ABS = path.resolve(ROOT, DATA_DIR);
const AIM_P95_MS = 1_000;
/** Measured before this change (issue 27): send → checkout showing Paid, polling watchers and checkout. */
const BEFORE = '1.9–2.4 s';
/** Solana before this change: no figure was taken; the watcher searched every open charge's addresses every 2 s. */
const SOLANA_BEFORE = 'not measured (2 s poll)';
/** A payment not seen by then counts as missed. */
const SEEN_TIMEOUT_MS = 90_000;
const NATIVE = '0x0000000000000000000000000000000000000000';

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
let interrupted = false;
const checkInterrupted = () => {
  if (interrupted) throw new BenchError('interrupted');
};

/** A production configuration that stays on this machine (as bench:api): embedded database and chains. */
const BENCH_ENV = benchEnv({
  root: ROOT,
  dataDir: DATA_DIR,
  blank: (name) => name === 'DATABASE_URL' || name.startsWith('RPC_URL_') || name.startsWith('RPC_WS_URL_'),
  extra: {
    // The receiver is on 127.0.0.1; every stream comes from this one address.
    WEBHOOKS_ALLOW_LOOPBACK: 'true',
    CHECKOUT_STREAMS_PER_IP: '100000',
    API_RATE_LIMIT_PER_MINUTE: '100000000',
    NEXT_TELEMETRY_DISABLED: '1',
  },
});

// ---------------------------------------------------------------------------------------------
// Processes (own process groups; the stack and its watchdog: scripts/lib/production-stack.mts)

let activeRun: ChildProcess | undefined;

function run(command: string, argv: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs: number; inherit?: boolean }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd: ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', options.inherit ? process.stderr : 'pipe', options.inherit ? process.stderr : 'pipe'],
      detached: true,
    });
    activeRun = child;
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
      reject(new BenchError(`${command} ${argv.join(' ')} took longer than ${options.timeoutMs / 1000} s`));
    }, options.timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new BenchError(`${command} ${argv.join(' ')} failed (${signal ?? `exit ${code}`}):\n${stderr.trim()}`));
    });
  });
}

const stack = new ProductionStack({ root: ROOT, dataDir: DATA_DIR, env: BENCH_ENV, log, isInterrupted: () => interrupted });

// ---------------------------------------------------------------------------------------------
// Measuring

/** When each charge's `charge.succeeded` reached the receiver. */
const webhookAt = new Map<string, number>();

function startReceiver(): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const at = Date.now();
      try {
        const event = JSON.parse(body) as { type?: string; data?: { charge?: { id?: string } } };
        const chargeId = event.data?.charge?.id;
        if (event.type === 'charge.succeeded' && chargeId && !webhookAt.has(chargeId)) webhookAt.set(chargeId, at);
      } catch {
        // not ours
      }
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, close: () => server.close() }),
    ),
  );
}

/** Follows a charge's checkout stream; resolves with the time it sent `succeeded` (undefined on timeout). */
function followStream(baseUrl: string, chargeId: string, opened: () => void): { done: Promise<number | undefined>; abort: () => void } {
  const controller = new AbortController();
  const done = (async () => {
    const response = await fetch(`${baseUrl}/api/checkout/${chargeId}/events`, { signal: controller.signal });
    if (response.status !== 200 || !response.body) throw new BenchError(`events stream answered ${response.status}`);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let first = true;
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return undefined;
      buffer += decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!block.startsWith('data: ')) continue;
        if (first) {
          first = false;
          opened();
        }
        if ((JSON.parse(block.slice(6)) as { status: string }).status === 'succeeded') {
          const at = Date.now();
          controller.abort();
          return at;
        }
      }
    }
  })().catch((error: unknown) => {
    if (controller.signal.aborted) return undefined;
    throw error;
  });
  return { done, abort: () => controller.abort() };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

interface PhaseResult {
  family: 'evm' | 'solana';
  rate: number;
  payments: number;
  checkout: number[];
  webhook: number[];
  missed: { checkout: number; webhook: number };
}

/** What a phase needs of a chain: a charge body, and a way to pay a deposit address. */
interface PhaseChain {
  family: 'evm' | 'solana';
  chargeData: Record<string, string>;
  /** Sends the payment; resolves with a handle `finalAt` turns into the time it became final. */
  pay: (deposit: string) => Promise<string>;
  /** When the payment became final (ms), or throws when the script never heard of it. */
  finalAt: (sent: string) => Promise<number>;
}

/** Creates `rate × SECONDS` charges with an open checkout stream each, pays them at `rate`, and measures. */
async function runPhase(baseUrl: string, apiKey: string, chain: PhaseChain, rate: number): Promise<PhaseResult> {
  const count = rate * SECONDS;
  log(`${chain.family}, rate ${rate}/s: ${count} charges, one open checkout stream each`);
  const charges: { id: string; deposit: string }[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${baseUrl}/api/createCharge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ chargeData: chain.chargeData, isTest: true }),
    });
    const body = (await response.json()) as { data?: { chargeId: string } };
    if (!body.data) throw new BenchError(`createCharge answered ${response.status}: ${JSON.stringify(body)}`);
    const status = (await (await fetch(`${baseUrl}/api/checkout/${body.data.chargeId}/status`)).json()) as {
      data: { deposit: { address: string } };
    };
    charges.push({ id: body.data.chargeId, deposit: status.data.deposit.address });
  }
  let openStreams = 0;
  const streams = charges.map((charge) => followStream(baseUrl, charge.id, () => (openStreams += 1)));
  while (openStreams < count) {
    checkInterrupted();
    await sleep(50);
  }
  log(`  ${count} streams open; paying at ${rate}/s`);
  const sent: { chargeId: string; handle: string }[] = [];
  const started = Date.now();
  for (const [i, charge] of charges.entries()) {
    const due = started + (i * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    sent.push({ chargeId: charge.id, handle: await chain.pay(charge.deposit) });
  }
  const seen = await Promise.all(
    streams.map((stream) => Promise.race([stream.done, sleep(SEEN_TIMEOUT_MS).then(() => (stream.abort(), undefined))])),
  );
  for (let waited = 0; waited < SEEN_TIMEOUT_MS && sent.some((s) => !webhookAt.has(s.chargeId)); waited += 100) await sleep(100);
  const phase: PhaseResult = {
    family: chain.family,
    rate,
    payments: count,
    checkout: [],
    webhook: [],
    missed: { checkout: 0, webhook: 0 },
  };
  for (const [i, payment] of sent.entries()) {
    const final = await chain.finalAt(payment.handle);
    const streamAt = seen[i];
    if (streamAt === undefined) phase.missed.checkout += 1;
    else phase.checkout.push(streamAt - final);
    const hookAt = webhookAt.get(payment.chargeId);
    if (hookAt === undefined) phase.missed.webhook += 1;
    else phase.webhook.push(hookAt - final);
  }
  log(`  done: ${phase.checkout.length} seen on the checkout, ${phase.webhook.length} webhooks`);
  return phase;
}

/** Native POL on the local POLYGON_AMOY node; one confirmation: the including block makes a payment final. */
async function evmChain(rpc: string): Promise<PhaseChain & { close: () => void }> {
  // Block arrival times, from a newHeads subscription of our own.
  const blockAt = new Map<bigint, number>();
  const wsClient = createPublicClient({ transport: webSocket(rpc.replace(/^http/, 'ws')) });
  const unwatch = wsClient.watchBlockNumber({ onBlockNumber: (n) => blockAt.set(n, Date.now()), onError: () => {} });
  const chain = defineChain({
    id: CHAINS.POLYGON_AMOY.evmChainId!,
    name: 'local',
    nativeCurrency: { name: 'POL', symbol: 'POL', decimals: 18 },
    rpcUrls: { default: { http: [rpc] } },
  });
  const publicClient = createPublicClient({ chain, transport: httpTransport(rpc) });
  const wallet = createWalletClient({ account: localDemoPayerAccount, chain, transport: httpTransport(rpc) });
  if (BLOCK_SECONDS > 0) {
    await publicClient.request({ method: 'evm_setAutomine' as never, params: [false] as never });
    await publicClient.request({ method: 'evm_setIntervalMining' as never, params: [BLOCK_SECONDS] as never });
  }
  let nonce = await publicClient.getTransactionCount({ address: localDemoPayerAccount.address, blockTag: 'pending' });
  return {
    family: 'evm',
    chargeData: { symbol: 'POL', chain: 'POLYGON_AMOY', tokenAddress: NATIVE, amount: '0.1' },
    pay: (deposit) => wallet.sendTransaction({ to: deposit as Hex, value: parseEther('0.1'), gas: 21_000n, nonce: nonce++ }),
    finalAt: async (hash) => {
      const receipt = await publicClient.getTransactionReceipt({ hash: hash as Hex });
      const final = blockAt.get(receipt.blockNumber);
      if (final === undefined) throw new BenchError(`block ${receipt.blockNumber} was not heard on the subscription`);
      return final;
    },
    close: unwatch,
  };
}

/** 0.01 SOL on the local SOLANA_DEVNET cluster: a slot's block is final (one node) when the next slot begins. */
async function solanaChain(rpcUrl: string): Promise<PhaseChain & { close: () => void }> {
  const rpc = createSolanaRpc(rpcUrl);
  const payer = await createKeyPairSignerFromBytes(localSolanaDemoPayerAccount.secretKey);
  // Slot arrival times, from a slotSubscribe of our own.
  const slotAt = new Map<bigint, number>();
  const abort = new AbortController();
  const slots = await createSolanaRpcSubscriptions(rpcUrl.replace(/^http/, 'ws'))
    .slotNotifications()
    .subscribe({ abortSignal: abort.signal });
  void (async () => {
    for await (const notification of slots) slotAt.set(notification.slot, Date.now());
  })().catch(() => {});
  return {
    family: 'solana',
    chargeData: { symbol: 'SOL', chain: 'SOLANA_DEVNET', tokenAddress: SOLANA_NATIVE_MINT, amount: '0.01' },
    pay: async (deposit) => {
      const { value: lifetime } = await rpc.getLatestBlockhash().send();
      const transaction = await pipe(
        createTransactionMessage({ version: 0 }),
        (message) => setTransactionMessageFeePayerSigner(payer, message),
        (message) => setTransactionMessageLifetimeUsingBlockhash(lifetime, message),
        (message) =>
          appendTransactionMessageInstructions(
            [getTransferSolInstruction({ source: payer, destination: address(deposit), amount: lamports(10_000_000n) })],
            message,
          ),
        (message) => signTransactionMessageWithSigners(message),
      );
      return rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send();
    },
    finalAt: async (signature) => {
      const { value } = await rpc.getSignatureStatuses([signature as Signature]).send();
      const slot = value[0]?.slot;
      if (slot === undefined) throw new BenchError(`${signature} never landed`);
      // The first slot heard after it (a late clock tick announces only the slot it jumps to).
      let final: { slot: bigint; at: number } | undefined;
      for (const [heard, at] of slotAt) if (heard > slot && (!final || heard < final.slot)) final = { slot: heard, at };
      if (!final) throw new BenchError(`no slot after ${slot} was heard on the subscription`);
      return final.at;
    },
    close: () => abort.abort(),
  };
}

async function main(): Promise<number> {
  if (!existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) {
    log('no production build: running `next build` first');
    await run(path.join(ROOT, 'node_modules/.bin/next'), ['build'], {
      env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
      timeoutMs: 900_000,
      inherit: true,
    });
  }
  checkInterrupted();
  const baseUrl = await stack.start();
  const localRpcUrls = readRuntimeInfo(DATA_DIR_ABS)?.localRpcUrls ?? {};
  const chains: (PhaseChain & { close: () => void })[] = [];
  if (FAMILIES.includes('evm')) {
    const rpc = localRpcUrls.POLYGON_AMOY;
    if (!rpc) throw new BenchError('the stack runs no local POLYGON_AMOY node');
    log(`stack is healthy; POLYGON_AMOY node at ${rpc}`);
    chains.push(await evmChain(rpc));
  }
  if (FAMILIES.includes('solana')) {
    const rpc = localRpcUrls.SOLANA_DEVNET;
    if (!rpc) throw new BenchError('the stack runs no local SOLANA_DEVNET cluster');
    log(`stack is healthy; SOLANA_DEVNET cluster at ${rpc}`);
    chains.push(await solanaChain(rpc));
  }

  const created = JSON.parse(
    await run(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      [
        '--conditions=react-server',
        'scripts/admin.mts',
        'merchant',
        'create',
        '--email',
        `detect-${Date.now()}@bench.example`,
        '--name',
        'Bench',
        '--verified',
        '--json',
      ],
      { env: BENCH_ENV, timeoutMs: 60_000 },
    ),
  ) as { testKey: { key: string } };
  // Test mode: live endpoints must be https to a public address, and the receiver is on 127.0.0.1.
  const apiKey = created.testKey.key;
  const receiver = await startReceiver();
  const endpoint = await fetch(`${baseUrl}/api/webhook-endpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ url: receiver.url, eventTypes: ['charge.succeeded'] }),
  });
  if (endpoint.status !== 200) throw new BenchError(`creating the webhook endpoint: ${endpoint.status} ${await endpoint.text()}`);

  const results: PhaseResult[] = [];
  for (const chain of chains) {
    for (const rate of RATES) {
      checkInterrupted();
      results.push(await runPhase(baseUrl, apiKey, chain, rate));
    }
    chain.close();
  }
  receiver.close();

  const ms = (values: number[], p: number) => (values.length ? `${Math.round(percentile(values, p))} ms` : '—');
  const printTable = (family: 'evm' | 'solana', title: string, before: string) => {
    const rows = results.filter((r) => r.family === family);
    if (!rows.length) return;
    console.log(`\n${title}\n`);
    console.log('  rate     payments  checkout stream p50 / p95     webhook p50 / p95       before (polling)');
    for (const r of rows) {
      console.log(
        `  ${`${r.rate}/s`.padEnd(8)} ${String(r.payments).padEnd(9)} ${`${ms(r.checkout, 50)} / ${ms(r.checkout, 95)}`.padEnd(29)} ${`${ms(r.webhook, 50)} / ${ms(r.webhook, 95)}`.padEnd(23)} ${before}`,
      );
    }
  };
  printTable(
    'evm',
    `bench:detection — block that makes the payment final → seen (test charges, native POL on local POLYGON_AMOY, ${BLOCK_SECONDS ? `a block every ${BLOCK_SECONDS} s` : 'a block per payment'}, 1 confirmation, ${SECONDS} s per rate)`,
    `${BEFORE} send → Paid`,
  );
  printTable(
    'solana',
    `bench:detection — Solana: the slot after the payment's (its block complete, confirmed and finalized on the one-node cluster) → seen (test charges, 0.01 SOL on local SOLANA_DEVNET, a slot every 400 ms, ${SECONDS} s per rate)`,
    SOLANA_BEFORE,
  );
  const met = results.every((r) => percentile(r.checkout, 95) <= AIM_P95_MS && percentile(r.webhook, 95) <= AIM_P95_MS);
  console.log(`\n  aim p95 ≤ ${AIM_P95_MS} ms for both: ${met ? 'met' : 'NOT met'}`);
  const missed = results.filter((r) => r.missed.checkout || r.missed.webhook);
  for (const r of missed)
    console.error(
      `FAILED: ${r.family} at ${r.rate}/s, ${r.missed.checkout} checkouts and ${r.missed.webhook} webhooks not seen within ${SEEN_TIMEOUT_MS / 1000} s`,
    );
  return missed.length ? 1 : 0;
}

for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping`);
    if (activeRun && activeRun.exitCode === null) killGroup(activeRun, 'SIGTERM');
    void stack.stop().finally(() => process.exit(130));
  });
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  console.error(
    `FAILED: ${error instanceof BenchError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
} finally {
  await stack.stop();
}
process.exit(interrupted ? 130 : exitCode);
