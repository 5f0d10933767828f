/**
 * `npm run bench:webhooks`: webhook delivery end to end on this machine, measured against the aims of
 * issue 17 and printed side by side with the figures measured before the delivery chains (ADR 0018).
 *
 * Starts its own embedded PostgreSQL (a fresh cluster in a temporary directory, deleted afterwards) and a
 * local POLYGON_AMOY node (the test-mode charges' chain: createCharge refuses chains nothing serves; no
 * watcher runs), applies the migrations, and runs three phases, each with 5 new merchants × 4 test-mode endpoints (20 endpoints), one
 * receiver on 127.0.0.1 per endpoint that checks every Standard Webhooks signature:
 *  1. load: a producer process (standing in for the app) commits charge events through the real emission
 *     path — createCharge (charge.created), transitionCharge (charge.processing, charge.succeeded) — at
 *     `--rate` deliveries per second (events/s × 4 endpoints) for `--seconds`, while ONE worker process
 *     (this script with --work: startWebhookQueue with production settings) delivers;
 *  2. the same with one endpoint's receiver answering 500 to `--failure-rate` of its requests; the worker
 *     gets the production retry schedule ÷ 1000 (5 ms, 300 ms, 1.8 s, 7.2 s, …) through
 *     startWebhookQueue({ attempt: { retryDelay } }), since the real 5 s / 5 min / 30 min would take hours.
 *     The receiver fails one webhook-id at most 4 times in a row, so no event uses up its 10 attempts;
 *  3. peak: `--peak-events` events committed with no worker running, then one worker process started;
 *     deliveries/s = deliveries ÷ (last receipt − the worker's queue started).
 * Latency = the receiver's receipt of the request it answered 2xx − the producer's Date.now() right after
 * COMMIT of the event's transaction (one machine clock). Every phase checks: each event reached each
 * endpoint of its merchant exactly once (webhook-ids counted at the receivers and succeeded rows in the
 * database), a charge's events reached each endpoint in sequence order, every signature valid.
 * CPU per delivery: utime + stime of the worker process, of every PostgreSQL process and of this
 * process (the receivers) (/proc), as `bench:api` measures; for the load phases PostgreSQL's figure
 * includes committing the events. On 2 cores, 1,000 deliveries/s needs their sum below 2 ms.
 *
 *   npm run bench:webhooks -- [--rate 250] [--seconds 30] [--peak-events 4000] [--failure-rate 0.3] [--seed 42] [--workers 1] [--statements] [--worker-cpu-prof DIR]
 *
 * `--workers N` runs N worker processes side by side in every phase (as `npm run worker` processes share
 * the queue at scale); their CPU is added up.
 *
 * `--statements` loads `pg_stat_statements` into the bench's cluster and prints, per phase, the statements
 * that took most of PostgreSQL's execution time, per delivery (calls, ms, rows), with the commits and WAL
 * per delivery: where PostgreSQL's CPU goes. Execution time includes lock waits and excludes parsing,
 * planning and commit (WAL flush), so the table ranks statements; the CPU row stays the total.
 * `--worker-cpu-prof DIR` writes each worker process's V8 CPU profile (`node --cpu-prof`) to DIR: open
 * the peak phase's (the last one) in Chrome DevTools or speedscope.
 *
 * Progress goes to stderr, the tables to stdout. Exit code 0 when every phase delivered every event
 * exactly once, in order, with valid signatures (the latency and throughput aims are reported, not
 * enforced: on a shared machine they say as much about the neighbours), 1 otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import type { ApiContext } from '@/lib/context';
import { createCharge } from '@/lib/charges/create-charge';
import { createChargeBodySchema } from '@/lib/charges/schemas';
import { transitionCharge } from '@/lib/charges/transition-charge';
import { closeDb, getDb, selectJobsPool } from '@/lib/db/client';
import { apiKeys, merchants } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { startStack, type Stack } from '@/scripts/stack/stack';
import { createMerchant } from '@/lib/onboarding/create-merchant';
import { createWebhookEndpoint } from '@/lib/webhooks/create-webhook-endpoint';
import { startWebhookQueue, stopWebhookQueue } from '@/lib/webhooks/queue';
import { nextAttemptDelay } from '@/lib/webhooks/next-attempt-delay';
import { createWebhookEndpointBodySchema } from '@/lib/webhooks/schemas';

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '250' },
    seconds: { type: 'string', default: '30' },
    'peak-events': { type: 'string', default: '4000' },
    'failure-rate': { type: 'string', default: '0.3' },
    seed: { type: 'string', default: '42' },
    workers: { type: 'string', default: '1' },
    statements: { type: 'boolean', default: false },
    'worker-cpu-prof': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
    // The child processes (see produceEvents and runWorker): spawned by this script, not for people.
    produce: { type: 'boolean', default: false },
    work: { type: 'boolean', default: false },
    merchants: { type: 'string' },
    events: { type: 'string' },
    'events-per-second': { type: 'string' },
    'retry-divisor': { type: 'string' },
  },
});
const USAGE =
  'usage: npm run bench:webhooks -- [--rate 250] [--seconds 30] [--peak-events 4000] [--failure-rate 0.3] [--seed 42] [--workers 1] [--statements] [--worker-cpu-prof DIR]';
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

function usage(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const MERCHANTS = 5;
const ENDPOINTS_PER_MERCHANT = 4;
/** Events per transaction when the producer runs flat out (the peak phase's backlog). */
const EVENTS_PER_FLAT_OUT_TRANSACTION = 75;
/** The load producer commits what is due every this many ms. */
const PRODUCER_TICK_MS = 50;
/** The failing receiver answers 2xx to a webhook-id after this many 500s in a row (see the header). */
const MAX_FAILURES_PER_EVENT = 4;
/** Production retry delays ÷ this, for the failing phase. */
const RETRY_SCHEDULE_DIVISOR = 1000;
const DRAIN_TIMEOUT_MS = 180_000;
const PROGRESS_EVERY_MS = 5_000;
const CLOCK_TICK_MS = 10; // USER_HZ = 100 on Linux

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Child process: the worker

if (args.work) {
  // As scripts/worker.mts: the jobs pool (WORKER_DATABASE_POOL_SIZE).
  selectJobsPool();
  const divisor = args['retry-divisor'] ? Number(args['retry-divisor']) : undefined;
  await startWebhookQueue(
    divisor
      ? {
          attempt: {
            retryDelay: (attempt) => {
              const delay = nextAttemptDelay(attempt);
              return delay === null ? null : Math.round(delay / divisor);
            },
          },
        }
      : {},
  );
  process.stdout.write(`${JSON.stringify({ ready: Date.now() })}\n`);
  const keepAlive = setInterval(() => {}, 60_000);
  process.once('SIGTERM', () => {
    clearInterval(keepAlive);
    void stopWebhookQueue({ timeoutMs: 5_000 })
      .then(() => closeDb())
      .finally(() => process.exit(0));
  });
}

// ---------------------------------------------------------------------------------------------
// Child process: the producer

const CHARGE_INPUT = createChargeBodySchema.parse({
  chargeData: {
    symbol: 'POL',
    chain: 'POLYGON',
    tokenAddress: '0x0000000000000000000000000000000000000000',
    items: [{ name: 'Gem', amount: '0.1', quantity: 1 }],
  },
  isTest: true,
});

/** One line of the producer's stdout: a committed transaction's events, as `chargeId/type`. */
interface CommitLine {
  committedAt: number;
  events: string[];
}

/**
 * Commits `count` events round-robin over the merchants, each merchant's charges going created →
 * processing → succeeded: at `eventsPerSecond` (what is due every PRODUCER_TICK_MS, one transaction), or
 * flat out in transactions of EVENTS_PER_FLAT_OUT_TRANSACTION when it is 0. A process of its own, so
 * that its CPU work (deposit-address derivation above all) does not stall the worker or the receivers.
 */
async function produceEvents({
  merchantPairs,
  count,
  eventsPerSecond,
}: {
  merchantPairs: string[];
  count: number;
  eventsPerSecond: number;
}) {
  const contexts: ApiContext[] = [];
  for (const pair of merchantPairs) {
    const [merchantId, apiKeyId] = pair.split(':') as [string, string];
    const [apiKey] = await getDb().select().from(apiKeys).where(eq(apiKeys.id, apiKeyId));
    const [merchant] = await getDb().select().from(merchants).where(eq(merchants.id, merchantId));
    contexts.push({ merchant: merchant!, apiKey: apiKey!, actor: `api_key:${apiKeyId}`, requestId: 'bench' });
  }
  const open: ({ chargeId: string; next: 'processing' | 'succeeded' } | undefined)[] = contexts.map(() => undefined);
  let produced = 0;
  let turn = 0;
  const started = Date.now();
  while (produced < count) {
    let due =
      eventsPerSecond > 0
        ? Math.min(count, Math.floor(((Date.now() - started) / 1000) * eventsPerSecond) + 1) - produced
        : EVENTS_PER_FLAT_OUT_TRANSACTION;
    due = Math.min(due, count - produced);
    if (due > 0) {
      const events: string[] = [];
      await getDb().transaction(async (tx) => {
        for (let i = 0; i < due; i++) {
          const m = turn++ % contexts.length;
          const ctx = contexts[m]!;
          const current = open[m];
          if (!current) {
            const { chargeId } = await createCharge({ ctx: { ...ctx, tx }, input: CHARGE_INPUT });
            open[m] = { chargeId, next: 'processing' };
            events.push(`${chargeId}/charge.created`);
          } else {
            await transitionCharge(tx, { chargeId: current.chargeId, to: current.next, actor: ctx.actor });
            events.push(`${current.chargeId}/charge.${current.next}`);
            open[m] = current.next === 'processing' ? { chargeId: current.chargeId, next: 'succeeded' } : undefined;
          }
        }
      });
      produced += due;
      process.stdout.write(`${JSON.stringify({ committedAt: Date.now(), events } satisfies CommitLine)}\n`);
    }
    if (eventsPerSecond > 0) await sleep(PRODUCER_TICK_MS);
  }
  await closeDb();
}

if (args.produce) {
  await produceEvents({
    merchantPairs: (args.merchants ?? '').split(','),
    count: Number(args.events),
    eventsPerSecond: Number(args['events-per-second'] ?? 0),
  });
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// The main process from here on (the worker child stays in its keep-alive above).

const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const PEAK_EVENTS = Number(args['peak-events']);
const FAILURE_RATE = Number(args['failure-rate']);
const SEED = Number(args.seed);
const WORKERS = Number(args.workers);
if (!args.work) {
  if (!(RATE >= 4 && RATE <= 10_000)) usage('--rate must be from 4 to 10000 deliveries per second');
  if (!(SECONDS >= 1 && SECONDS <= 600)) usage('--seconds must be from 1 to 600');
  if (!Number.isInteger(PEAK_EVENTS) || PEAK_EVENTS < 0 || PEAK_EVENTS > 100_000)
    usage('--peak-events must be an integer from 0 to 100000');
  if (!(FAILURE_RATE >= 0 && FAILURE_RATE < 1)) usage('--failure-rate must be at least 0 and below 1');
  if (!Number.isInteger(SEED)) usage('--seed must be an integer');
  if (!Number.isInteger(WORKERS) || WORKERS < 1 || WORKERS > 16) usage('--workers must be an integer from 1 to 16');
}

// ---------------------------------------------------------------------------------------------
// Receivers

interface Receipt {
  endpoint: number;
  key: string;
  sequence: number;
  at: number;
}

interface Receivers {
  urls: string[];
  secrets: string[];
  /** Ordered by arrival: the first 2xx answer per (endpoint, webhook-id). */
  receipts: Receipt[];
  /** 2xx answers per `endpoint/webhook-id`. */
  acknowledged: Map<string, number>;
  requests: number;
  injectedFailures: number;
  badSignatures: number;
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

/** One HTTP server per endpoint; `failing` endpoints answer 500 to FAILURE_RATE of their requests. */
async function startReceivers(count: number, failing: ReadonlySet<number>): Promise<Receivers> {
  const random = seededRandom(SEED);
  const failures = new Map<string, number>();
  const servers: http.Server[] = [];
  const verifiers: (Webhook | undefined)[] = [];
  const receivers: Receivers = {
    urls: [],
    secrets: [],
    receipts: [],
    acknowledged: new Map(),
    requests: 0,
    injectedFailures: 0,
    badSignatures: 0,
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
  for (let index = 0; index < count; index++) {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        receivers.requests++;
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
        let event: { id: string; type: string; sequence: number; data: { charge: { id: string } } };
        try {
          const verifier = (verifiers[index] ??= new Webhook(receivers.secrets[index]!));
          event = verifier.verify(body, headers) as typeof event;
        } catch {
          receivers.badSignatures++;
          res.writeHead(400).end('bad signature');
          return;
        }
        const id = `${index}/${event.id}`;
        const failed = failures.get(id) ?? 0;
        if (failing.has(index) && failed < MAX_FAILURES_PER_EVENT && random() < FAILURE_RATE) {
          failures.set(id, failed + 1);
          receivers.injectedFailures++;
          res.writeHead(500).end('injected failure');
          return;
        }
        const seen = receivers.acknowledged.get(id) ?? 0;
        receivers.acknowledged.set(id, seen + 1);
        if (seen === 0)
          receivers.receipts.push({
            endpoint: index,
            key: `${event.data.charge.id}/${event.type}`,
            sequence: event.sequence,
            at: Date.now(),
          });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    receivers.urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/chargeport`);
  }
  return receivers;
}

// ---------------------------------------------------------------------------------------------
// CPU (as bench:api: utime + stime from /proc)

function processTicks(pid: number): { ticks: number; name: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ticks: Number(fields[11]) + Number(fields[12]), name };
  } catch {
    return undefined;
  }
}

/** The PostgreSQL processes: the postmaster and its children (backends come and go; a new one counts from 0). */
function postgresPids(): number[] {
  const postmaster = stack?.embeddedDatabase?.pid;
  if (!postmaster) return [];
  const pids = [postmaster];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
}

interface CpuUse {
  /** ms of CPU time. */
  workerMs: number;
  postgresMs: number;
  /** This process: the receivers (and the progress queries every few seconds). */
  receiversMs: number;
  /** Busy share of the whole machine during the phase, % of all cores. */
  machineBusyPercent: number;
}

function cpuMeter(workerPids: number[]): () => CpuUse {
  const sum = (pids: number[], before?: Map<number, number>) => {
    const now = new Map<number, number>();
    for (const pid of pids) {
      const ticks = processTicks(pid)?.ticks;
      if (ticks !== undefined) now.set(pid, ticks - (before?.get(pid) ?? 0));
    }
    return now;
  };
  const workersBefore = sum(workerPids);
  const receiversBefore = sum([process.pid]);
  const postgresBefore = sum(postgresPids());
  const machineBefore = machineTicks();
  return () => {
    const machineAfter = machineTicks();
    const postgres = [...sum(postgresPids(), postgresBefore).values()].reduce((a, b) => a + b, 0);
    const total = machineAfter.total - machineBefore.total;
    return {
      workerMs: [...sum(workerPids, workersBefore).values()].reduce((a, b) => a + b, 0) * CLOCK_TICK_MS,
      postgresMs: postgres * CLOCK_TICK_MS,
      receiversMs: [...sum([process.pid], receiversBefore).values()].reduce((a, b) => a + b, 0) * CLOCK_TICK_MS,
      machineBusyPercent: total > 0 ? Math.round(((machineAfter.busy - machineBefore.busy) / total) * 100) : 0,
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Statements (--statements: pg_stat_statements in the bench's own cluster)

interface StatementFigures {
  /** Top statements by total execution time. */
  top: { query: string; calls: number; totalMs: number; rows: number }[];
  totalMs: number;
  commits: number;
  walRecords: number;
  walBytes: number;
}

/** Resets the statistics now; the returned function reads what ran since. */
async function statementMeter(): Promise<() => Promise<StatementFigures>> {
  const db = getDb();
  await db.execute(sql`select pg_stat_statements_reset(), pg_stat_reset_shared('wal')`);
  const commitsOf = async () => {
    const [row] = await db.execute<{ commits: string }>(sql`select sum(xact_commit)::text as commits from pg_stat_database`);
    return Number(row!.commits);
  };
  const commitsBefore = await commitsOf();
  return async () => {
    // pg_stat_database is flushed by backends at most once a second.
    await sleep(1100);
    const rows = await db.execute<{ query: string; calls: string; total_ms: number; rows: string }>(sql`
      select query, calls::text, total_exec_time as total_ms, rows::text from pg_stat_statements
      where query not like '%pg_stat_statements%' order by total_exec_time desc`);
    const [wal] = await db.execute<{ wal_records: string; wal_bytes: string }>(
      sql`select wal_records::text, wal_bytes::text from pg_stat_wal`,
    );
    return {
      top: rows.slice(0, 15).map((row) => ({ query: row.query, calls: Number(row.calls), totalMs: row.total_ms, rows: Number(row.rows) })),
      totalMs: rows.reduce((sum, row) => sum + row.total_ms, 0),
      commits: (await commitsOf()) - commitsBefore,
      walRecords: Number(wal!.wal_records),
      walBytes: Number(wal!.wal_bytes),
    };
  };
}

function printStatements(phase: PhaseFigures): void {
  const figures = phase.statements;
  if (!figures) return;
  const per = Math.max(1, phase.received);
  const oneLine = (query: string) => {
    const flat = query.replace(/\s+/g, ' ').trim();
    return flat.length > 110 ? `${flat.slice(0, 107)}...` : flat;
  };
  printTable(
    `Statements, ${phase.name} phase (pg_stat_statements, per delivery of ${integer(per)}): execution ${(figures.totalMs / per).toFixed(3)} ms, ` +
      `${(figures.commits / per).toFixed(2)} commits, ${(figures.walRecords / per).toFixed(1)} WAL records, ${integer(figures.walBytes / per)} WAL bytes`,
    ['statement', 'calls', 'ms', 'rows', 'ms/call'],
    figures.top.map((row) => [
      oneLine(row.query),
      (row.calls / per).toFixed(3),
      (row.totalMs / per).toFixed(3),
      (row.rows / per).toFixed(2),
      (row.totalMs / Math.max(1, row.calls)).toFixed(3),
    ]),
  );
}

// ---------------------------------------------------------------------------------------------
// Child processes

const children = new Set<ChildProcess>();

function spawnSelf(extra: string[], onLine: (line: string) => void): { child: ChildProcess; exited: Promise<void> } {
  const profile =
    extra[0] === '--work' && args['worker-cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args['worker-cpu-prof'])}`] : [];
  const child = spawn(
    process.execPath,
    [...profile, '--conditions=react-server', '--import', 'tsx', fileURLToPath(import.meta.url), ...extra],
    {
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', onLine);
  const exited = new Promise<void>((resolve, reject) => {
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`${extra[0]} process failed (${signal ?? `exit ${code}`}):\n${stderr.trim()}`));
    });
  });
  return { child, exited };
}

async function startWorker(retryDivisor?: number): Promise<{ child: ChildProcess; readyAt: number; stop: () => Promise<void> }> {
  let ready: (at: number) => void;
  const readyAt = new Promise<number>((resolve) => (ready = resolve));
  const { child, exited } = spawnSelf(['--work', ...(retryDivisor ? ['--retry-divisor', String(retryDivisor)] : [])], (line) => {
    ready((JSON.parse(line) as { ready: number }).ready);
  });
  const at = await Promise.race([readyAt, exited.then(() => Promise.reject(new Error('the worker exited before it started')))]);
  return {
    child,
    readyAt: at,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `--workers` worker processes side by side (they share the queue as `npm run worker` processes do). */
async function startWorkers(retryDivisor?: number): Promise<{ pids: number[]; readyAt: number; stop: () => Promise<void> }> {
  const workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(retryDivisor)));
  return {
    pids: workers.map((worker) => worker.child.pid!),
    readyAt: Math.min(...workers.map((worker) => worker.readyAt)),
    stop: async () => {
      await Promise.all(workers.map((worker) => worker.stop()));
    },
  };
}

function runProducer(merchantPairs: string[], count: number, eventsPerSecond: number, committedAt: Map<string, number>): Promise<void> {
  return spawnSelf(
    ['--produce', '--merchants', merchantPairs.join(','), '--events', String(count), '--events-per-second', String(eventsPerSecond)],
    (line) => {
      const { committedAt: at, events } = JSON.parse(line) as CommitLine;
      for (const key of events) committedAt.set(key, at);
    },
  ).exited;
}

// ---------------------------------------------------------------------------------------------
// A phase

interface Latencies {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

interface PhaseFigures {
  name: string;
  events: number;
  deliveries: number;
  received: number;
  /** Deliveries without a succeeded row in the database. */
  undelivered: number;
  producerPerSecond: number;
  deliveriesPerSecond: number;
  latency: Latencies;
  /** Healthy and failing endpoints apart (the failing phase). */
  healthyLatency?: Latencies;
  failingLatency?: Latencies;
  /** Retries: claimed − scheduled, ms. */
  retryLateness?: Latencies;
  retries: number;
  injectedFailures: number;
  duplicates: number;
  outOfOrder: number;
  badSignatures: number;
  cpu: CpuUse;
  cpuMsPerDelivery: { worker: number; postgres: number; receivers: number };
  statements?: StatementFigures;
  timedOut: boolean;
}

function latencies(values: number[]): Latencies {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]! : Number.NaN;
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN };
}

async function newMerchants(phase: string): Promise<{ pairs: string[]; merchantIds: string[] }> {
  const pairs: string[] = [];
  const merchantIds: string[] = [];
  for (let m = 0; m < MERCHANTS; m++) {
    const { merchant, keys } = await createMerchant({
      email: `bench-${randomBytes(4).toString('hex')}@bench.example`,
      name: `Bench ${phase} ${m + 1}`,
      verified: true,
    });
    pairs.push(`${merchant.id}:${keys.find((key) => key.mode === 'test')!.id}`);
    merchantIds.push(merchant.id);
  }
  return { pairs, merchantIds };
}

async function runPhase({
  name,
  eventsPerSecond,
  events,
  failing,
}: {
  name: string;
  eventsPerSecond: number;
  events: number;
  failing: boolean;
}): Promise<PhaseFigures> {
  const { pairs, merchantIds } = await newMerchants(name);
  const endpointCount = MERCHANTS * ENDPOINTS_PER_MERCHANT;
  const failingEndpoints = new Set(failing ? [0] : []);
  const receivers = await startReceivers(endpointCount, failingEndpoints);
  const endpointIds: string[] = [];
  const deliveries = events * ENDPOINTS_PER_MERCHANT;
  try {
    for (let e = 0; e < endpointCount; e++) {
      const { endpoint, secret } = await createWebhookEndpoint({
        owner: { merchantId: merchantIds[Math.floor(e / ENDPOINTS_PER_MERCHANT)]!, mode: 'test' },
        input: createWebhookEndpointBodySchema.parse({ url: receivers.urls[e] }),
      });
      receivers.secrets.push(secret);
      endpointIds.push(endpoint.id);
    }
    const committedAt = new Map<string, number>();
    const peak = eventsPerSecond === 0;
    let worker: Awaited<ReturnType<typeof startWorkers>>;
    let meter: () => CpuUse;
    let statementsSince: (() => Promise<StatementFigures>) | undefined;
    let startedAt: number;
    if (peak) {
      log(`${name}: committing ${events.toLocaleString('en')} events with no worker running`);
      await runProducer(pairs, events, 0, committedAt);
      worker = await startWorkers();
      meter = cpuMeter(worker.pids);
      if (args.statements) statementsSince = await statementMeter();
      startedAt = worker.readyAt;
      log(`${name}: ${WORKERS === 1 ? 'worker' : `${WORKERS} workers`} started; delivering ${deliveries.toLocaleString('en')}`);
    } else {
      worker = await startWorkers(failing ? RETRY_SCHEDULE_DIVISOR : undefined);
      meter = cpuMeter(worker.pids);
      if (args.statements) statementsSince = await statementMeter();
      log(
        `${name}: committing ${events.toLocaleString('en')} events at ${eventsPerSecond.toFixed(1)}/s (${deliveries.toLocaleString('en')} deliveries)`,
      );
      await runProducer(pairs, events, eventsPerSecond, committedAt);
      startedAt = Math.min(...committedAt.values());
    }
    const firstCommit = Math.min(...committedAt.values());
    const lastCommit = Math.max(...committedAt.values());

    const drainStarted = Date.now();
    let lastProgress = drainStarted;
    let timedOut = false;
    while (receivers.receipts.length < deliveries) {
      if (Date.now() - drainStarted > DRAIN_TIMEOUT_MS) {
        timedOut = true;
        break;
      }
      await sleep(50);
      if (Date.now() - lastProgress > PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        log(`${name}: ${receivers.receipts.length.toLocaleString('en')}/${deliveries.toLocaleString('en')} delivered`);
      }
    }
    const cpu = meter();
    const statements = await statementsSince?.();
    await worker.stop();

    const lastReceipt = Math.max(...receivers.receipts.map((r) => r.at));
    const all: number[] = [];
    const healthy: number[] = [];
    const failingOnes: number[] = [];
    const lastSequence = new Map<string, number>();
    let outOfOrder = 0;
    for (const receipt of receivers.receipts) {
      const latency = receipt.at - committedAt.get(receipt.key)!;
      all.push(latency);
      (failingEndpoints.has(receipt.endpoint) ? failingOnes : healthy).push(latency);
      const chain = `${receipt.endpoint}/${receipt.key.split('/')[0]}`;
      if (receipt.sequence <= (lastSequence.get(chain) ?? 0)) outOfOrder++;
      lastSequence.set(chain, receipt.sequence);
    }
    const db = getDb();
    const ids = sql.join(
      endpointIds.map((id) => sql`${id}`),
      sql`, `,
    );
    const [counts] = await db.execute<{ undelivered: number; duplicate_rows: number; retries: number }>(sql`
      select
        (select count(*)::int from webhook_events e join webhook_endpoints p on p.merchant_id = e.merchant_id
           where p.id in (${ids})
           and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.endpoint_id = p.id and d.status = 'succeeded')) as undelivered,
        (select count(*)::int from (select 1 from webhook_deliveries where endpoint_id in (${ids})
           and status = 'succeeded' group by event_id, endpoint_id having count(*) > 1) dup) as duplicate_rows,
        (select count(*)::int from webhook_deliveries where endpoint_id in (${ids}) and attempt > 1) as retries`);
    let retryLateness: Latencies | undefined;
    if (failing) {
      const rows = await db.execute<{ lateness_ms: number }>(sql`
        select extract(epoch from (claimed_at - scheduled_at)) * 1000 as lateness_ms from webhook_deliveries
        where endpoint_id = ${endpointIds[0]!} and attempt > 1 and claimed_at is not null`);
      retryLateness = latencies(rows.map((row) => Number(row.lateness_ms)));
    }
    // A receiver's second 2xx for a webhook-id, and a second succeeded row in the database, are duplicates.
    let duplicates = counts!.duplicate_rows;
    for (const count of receivers.acknowledged.values()) duplicates += count - 1;
    return {
      name,
      events,
      deliveries,
      received: receivers.receipts.length,
      undelivered: counts!.undelivered,
      producerPerSecond: peak
        ? Number.NaN
        : ((committedAt.size - 1) * ENDPOINTS_PER_MERCHANT) / Math.max(0.001, (lastCommit - firstCommit) / 1000),
      deliveriesPerSecond: receivers.receipts.length / Math.max(0.001, (lastReceipt - startedAt) / 1000),
      latency: latencies(all),
      ...(failing ? { healthyLatency: latencies(healthy), failingLatency: latencies(failingOnes), retryLateness } : {}),
      retries: counts!.retries,
      injectedFailures: receivers.injectedFailures,
      duplicates,
      outOfOrder,
      badSignatures: receivers.badSignatures,
      cpu,
      cpuMsPerDelivery: {
        worker: cpu.workerMs / Math.max(1, receivers.receipts.length),
        postgres: cpu.postgresMs / Math.max(1, receivers.receipts.length),
        receivers: cpu.receiversMs / Math.max(1, receivers.receipts.length),
      },
      ...(statements ? { statements } : {}),
      timedOut,
    };
  } finally {
    await receivers.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Output

const integer = (n: number) => (Number.isNaN(n) ? '-' : Math.round(n).toLocaleString('en'));
const seconds = (ms: number) => (Number.isNaN(ms) ? '-' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

function printTable(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log('');
  console.log(title);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

function report(load: PhaseFigures, failing: PhaseFigures, peak: PhaseFigures | undefined): boolean {
  const [one, five, fifteen] = loadavg().map((n) => n.toFixed(2));
  console.log('');
  console.log(
    `Webhook delivery, ${MERCHANTS} merchants × ${ENDPOINTS_PER_MERCHANT} endpoints, ${WORKERS === 1 ? 'one worker process' : `${WORKERS} worker processes`} (startWebhookQueue, production settings), ` +
      `${availableParallelism()} cores, load average ${one} ${five} ${fifteen}`,
  );
  const failingName = `${Math.round(FAILURE_RATE * 100)}% failing`;
  printTable(
    'Against issue 17 (before: 3 merchants × 5 endpoints, 300 charges canceled at 50/s = 250 deliveries/s offered, cancel response → receipt; bench: one endpoint)',
    [
      '',
      'before (issue 17)',
      'aim',
      `load ${integer(RATE)}/s × ${SECONDS} s`,
      `${failingName}: healthy endpoints`,
      `${failingName}: failing endpoint`,
      'peak (backlog)',
    ],
    [
      [
        'deliveries',
        '1,500',
        `${integer(RATE * SECONDS)}`,
        integer(load.deliveries),
        integer(failing.healthyLatency!.count),
        integer(failing.failingLatency!.count),
        integer(peak?.deliveries ?? Number.NaN),
      ],
      [
        'deliveries offered/s (producer)',
        '250',
        `${integer(RATE)}`,
        integer(load.producerPerSecond),
        integer(failing.producerPerSecond),
        '',
        '-',
      ],
      [
        'deliveries/s',
        '127–170 (bench 136)',
        `≥ ${integer(RATE)}; peak ≥ 1,000`,
        integer(load.deliveriesPerSecond),
        integer(failing.deliveriesPerSecond),
        '',
        integer(peak?.deliveriesPerSecond ?? Number.NaN),
      ],
      [
        'commit → receipt p50',
        '2.8–5.4 s (bench 24.6 s)',
        '',
        seconds(load.latency.p50),
        seconds(failing.healthyLatency!.p50),
        seconds(failing.failingLatency!.p50),
        seconds(peak?.latency.p50 ?? Number.NaN),
      ],
      [
        'commit → receipt p95',
        '3.1–5.8 s',
        '≤ 2 s',
        seconds(load.latency.p95),
        seconds(failing.healthyLatency!.p95),
        seconds(failing.failingLatency!.p95),
        seconds(peak?.latency.p95 ?? Number.NaN),
      ],
      [
        'commit → receipt p99',
        '-',
        '≤ 5 s',
        seconds(load.latency.p99),
        seconds(failing.healthyLatency!.p99),
        seconds(failing.failingLatency!.p99),
        seconds(peak?.latency.p99 ?? Number.NaN),
      ],
      [
        'commit → receipt max',
        '-',
        '',
        seconds(load.latency.max),
        seconds(failing.healthyLatency!.max),
        seconds(failing.failingLatency!.max),
        seconds(peak?.latency.max ?? Number.NaN),
      ],
    ],
  );
  const phases = [load, failing, ...(peak ? [peak] : [])];
  printTable(
    'Correctness and cost',
    ['', ...phases.map((p) => p.name)],
    [
      ['delivered (receipts / expected)', ...phases.map((p) => `${integer(p.received)} / ${integer(p.deliveries)}`)],
      ['undelivered (database)', ...phases.map((p) => integer(p.undelivered))],
      ['duplicate webhook-ids (receivers + database)', ...phases.map((p) => integer(p.duplicates))],
      ['out of sequence order (per charge, endpoint)', ...phases.map((p) => integer(p.outOfOrder))],
      ['bad signatures', ...phases.map((p) => integer(p.badSignatures))],
      ['answered 500 / retries (delivery rows)', ...phases.map((p) => `${integer(p.injectedFailures)} / ${integer(p.retries)}`)],
      [
        'retry start − scheduled time p50 / p99 / max',
        ...phases.map((p) =>
          p.retryLateness ? `${seconds(p.retryLateness.p50)} / ${seconds(p.retryLateness.p99)} / ${seconds(p.retryLateness.max)}` : '-',
        ),
      ],
      [
        `CPU ms per delivery, worker process${WORKERS === 1 ? '' : 'es (together)'}`,
        ...phases.map((p) => p.cpuMsPerDelivery.worker.toFixed(2)),
      ],
      ['CPU ms per delivery, PostgreSQL', ...phases.map((p) => `${p.cpuMsPerDelivery.postgres.toFixed(2)}${p === peak ? '' : '*'}`)],
      ['CPU ms per delivery, receivers (this process)', ...phases.map((p) => p.cpuMsPerDelivery.receivers.toFixed(2))],
      ['machine busy during the phase', ...phases.map((p) => `${p.cpu.machineBusyPercent} %`)],
    ],
  );
  console.log('* includes committing the events (the producer runs during the load phases; in the peak phase it ran before).');
  for (const phase of phases) printStatements(phase);
  console.log(
    `Failing endpoint: 500 at random to ${Math.round(FAILURE_RATE * 100)}% of requests (seed ${SEED}), at most ${MAX_FAILURES_PER_EVENT} times in a row per webhook-id; ` +
      `retry delays = production schedule ÷ ${RETRY_SCHEDULE_DIVISOR} (5 ms, 300 ms, 1.8 s, …).`,
  );

  const wrong = phases.filter(
    (p) => p.timedOut || p.undelivered > 0 || p.received < p.deliveries || p.duplicates > 0 || p.outOfOrder > 0 || p.badSignatures > 0,
  );
  const aims = [
    ['load p95 ≤ 2 s', load.latency.p95 <= 2000],
    ['load p99 ≤ 5 s', load.latency.p99 <= 5000],
    [`load keeps up (≥ 95% of ${integer(RATE)}/s)`, load.deliveriesPerSecond >= 0.95 * Math.min(RATE, load.producerPerSecond)],
    ['failing: healthy endpoints p95 ≤ 2 s', failing.healthyLatency!.p95 <= 2000],
    ...(peak ? [[`peak ≥ 1,000/s${WORKERS === 1 ? '' : ` (with ${WORKERS} workers)`}`, peak.deliveriesPerSecond >= 1000] as const] : []),
  ] as const;
  console.log('');
  console.log(`aims: ${aims.map(([label, met]) => `${met ? 'met' : 'MISSED'}: ${label}`).join('; ')}`);
  console.log(
    wrong.length === 0
      ? 'PASS: every event reached every endpoint of its merchant exactly once, in sequence order, with a valid signature.'
      : `FAIL: ${wrong.map((p) => p.name).join(', ')} lost, duplicated or reordered deliveries (see the table)${wrong.some((p) => p.timedOut) ? `, or hit the ${DRAIN_TIMEOUT_MS / 1000} s limit` : ''}.`,
  );
  return wrong.length === 0;
}

// ---------------------------------------------------------------------------------------------

const dataDir = args.work ? '' : mkdtempSync(path.join(tmpdir(), 'chargeport-bench-webhooks-'));
let stack: Stack | undefined;

async function cleanUp(): Promise<void> {
  for (const child of children) child.kill('SIGKILL');
  await closeDb().catch(() => {});
  await stack?.stop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}

if (!args.work) {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping`);
      void cleanUp().finally(() => process.exit(130));
    });
  }

  let passed = false;
  try {
    log('starting embedded PostgreSQL and a local POLYGON_AMOY node, applying migrations');
    stack = await startStack({
      dataDir,
      env: {},
      chains: ['POLYGON_AMOY'],
      persistent: false,
      ...(args.statements ? { postgresSettings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.max=1000'] } : {}),
    });
    // This process and its children are the app: their own database, throwaway secrets, loopback
    // endpoints allowed, nothing leaves the machine (no chain RPC but the local node, no price feed).
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
    Object.assign(process.env, stack.env, { LOCAL_CHAIN_NODES: 'true' });
    resetEnvCache();
    if (args.statements) await getDb().execute(sql`create extension if not exists pg_stat_statements`);

    const eventsPerSecond = RATE / ENDPOINTS_PER_MERCHANT;
    const loadEvents = Math.round(eventsPerSecond * SECONDS);
    const load = await runPhase({ name: 'load', eventsPerSecond, events: loadEvents, failing: false });
    const failing = await runPhase({ name: 'failing', eventsPerSecond, events: loadEvents, failing: true });
    const peak = PEAK_EVENTS > 0 ? await runPhase({ name: 'peak', eventsPerSecond: 0, events: PEAK_EVENTS, failing: false }) : undefined;
    passed = report(load, failing, peak);
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  } finally {
    await cleanUp();
  }
  process.exit(passed ? 0 : 1);
}
