/**
 * `npm run bench:webhooks`: webhook delivery end to end on this machine — deliveries per second and the
 * latency from the commit of a charge state change to the receiver's receipt, first with a healthy
 * receiver, then with one that answers 500 to 30% of requests at random.
 *
 * Starts its own embedded PostgreSQL (a fresh cluster in a temporary directory, deleted afterwards; no
 * chains) and applies the migrations. Each run has its own merchant and test-mode endpoint, pointing at a
 * receiver on 127.0.0.1 that checks every Standard Webhooks signature, and:
 *  - starts the real relay and pg-boss workers (lib/webhooks/queue.ts) IN THIS PROCESS — one worker
 *    process's worth: 10 attempts in flight, at most 2 per endpoint — with production settings;
 *  - produces the events in a second process (this script with --produce, standing in for the app)
 *    through the real emission path: createCharge (charge.created) and transitionCharge
 *    (charge.processing, charge.succeeded) on real charges, 25 charges (75 events) per transaction, as
 *    fast as it can, while the workers deliver;
 *  - waits until every event has a succeeded delivery (and the receiver acknowledged its webhook-id).
 * Latency = the receiver's receipt of the request it answered 2xx − the commit of the event's
 * transaction (Date.now() in each process, one machine clock); an event that failed first includes its
 * retries. The producer commits faster than one worker process delivers to one endpoint (2 attempts at a
 * time), so a queue builds up and the latencies are mostly time spent in it: they say how long a burst of
 * N events takes to reach the merchant, not what one event costs on an idle system (about the relay's
 * 1 s interval, ADR 0006).
 *
 * The failing run injects a shorter retry schedule — the production delays ÷ 1000 (5 ms, 300 ms, 1.8 s,
 * 7.2 s, …) — through startWebhookQueue({ attempt: { retryDelay } }), the option the tests use; the real
 * 5 s / 5 min / 30 min delays would make it take hours. The receiver fails one webhook-id at most 4
 * times in a row: with independent 30% failures, 0.3^10 × 10,000 ≈ 6% of runs would see one event use
 * up all 10 attempts (the endpoint then turns failing — delivery.test.ts covers that path).
 *
 *   npm run bench:webhooks -- [--events 10000] [--failure-rate 0.3] [--seed 42]
 *
 * Progress goes to stderr, the table and the verdict to stdout. Exit code 0 when every event of both
 * runs was delivered with a valid signature, 1 otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import type { ApiContext } from '@/lib/api/context';
import { createCharge } from '@/lib/charges/create-charge';
import { createChargeBodySchema } from '@/lib/charges/schemas';
import { transitionCharge } from '@/lib/charges/transition-charge';
import { closeDb, getDb } from '@/lib/db/client';
import { apiKeys, merchants } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { startStack, type Stack } from '@/lib/infra/stack';
import { createMerchant } from '@/lib/merchants/create-merchant';
import { createWebhookEndpoint } from '@/lib/webhooks/create-webhook-endpoint';
import { startWebhookQueue, stopWebhookQueue, type WebhookQueueOptions } from '@/lib/webhooks/queue';
import { nextAttemptDelay } from '@/lib/webhooks/retry-schedule';
import { createWebhookEndpointBodySchema } from '@/lib/webhooks/schemas';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    'failure-rate': { type: 'string', default: '0.3' },
    seed: { type: 'string', default: '42' },
    help: { type: 'boolean', short: 'h', default: false },
    // The producer process (see produceEvents): spawned by this script, not for people.
    produce: { type: 'boolean', default: false },
    'merchant-id': { type: 'string' },
    'api-key-id': { type: 'string' },
  },
});
if (args.help) {
  console.log('usage: npm run bench:webhooks -- [--events 10000] [--failure-rate 0.3] [--seed 42]');
  process.exit(0);
}
const EVENTS = Number(args.events);
const FAILURE_RATE = Number(args['failure-rate']);
const SEED = Number(args.seed);
if (!Number.isInteger(EVENTS) || EVENTS < 1 || EVENTS > 1_000_000) usage('--events must be an integer from 1 to 1000000');
if (!(FAILURE_RATE >= 0 && FAILURE_RATE < 1)) usage('--failure-rate must be at least 0 and below 1');
if (!Number.isInteger(SEED)) usage('--seed must be an integer');

function usage(message: string): never {
  console.error(message);
  process.exit(2);
}

const CHARGES_PER_TRANSACTION = 25;
/** The failing receiver answers 2xx to a webhook-id after this many 500s in a row (see the header). */
const MAX_FAILURES_PER_EVENT = 4;
/** Production delays ÷ this, for the failing run. */
const RETRY_SCHEDULE_DIVISOR = 1000;
const RUN_TIMEOUT_MS = 150_000;
const PROGRESS_EVERY_MS = 5_000;

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// The receiver

interface Receipt {
  /** Date.now() of the first request answered 2xx. */
  at: number;
  chargeId: string;
  acknowledged: number;
}

interface Receiver {
  url: string;
  secret: string | undefined;
  requests: number;
  /** Date.now() of the last request. */
  lastRequestAt: number;
  injectedFailures: number;
  badSignatures: number;
  receipts: Map<string, Receipt>;
  close: () => Promise<void>;
}

/** mulberry32: a small seeded PRNG, so a run's failures can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function startReceiver({ failureRate, random }: { failureRate: number; random: () => number }): Promise<Receiver> {
  const failures = new Map<string, number>();
  let verifier: Webhook | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.requests++;
      receiver.lastRequestAt = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      let event: { id: string; data: { charge: { id: string } } };
      try {
        verifier ??= new Webhook(receiver.secret!);
        event = verifier.verify(body, headers) as typeof event;
      } catch {
        receiver.badSignatures++;
        res.writeHead(400).end('bad signature');
        return;
      }
      const failed = failures.get(event.id) ?? 0;
      if (failureRate > 0 && failed < MAX_FAILURES_PER_EVENT && random() < failureRate) {
        failures.set(event.id, failed + 1);
        receiver.injectedFailures++;
        res.writeHead(500).end('injected failure');
        return;
      }
      const receipt = receiver.receipts.get(event.id);
      if (receipt) receipt.acknowledged++;
      else receiver.receipts.set(event.id, { at: Date.now(), chargeId: event.data.charge.id, acknowledged: 1 });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks/chargeport`,
    secret: undefined,
    requests: 0,
    lastRequestAt: 0,
    injectedFailures: 0,
    badSignatures: 0,
    receipts: new Map(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

// ---------------------------------------------------------------------------------------------
// One run

interface RunFigures {
  name: string;
  events: number;
  produceSeconds: number;
  /** Events with a succeeded delivery row. */
  delivered: number;
  /** Unique webhook-ids the receiver answered 2xx. */
  received: number;
  undelivered: number;
  deliveriesPerSecond: number;
  attemptsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  attempts: number;
  firstAttemptFailures: number;
  requests: number;
  injectedFailures: number;
  duplicates: number;
  badSignatures: number;
  wallSeconds: number;
  timedOut: boolean;
}

/** A merchant with a test key, as the API would see it (createCharge's ctx). */
async function newMerchantContext(name: string): Promise<ApiContext> {
  const { merchant, keys } = await createMerchant({ email: `bench-${randomBytes(4).toString('hex')}@bench.example`, name, verified: true });
  const testKeyId = keys.find((key) => key.mode === 'test')!.id;
  const [apiKey] = await getDb().select().from(apiKeys).where(eq(apiKeys.id, testKeyId));
  const [row] = await getDb().select().from(merchants).where(eq(merchants.id, merchant.id));
  return { merchant: row!, apiKey: apiKey!, actor: `api_key:${testKeyId}`, requestId: 'bench' };
}

const CHARGE_INPUT = createChargeBodySchema.parse({
  chargeData: {
    symbol: 'POL',
    chain: 'POLYGON',
    tokenAddress: '0x0000000000000000000000000000000000000000',
    items: [{ name: 'Gem', amount: '0.1', quantity: 1 }],
  },
  isTest: true,
});

/** One line of the producer's stdout: a committed transaction. */
interface CommitLine {
  /** Date.now() right after COMMIT returned. */
  committedAt: number;
  chargeIds: string[];
}

/**
 * The producer process (`--produce`), standing in for the app: commits `count` charge state changes
 * (charge.created, .processing, .succeeded per charge) in transactions of CHARGES_PER_TRANSACTION
 * charges and prints one CommitLine per transaction. A process of its own, so that its CPU work
 * (deposit-address derivation above all) does not stall the workers' event loop.
 */
async function produceEvents({ merchantId, apiKeyId, count }: { merchantId: string; apiKeyId: string; count: number }): Promise<void> {
  const [apiKey] = await getDb().select().from(apiKeys).where(eq(apiKeys.id, apiKeyId));
  const [merchant] = await getDb().select().from(merchants).where(eq(merchants.id, merchantId));
  const ctx: ApiContext = { merchant: merchant!, apiKey: apiKey!, actor: `api_key:${apiKeyId}`, requestId: 'bench' };
  let produced = 0;
  while (produced < count) {
    const chargeIds: string[] = [];
    await getDb().transaction(async (tx) => {
      for (let i = 0; i < CHARGES_PER_TRANSACTION && produced < count; i++) {
        const { chargeId } = await createCharge({ ctx: { ...ctx, tx }, input: CHARGE_INPUT });
        chargeIds.push(chargeId);
        produced++;
        for (const to of ['processing', 'succeeded'] as const) {
          if (produced === count) break;
          await transitionCharge(tx, { chargeId, to, actor: ctx.actor });
          produced++;
        }
      }
    });
    process.stdout.write(`${JSON.stringify({ committedAt: Date.now(), chargeIds } satisfies CommitLine)}\n`);
  }
  await closeDb();
}

/** Runs the producer process; records each charge's commit time as its lines arrive. */
function runProducer({ ctx, committedAt }: { ctx: ApiContext; committedAt: Map<string, number> }): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=react-server',
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--produce',
      '--merchant-id',
      ctx.merchant.id,
      '--api-key-id',
      ctx.apiKey.id,
      '--events',
      String(EVENTS),
    ],
    {
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  producers.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const { committedAt: at, chargeIds } = JSON.parse(line) as CommitLine;
    for (const chargeId of chargeIds) committedAt.set(chargeId, at);
  });
  return new Promise((resolve, reject) => {
    child.on('exit', (code, signal) => {
      producers.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`the producer failed (${signal ?? `exit ${code}`}):\n${stderr.trim()}`));
    });
  });
}

const producers = new Set<ChildProcess>();

async function deliveryCounts(endpointId: string, merchantId: string) {
  const [row] = await getDb().execute<{ attempts: number; first_failed: number; succeeded_events: number; undelivered: number }>(sql`
    select
      (select count(*)::int from webhook_deliveries where endpoint_id = ${endpointId}) as attempts,
      (select count(*)::int from webhook_deliveries where endpoint_id = ${endpointId} and attempt = 1 and status = 'failed') as first_failed,
      (select count(distinct event_id)::int from webhook_deliveries where endpoint_id = ${endpointId} and status = 'succeeded') as succeeded_events,
      (select count(*)::int from webhook_events e where e.merchant_id = ${merchantId}
         and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.endpoint_id = ${endpointId} and d.status = 'succeeded')) as undelivered`);
  return row!;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

async function runBench({
  name,
  failureRate,
  queue,
}: {
  name: string;
  failureRate: number;
  queue: WebhookQueueOptions;
}): Promise<RunFigures> {
  const ctx = await newMerchantContext(`Bench ${name}`);
  const receiver = await startReceiver({ failureRate, random: seededRandom(SEED) });
  try {
    const { endpoint, secret } = await createWebhookEndpoint({
      owner: { merchantId: ctx.merchant.id, mode: 'test' },
      input: createWebhookEndpointBodySchema.parse({ url: receiver.url }),
    });
    receiver.secret = secret;
    await startWebhookQueue(queue);

    log(`${name}: producing ${EVENTS.toLocaleString('en')} events (a separate process) while the workers deliver`);
    const committedAt = new Map<string, number>();
    const started = Date.now();
    await runProducer({ ctx, committedAt });
    const firstCommit = Math.min(...committedAt.values());
    const lastCommit = Math.max(...committedAt.values());
    // From the first commit: the producer's start-up (tsx) is not production.
    const produceSeconds = (lastCommit - firstCommit) / 1000;
    log(
      `${name}: ${EVENTS.toLocaleString('en')} events committed in ${produceSeconds.toFixed(1)} s; ${receiver.receipts.size.toLocaleString('en')} delivered so far`,
    );

    let counts = await deliveryCounts(endpoint.id, ctx.merchant.id);
    let lastProgress = Date.now();
    let timedOut = false;
    while (counts.undelivered > 0 || receiver.receipts.size < EVENTS) {
      if (Date.now() - started > RUN_TIMEOUT_MS) {
        timedOut = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
      counts = await deliveryCounts(endpoint.id, ctx.merchant.id);
      if (Date.now() - lastProgress > PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        log(
          `${name}: ${counts.succeeded_events.toLocaleString('en')}/${EVENTS.toLocaleString('en')} delivered, ${((lastProgress - started) / 1000).toFixed(0)} s`,
        );
      }
    }
    await stopWebhookQueue();
    counts = await deliveryCounts(endpoint.id, ctx.merchant.id);

    const latencies: number[] = [];
    let lastReceipt = firstCommit;
    let duplicates = 0;
    for (const receipt of receiver.receipts.values()) {
      latencies.push(receipt.at - committedAt.get(receipt.chargeId)!);
      lastReceipt = Math.max(lastReceipt, receipt.at);
      duplicates += receipt.acknowledged - 1;
    }
    latencies.sort((a, b) => a - b);
    return {
      name,
      events: EVENTS,
      produceSeconds,
      delivered: counts.succeeded_events,
      received: receiver.receipts.size,
      undelivered: counts.undelivered,
      deliveriesPerSecond: receiver.receipts.size / ((lastReceipt - firstCommit) / 1000),
      attemptsPerSecond: receiver.requests / ((receiver.lastRequestAt - firstCommit) / 1000),
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      maxMs: latencies.at(-1) ?? Number.NaN,
      attempts: counts.attempts,
      firstAttemptFailures: counts.first_failed,
      requests: receiver.requests,
      injectedFailures: receiver.injectedFailures,
      duplicates,
      badSignatures: receiver.badSignatures,
      wallSeconds: (Date.now() - started) / 1000,
      timedOut,
    };
  } finally {
    await stopWebhookQueue();
    await receiver.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Output

const integer = (n: number) => Math.round(n).toLocaleString('en');
const duration = (ms: number) => (Number.isNaN(ms) ? '-' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

function printTable(runs: RunFigures[]): void {
  const rows: [string, ...string[]][] = [
    ['events committed', ...runs.map((r) => integer(r.events))],
    ['  producer, events/s', ...runs.map((r) => integer(r.events / r.produceSeconds))],
    ['received (unique webhook-id, 2xx)', ...runs.map((r) => integer(r.received))],
    ['succeeded (events, in the database)', ...runs.map((r) => integer(r.delivered))],
    ['undelivered', ...runs.map((r) => integer(r.undelivered))],
    ['deliveries/s (first commit → last receipt)', ...runs.map((r) => integer(r.deliveriesPerSecond))],
    ['attempts/s (requests received)', ...runs.map((r) => integer(r.attemptsPerSecond))],
    ['latency p50, commit → receipt', ...runs.map((r) => duration(r.p50Ms))],
    ['latency p99', ...runs.map((r) => duration(r.p99Ms))],
    ['latency max', ...runs.map((r) => duration(r.maxMs))],
    ['attempts (delivery rows)', ...runs.map((r) => integer(r.attempts))],
    ['first-attempt failures', ...runs.map((r) => integer(r.firstAttemptFailures))],
    ['requests received / answered 500', ...runs.map((r) => `${integer(r.requests)} / ${integer(r.injectedFailures)}`)],
    ['duplicate 2xx receipts', ...runs.map((r) => integer(r.duplicates))],
    ['bad signatures', ...runs.map((r) => integer(r.badSignatures))],
    ['wall time', ...runs.map((r) => `${r.wallSeconds.toFixed(1)} s`)],
  ];
  const header = ['', ...runs.map((r) => r.name)];
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log('');
  console.log(
    `Webhook delivery: ${integer(EVENTS)} events per run, one endpoint; relay + pg-boss workers in this process ` +
      `(10 attempts in flight, ≤ 2 per endpoint), ${availableParallelism()} cores`,
  );
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
  console.log('');
  console.log(
    `Failing run: the receiver answers 500 at random to ${Math.round(FAILURE_RATE * 100)}% of requests (seed ${SEED}), at most ${MAX_FAILURES_PER_EVENT} times in a row per webhook-id;`,
  );
  console.log(
    `retry delays = production schedule ÷ ${RETRY_SCHEDULE_DIVISOR} (5 ms, 300 ms, 1.8 s, 7.2 s, …), injected via startWebhookQueue({ attempt: { retryDelay } }).`,
  );
  if (runs.some((r) => r.events / r.produceSeconds > r.deliveriesPerSecond)) {
    console.log('The producer outpaced delivery to the one endpoint (≤ 2 attempts in flight per endpoint per worker process):');
    console.log('latencies include the queue that built up behind it.');
  }
}

function verdict(runs: RunFigures[]): boolean {
  const lost = runs.reduce((sum, r) => sum + Math.max(r.undelivered, r.events - r.delivered, r.events - r.received), 0);
  const bad = runs.reduce((sum, r) => sum + r.badSignatures, 0);
  const ok = lost === 0 && bad === 0 && !runs.some((r) => r.timedOut);
  const summary = runs.map((r) => `${r.name} ${integer(r.deliveriesPerSecond)}/s, p99 ${duration(r.p99Ms)}`).join('; ');
  console.log('');
  console.log(
    ok
      ? `PASS: all ${integer(EVENTS)} events of each run delivered, signatures valid (${summary}).`
      : `FAIL: ${integer(lost)} events undelivered${bad ? `, ${integer(bad)} bad signatures` : ''}${runs.some((r) => r.timedOut) ? `, a run hit the ${RUN_TIMEOUT_MS / 1000} s limit` : ''} (${summary}).`,
  );
  return ok;
}

// ---------------------------------------------------------------------------------------------

if (args.produce) {
  await produceEvents({ merchantId: args['merchant-id']!, apiKeyId: args['api-key-id']!, count: EVENTS });
  process.exit(0);
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'chargeport-bench-webhooks-'));
let stack: Stack | undefined;

async function cleanUp(): Promise<void> {
  for (const child of producers) child.kill('SIGKILL');
  await stopWebhookQueue({ timeoutMs: 2_000 }).catch(() => {});
  await closeDb().catch(() => {});
  await stack?.stop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void cleanUp().finally(() => process.exit(130));
  });
}

let passed = false;
try {
  log('starting embedded PostgreSQL and a local POLYGON node, applying migrations');
  // The charges are on POLYGON, which must be served (createCharge refuses chains nothing watches): a
  // local node stands in for it. No watcher runs here; only webhook delivery is measured.
  stack = await startStack({ dataDir, env: {}, chains: ['POLYGON'], persistent: false });
  // This process is the app: its own database, throwaway secrets, loopback endpoints allowed, nothing
  // leaves the machine (no chain RPC but the local node, no price feed).
  const secret = () => randomBytes(32).toString('base64');
  Object.assign(process.env, {
    DATABASE_URL: stack.databaseUrl,
    DATA_DIR: dataDir,
    AUTH_SECRET: secret(),
    PIN_PEPPER: secret(),
    WALLET_MASTER_KEY: secret(),
    WALLET_MASTER_KEYS_PREVIOUS: '',
    DEPOSIT_HD_SEED: secret(),
    WEBHOOKS_ALLOW_LOOPBACK: 'true',
    PRICE_FEED_URL: '',
    LOG_LEVEL: 'warn',
  });
  for (const name of Object.keys(process.env)) if (name.startsWith('RPC_URL_')) process.env[name] = '';
  Object.assign(process.env, { RPC_URL_POLYGON: stack.env.RPC_URL_POLYGON, LOCAL_CHAINS: stack.env.LOCAL_CHAINS });
  resetEnvCache();

  const runs: RunFigures[] = [];
  runs.push(await runBench({ name: 'healthy', failureRate: 0, queue: {} }));
  runs.push(
    await runBench({
      name: `${Math.round(FAILURE_RATE * 100)}% failing`,
      failureRate: FAILURE_RATE,
      queue: {
        attempt: {
          retryDelay: (attempt) => {
            const delay = nextAttemptDelay(attempt);
            return delay === null ? null : Math.round(delay / RETRY_SCHEDULE_DIVISOR);
          },
        },
      },
    }),
  );
  printTable(runs);
  passed = verdict(runs);
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
} finally {
  await cleanUp();
}
process.exit(passed ? 0 : 1);
