/**
 * `npm run bench:api`: load test of the merchant API against the production build.
 *
 * Builds if `.next/BUILD_ID` is missing, starts the production stack (scripts/stack.mts start) on a
 * free loopback port with a fresh data dir (.data/bench), creates a verified merchant with the admin
 * CLI, warms up, then runs autocannon against GET /api/health/ready (the framework's ceiling: one
 * `select 1`) and POST /api/createCharge (the live key), in alternating rounds: health then
 * createCharge, `--rounds` times. A shared machine's speed drifts by ±20% within a minute, so each
 * round's ratio compares two runs taken seconds apart, and the ratio reported is the median of the
 * rounds'. Prints requests/s, latency p50/p99 and non-2xx counts per round and overall, the ratio and
 * whether the aims are met. Every charge it creates stays open (pending for an hour), so the rounds
 * also measure createCharge as one merchant's open charges grow: rounds are added (up to 20) until the
 * merchant has passed `--min-open` open charges, and the first and last rounds' CPU per charge are
 * printed side by side with the open count at each (issue 27: flat in open charges).
 * Stops the stack and deletes .data/bench afterwards, also on Ctrl-C.
 *
 *   npm run bench:api -- [--connections 32] [--duration 8] [--rounds 3] [--min-open 20000] [--warmup 3000] [--pool-size N] [--statements] [--json] [--verbose]
 *
 * `--statements` loads pg_stat_statements into the stack's cluster and prints, for the createCharge rounds, the
 * statements PostgreSQL ran per charge created (the app's and the worker's: the relay of each `charge.created`
 * included), ranked by execution time, with commits per charge.
 *
 * Progress goes to stderr; the table (or, with --json, the figures) to stdout.
 * Exit code: 0 when both runs completed without errors (aims met or not), 1 on any failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { BenchError, benchEnv, descendantsOf, killGroup, ProductionStack } from './lib/production-stack.mts';

const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: '32' },
    duration: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    'min-open': { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '3000' },
    'pool-size': { type: 'string' },
    json: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    statements: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (args.help) {
  console.log(
    'usage: npm run bench:api -- [--connections 32] [--duration 8] [--rounds 3] [--min-open 20000] [--warmup 3000] [--pool-size N] [--statements] [--json] [--verbose]',
  );
  process.exit(0);
}

function positiveInt(name: string, text: string, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    console.error(`--${name} must be an integer from 1 to ${max} (got "${text}")`);
    process.exit(2);
  }
  return value;
}

const CONNECTIONS = positiveInt('connections', args.connections, 1000);
/** Seconds per route per round. */
const DURATION_S = positiveInt('duration', args.duration, 600);
const ROUNDS = positiveInt('rounds', args.rounds, 20);
const MAX_ROUNDS = 20;
/** Open charges the merchant must have passed before the last round ends (more rounds are run if needed). */
const MIN_OPEN = positiveInt('min-open', args['min-open'], 10_000_000);
const WARMUP_REQUESTS = positiveInt('warmup', args.warmup, 100_000);
const POOL_SIZE = args['pool-size'] === undefined ? undefined : positiveInt('pool-size', args['pool-size'], 100);

const ROOT = process.cwd();
const DATA_DIR = path.join('.data', 'bench');
const HEALTH_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
const BUILD_TIMEOUT_MS = 600_000;
const CLI_TIMEOUT_MS = 60_000;
const REQUEST_TIMEOUT_S = 10;

const AIM_RATIO = 0.6;
const AIM_P99_MS = 50;
/** PostgreSQL CPU per createCharge, in every round whatever the open count (issue 27). */
const AIM_POSTGRES_MS_PER_CHARGE = 0.8;
/** Processes outside the benchmark using more than this (% of one core) during a run make its figures unreliable. */
const DISTURBED_CPU_PERCENT = 15;

const CREATE_CHARGE_BODY = JSON.stringify({
  chargeData: {
    symbol: 'USDC',
    chain: 'POLYGON',
    tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    successUrl: 'https://g.example/ok',
    cancelUrl: 'https://g.example/c',
    items: [{ name: 'Gem', amount: '4.99', quantity: 1 }],
  },
});

/**
 * Environment of the stack and the admin CLI: a production configuration that stays on this machine
 * (scripts/lib/production-stack.mts). The database and chains are the embedded ones of .data/bench:
 * DATABASE_URL and RPC_URL_* from the environment or .env are blanked.
 */
const BENCH_ENV = benchEnv({ root: ROOT, dataDir: DATA_DIR, blank: (name) => name === 'DATABASE_URL' || name.startsWith('RPC_URL_') });

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** Set on Ctrl-C / SIGTERM / SIGHUP: every stage checks it and stops. */
let interrupted = false;
function checkInterrupted(): void {
  if (interrupted) throw new BenchError('interrupted');
}

// ---------------------------------------------------------------------------------------------
// Child processes

/** Runs a command to completion with a time limit; resolves with its stdout. */
function run(
  command: string,
  argv: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs: number; inheritOutput?: boolean },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd: ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', options.inheritOutput ? process.stderr : 'pipe', options.inheritOutput ? process.stderr : 'pipe'],
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
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else
        reject(new BenchError(`${command} ${argv.join(' ')} failed (${signal ?? `exit ${code}`})${stderr ? `:\n${stderr.trim()}` : ''}`));
    });
  });
}

let activeRun: ChildProcess | undefined;

/** CPU time (clock ticks) of the whole machine from /proc/stat: busy and total, summed over all cores. */
function machineTicks(): { busy: number; total: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/** utime + stime (clock ticks) and short name of a process, or undefined once it has exited. */
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

type Component = 'loader' | 'next' | 'postgres' | 'other';
const COMPONENTS: readonly Component[] = ['loader', 'next', 'postgres', 'other'];

function componentOf(pid: number, name: string): Component {
  if (pid === process.pid) return 'loader';
  if (name.startsWith('next')) return 'next';
  if (name.startsWith('postgres')) return 'postgres';
  return 'other';
}

interface CpuUse {
  /** % of one core, per part of the benchmark: the load generator (this process), next-server, PostgreSQL, the rest (launcher, anvil). */
  byComponent: Record<Component, number>;
  /** % of one core used by processes outside the benchmark. */
  foreign: number;
  cores: number;
}

/** Starts measuring CPU use; call the returned function at the end of the measured interval. */
function cpuMeter(): () => CpuUse {
  const pids = [process.pid, ...(stack.child?.pid ? [stack.child.pid, ...descendantsOf(stack.child.pid)] : [])];
  const before = new Map(pids.map((pid) => [pid, processTicks(pid)]));
  const machineBefore = machineTicks();
  return () => {
    const machineAfter = machineTicks();
    const cores = Math.max(1, availableParallelism());
    const perCore = (machineAfter.total - machineBefore.total) / cores;
    const byComponent: Record<Component, number> = { loader: 0, next: 0, postgres: 0, other: 0 };
    let ours = 0;
    for (const pid of pids) {
      const start = before.get(pid);
      const end = processTicks(pid);
      if (!start || !end) continue;
      byComponent[componentOf(pid, end.name)] += end.ticks - start.ticks;
      ours += end.ticks - start.ticks;
    }
    if (perCore <= 0) return { byComponent, foreign: 0, cores };
    for (const component of COMPONENTS) byComponent[component] = round((byComponent[component] / perCore) * 100, 0);
    const foreign = Math.max(0, machineAfter.busy - machineBefore.busy - ours);
    return { byComponent, foreign: round((foreign / perCore) * 100, 0), cores };
  };
}

// ---------------------------------------------------------------------------------------------
// The stack (scripts/lib/production-stack.mts)

const stack = new ProductionStack({
  root: ROOT,
  dataDir: DATA_DIR,
  env: {
    ...BENCH_ENV,
    API_RATE_LIMIT_PER_MINUTE: '100000000',
    NEXT_TELEMETRY_DISABLED: '1',
    ...(POOL_SIZE !== undefined ? { DATABASE_POOL_SIZE: String(POOL_SIZE) } : {}),
    ...(args.statements ? { STACK_POSTGRES_SETTINGS: 'shared_preload_libraries=pg_stat_statements;pg_stat_statements.max=1000' } : {}),
  },
  log,
  isInterrupted: () => interrupted,
  verbose: args.verbose,
  healthTimeoutMs: HEALTH_TIMEOUT_MS,
  stopTimeoutMs: STOP_TIMEOUT_MS,
});

// ---------------------------------------------------------------------------------------------
// Load

interface RouteFigures {
  route: string;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyAvgMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU use during the run (% of one core). Foreign use above a few % means the figures are disturbed. */
  cpu: CpuUse;
  /** CPU time per answered request (ms): steadier than requests/s on a busy machine. */
  cpuMsPerRequest: { next: number; postgres: number };
}

type Target = Pick<autocannon.Options, 'method' | 'headers' | 'body'> & { route: string; url: string };

let activeCannon: autocannon.Instance | undefined;

function cannon(target: Target, load: { durationS?: number; amount?: number }): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const options: autocannon.Options = {
      url: target.url,
      method: target.method,
      headers: target.headers,
      body: target.body,
      connections: CONNECTIONS,
      timeout: REQUEST_TIMEOUT_S,
      ...(load.amount ? { amount: load.amount } : { duration: load.durationS }),
    };
    // Bounded even when `amount` cannot be reached.
    const capMs = ((load.durationS ?? 0) + 60) * 1000;
    const cap = setTimeout(() => activeCannon?.stop(), capMs);
    activeCannon = autocannon(options, (error, result) => {
      clearTimeout(cap);
      activeCannon = undefined;
      if (interrupted) reject(new BenchError('interrupted'));
      else if (error) reject(error);
      else resolve(result);
    });
  });
}

function figures(route: string, result: autocannon.Result, cpu: CpuUse): RouteFigures {
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat?.count ?? 0;
  return {
    route,
    requestsPerSecond: round(result.requests.average, 1),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyAvgMs: round(result.latency.average, 2),
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    cpu,
    cpuMsPerRequest: {
      next: perRequest(cpu.byComponent.next, result.requests.average),
      postgres: perRequest(cpu.byComponent.postgres, result.requests.average),
    },
  };
}

/** % of one core at `perSecond` requests/s → CPU ms per request. */
function perRequest(percentOfCore: number, perSecond: number): number {
  return perSecond > 0 ? round((percentOfCore * 10) / perSecond, 2) : 0;
}

/** One round: health, then createCharge seconds later, and createCharge's share of health's requests/s. */
interface Round {
  health: RouteFigures;
  createCharge: RouteFigures;
  ratio: number;
  /** The merchant's open charges when the round's createCharge run ended (every 200 is a pending charge). */
  openChargesAfter: number;
}

/**
 * A route's runs over all rounds: requests/s over the total time, the median p50, the worst p99,
 * counts summed, CPU averaged (every run lasts the same time).
 */
function combined(runs: RouteFigures[]): RouteFigures {
  const sum = (pick: (r: RouteFigures) => number) => runs.reduce((total, r) => total + pick(r), 0);
  const mean = (pick: (r: RouteFigures) => number) => sum(pick) / runs.length;
  const statusCodes: Record<string, number> = {};
  for (const run of runs) for (const [code, count] of Object.entries(run.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const byComponent = Object.fromEntries(
    COMPONENTS.map((c) => [
      c,
      round(
        mean((r) => r.cpu.byComponent[c]),
        0,
      ),
    ]),
  ) as Record<Component, number>;
  const requestsPerSecond = round(
    mean((r) => r.requestsPerSecond),
    1,
  );
  return {
    route: runs[0]!.route,
    requestsPerSecond,
    latencyP50Ms: median(runs.map((r) => r.latencyP50Ms)),
    latencyP99Ms: Math.max(...runs.map((r) => r.latencyP99Ms)),
    latencyAvgMs: round(
      sum((r) => r.latencyAvgMs * r.requests) /
        Math.max(
          1,
          sum((r) => r.requests),
        ),
      2,
    ),
    requests: sum((r) => r.requests),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
    cpu: {
      byComponent,
      foreign: round(
        mean((r) => r.cpu.foreign),
        0,
      ),
      cores: runs[0]!.cpu.cores,
    },
    cpuMsPerRequest: {
      next: perRequest(byComponent.next, requestsPerSecond),
      postgres: perRequest(byComponent.postgres, requestsPerSecond),
    },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

async function firstErrorBody(target: Target): Promise<string> {
  try {
    const response = await fetch(target.url, {
      method: target.method,
      headers: target.headers as Record<string, string>,
      body: target.body as string | undefined,
      signal: AbortSignal.timeout(10_000),
    });
    return `${response.status} ${(await response.text()).slice(0, 2_000)}`;
  } catch (error) {
    return `fetch failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Main

const SOURCE_ROOTS = ['app', 'lib', 'components', 'public', 'instrumentation.ts', 'next.config.mjs', 'package.json', 'package-lock.json'];

/** The newest file under the sources the production build is made from (skips dotfiles and tests). */
function newestSource(): { file: string; mtimeMs: number } | undefined {
  let newest: { file: string; mtimeMs: number } | undefined;
  const visit = (relative: string) => {
    const absolute = path.join(ROOT, relative);
    let info;
    try {
      info = statSync(absolute);
    } catch {
      return;
    }
    if (info.isDirectory()) {
      for (const entry of readdirSync(absolute)) if (!entry.startsWith('.')) visit(path.join(relative, entry));
    } else if (!/\.test\.[cm]?[jt]sx?$/.test(relative) && (!newest || info.mtimeMs > newest.mtimeMs)) {
      newest = { file: relative, mtimeMs: info.mtimeMs };
    }
  };
  for (const root of SOURCE_ROOTS) visit(root);
  return newest;
}

/** The bench measures what `.next` holds: say so when sources changed after the last build. */
function warnIfStale(): void {
  const built = statSync(path.join(ROOT, '.next', 'BUILD_ID')).mtimeMs;
  const newest = newestSource();
  if (newest && newest.mtimeMs > built) {
    log(`warning: the production build is older than ${newest.file}; run \`npm run build\` to measure the current code`);
  }
}

async function main(): Promise<number> {
  if (!existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) {
    log('no production build (.next/BUILD_ID missing): running `next build` first');
    await run(path.join(ROOT, 'node_modules/.bin/next'), ['build'], {
      env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
      timeoutMs: BUILD_TIMEOUT_MS,
      inheritOutput: true,
    });
  } else {
    warnIfStale();
  }
  checkInterrupted();
  const baseUrl = await stack.start(POOL_SIZE ? `, DATABASE_POOL_SIZE=${POOL_SIZE}` : '');
  log('stack is healthy');
  checkInterrupted();

  const cliOut = await run(
    path.join(ROOT, 'node_modules/.bin/tsx'),
    [
      '--conditions=react-server',
      'scripts/admin.mts',
      'merchant',
      'create',
      '--email',
      `bench-${Date.now()}@bench.example`,
      '--name',
      'Bench Merchant',
      '--verified',
      '--json',
    ],
    { env: BENCH_ENV, timeoutMs: CLI_TIMEOUT_MS },
  );
  let liveKey: string;
  try {
    const created = JSON.parse(cliOut) as { merchant: { id: string }; liveKey: { key: string } };
    liveKey = created.liveKey.key;
    log(`merchant ${created.merchant.id} created`);
  } catch {
    throw new BenchError(`unexpected admin CLI output:\n${cliOut}`);
  }

  // The readiness probe is one `select 1` (the full /api/health report reads the queue and the webhook backlog too).
  const health: Target = { route: 'GET /api/health/ready', url: `${baseUrl}/api/health/ready`, method: 'GET' };
  const createCharge: Target = {
    route: 'POST /api/createCharge',
    url: `${baseUrl}/api/createCharge`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': liveKey },
    body: CREATE_CHARGE_BODY,
  };

  checkInterrupted();
  // One request first: a broken route fails here with its body rather than after a whole run.
  const probe = await firstErrorBody(createCharge);
  if (!probe.startsWith('200 ')) throw new BenchError(`POST /api/createCharge does not answer 200: ${probe}`);

  log(`warming up (${WARMUP_REQUESTS} requests per route)`);
  let openCharges = 1; // the probe's
  for (const target of [health, createCharge]) {
    // autocannon refuses fewer requests than connections.
    const warm = await cannon(target, { amount: Math.max(WARMUP_REQUESTS, CONNECTIONS) });
    if (warm.non2xx || warm.errors) log(`  warm-up ${target.route}: ${warm.non2xx} non-2xx, ${warm.errors} errors`);
    if (target === createCharge) openCharges += warm['2xx'];
  }

  const statements = args.statements ? await statementMeter() : undefined;
  const rounds: Round[] = [];
  for (let round = 1; round <= ROUNDS || (openCharges < MIN_OPEN && round <= MAX_ROUNDS); round++) {
    const figuresOf: RouteFigures[] = [];
    for (const target of [health, createCharge]) {
      checkInterrupted();
      log(`round ${round}, ${target.route}: ${CONNECTIONS} connections for ${DURATION_S} s (${openCharges} open charges)`);
      const meter = cpuMeter();
      if (target === createCharge) await statements?.reset();
      const result = await cannon(target, { durationS: DURATION_S });
      figuresOf.push(figures(target.route, result, meter()));
      if (target === createCharge) await statements?.add(result['2xx']);
    }
    const [healthRun, chargeRun] = figuresOf as [RouteFigures, RouteFigures];
    openCharges += chargeRun.statusCodes['200'] ?? 0;
    rounds.push({
      health: healthRun,
      createCharge: chargeRun,
      ratio: healthRun.requestsPerSecond > 0 ? chargeRun.requestsPerSecond / healthRun.requestsPerSecond : 0,
      openChargesAfter: openCharges,
    });
  }
  if (openCharges < MIN_OPEN) log(`only ${openCharges} open charges after ${MAX_ROUNDS} rounds (--min-open ${MIN_OPEN})`);
  const healthFigures = combined(rounds.map((r) => r.health));
  const chargeFigures = combined(rounds.map((r) => r.createCharge));
  const results = [healthFigures, chargeFigures];

  const problems: string[] = [];
  if (healthFigures.non2xx || healthFigures.errors) {
    problems.push(
      `GET /api/health/ready: ${healthFigures.non2xx} non-2xx, ${healthFigures.errors} errors (${JSON.stringify(healthFigures.statusCodes)})`,
    );
  }
  const chargeNon200 = chargeFigures.requests - (chargeFigures.statusCodes['200'] ?? 0);
  if (chargeNon200 || chargeFigures.errors) {
    problems.push(
      `POST /api/createCharge: ${chargeNon200} non-200, ${chargeFigures.errors} errors, ${chargeFigures.timeouts} timeouts ` +
        `(${JSON.stringify(chargeFigures.statusCodes)}); one more request answers: ${await firstErrorBody(createCharge)}`,
    );
  }

  const ratio = median(rounds.map((r) => r.ratio));
  const aims = {
    throughputRatio: { aim: `createCharge ≥ ${AIM_RATIO * 100}% of health throughput`, met: ratio >= AIM_RATIO },
    postgresPerCharge: {
      aim: `PostgreSQL ≤ ${AIM_POSTGRES_MS_PER_CHARGE} ms CPU per charge in every round (up to ${rounds[rounds.length - 1]?.openChargesAfter ?? 0} open charges)`,
      met: rounds.every((r) => r.createCharge.cpuMsPerRequest.postgres <= AIM_POSTGRES_MS_PER_CHARGE),
    },
    p99: { aim: `p99 ≤ ${AIM_P99_MS} ms at ${CONNECTIONS} connections`, met: chargeFigures.latencyP99Ms <= AIM_P99_MS },
  };

  if (args.json) {
    console.log(
      JSON.stringify(
        {
          connections: CONNECTIONS,
          durationSeconds: DURATION_S,
          rounds: rounds.map((r) => ({ ...r, ratio: round(r.ratio * 100, 1) })),
          databasePoolSize: POOL_SIZE ?? null,
          routes: results,
          createChargeToHealthPercent: round(ratio * 100, 1),
          aims,
          problems,
        },
        null,
        2,
      ),
    );
  } else {
    printTable(rounds, results, ratio, aims);
    if (statements) await statements.print();
  }
  await statements?.close();
  for (const problem of problems) console.error(`FAILED: ${problem}`);
  if (problems.length) console.error(`Last lines of the stack's log:\n${stack.logTail(20)}`);
  return problems.length ? 1 : 0;
}

/**
 * pg_stat_statements over the createCharge rounds (--statements): reset before each, summed after it
 * (with its charges created), so the health rounds between them are left out.
 */
async function statementMeter() {
  const match = /PostgreSQL \(embedded\) on ([\d.]+:\d+)/.exec(stack.logTail(200));
  if (!match) throw new BenchError('--statements: the stack did not log its embedded PostgreSQL address (DATABASE_URL set?)');
  const db = postgres(`postgres://chargeport:chargeport-local@${match[1]}/chargeport`, { max: 1, onnotice: () => {} });
  await db`create extension if not exists pg_stat_statements`;
  const totals = new Map<string, { calls: number; totalMs: number; rows: number }>();
  let charges = 0;
  let commits = 0;
  let commitsBefore = 0;
  const commitCount = async () => Number((await db`select sum(xact_commit)::text as n from pg_stat_database`)[0]!.n);
  return {
    async reset() {
      await db`select pg_stat_statements_reset()`;
      commitsBefore = await commitCount();
    },
    async add(created: number) {
      // pg_stat_database is flushed by backends at most once a second.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      charges += created;
      commits += (await commitCount()) - commitsBefore;
      const rows = await db<{ query: string; calls: string; total_ms: number; rows: string }[]>`
        select query, calls::text, total_exec_time as total_ms, rows::text from pg_stat_statements
        where query not like '%pg_stat_%' and query not like '%pg_stat_statements%'`;
      for (const row of rows) {
        const key = row.query.replace(/\s+/g, ' ').trim();
        const sum = totals.get(key) ?? { calls: 0, totalMs: 0, rows: 0 };
        sum.calls += Number(row.calls);
        sum.totalMs += row.total_ms;
        sum.rows += Number(row.rows);
        totals.set(key, sum);
      }
    },
    async print() {
      const per = Math.max(1, charges);
      const ranked = [...totals.entries()].sort((a, b) => b[1].totalMs - a[1].totalMs);
      const totalMs = ranked.reduce((sum, [, figures]) => sum + figures.totalMs, 0);
      console.log('');
      console.log(
        `Statements during the createCharge rounds (pg_stat_statements, per charge of ${per}): execution ${(totalMs / per).toFixed(3)} ms, ` +
          `${(commits / per).toFixed(2)} commits, ${(ranked.reduce((sum, [, f]) => sum + f.calls, 0) / per).toFixed(2)} statements`,
      );
      console.log(`${'calls'.padStart(7)}  ${'ms'.padStart(7)}  ${'ms/call'.padStart(8)}  statement`);
      for (const [query, figures] of ranked.slice(0, 20)) {
        const text = query.length > 140 ? `${query.slice(0, 137)}...` : query;
        console.log(
          `${(figures.calls / per).toFixed(3).padStart(7)}  ${(figures.totalMs / per).toFixed(3).padStart(7)}  ${(figures.totalMs / Math.max(1, figures.calls)).toFixed(3).padStart(8)}  ${text}`,
        );
      }
    },
    close: () => db.end(),
  };
}

function printTable(rounds: Round[], results: RouteFigures[], ratio: number, aims: Record<string, { aim: string; met: boolean }>): void {
  const header = ['route', 'req/s (avg)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'CPU ms/req next-server', 'CPU ms/req postgres'];
  const labelled = [
    ...rounds.flatMap((r, i) => [
      { label: `round ${i + 1}  ${r.health.route}`, figures: r.health },
      { label: `round ${i + 1}  ${r.createCharge.route}`, figures: r.createCharge },
    ]),
    ...results.map((r) => ({ label: `all rounds  ${r.route}`, figures: r })),
  ];
  const rows = labelled.map(({ label, figures: r }) => [
    label,
    r.requestsPerSecond.toFixed(1),
    String(r.latencyP50Ms),
    String(r.latencyP99Ms),
    String(r.non2xx),
    String(r.errors),
    r.cpuMsPerRequest.next.toFixed(2),
    r.cpuMsPerRequest.postgres.toFixed(2),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log('');
  console.log(
    `API benchmark: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s per route${POOL_SIZE ? `, DATABASE_POOL_SIZE=${POOL_SIZE}` : ''}`,
  );
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  rows.forEach((row, i) => {
    if (i === rounds.length * 2) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    console.log(line(row));
  });
  console.log('');
  console.log(
    `createCharge / health throughput: ${(ratio * 100).toFixed(1)} % (median of the rounds: ${rounds.map((r) => `${(r.ratio * 100).toFixed(1)} %`).join(', ')})`,
  );
  const first = rounds[0];
  const last = rounds[rounds.length - 1];
  if (first && last) {
    const openBefore = (r: Round) => r.openChargesAfter - (r.createCharge.statusCodes['200'] ?? 0);
    console.log(
      `createCharge as open charges grow (one merchant): first round ${openBefore(first)}–${first.openChargesAfter} open, ` +
        `PostgreSQL ${first.createCharge.cpuMsPerRequest.postgres.toFixed(2)} ms CPU per charge, ${first.createCharge.requestsPerSecond.toFixed(0)}/s; ` +
        `last round ${openBefore(last)}–${last.openChargesAfter} open, PostgreSQL ${last.createCharge.cpuMsPerRequest.postgres.toFixed(2)} ms, ` +
        `${last.createCharge.requestsPerSecond.toFixed(0)}/s`,
    );
  }
  for (const { aim, met } of Object.values(aims)) console.log(`  ${met ? 'met    ' : 'NOT met'}  ${aim}`);
  console.log('');
  console.log(`CPU use during the runs, % of one core (${results[0]?.cpu.cores ?? '?'} cores):`);
  for (const r of results) {
    // All rounds together: CPU % of a core averaged over the rounds.
    const parts = COMPONENTS.map(
      (component) =>
        `${component === 'loader' ? 'autocannon' : component === 'next' ? 'next-server' : component} ${r.cpu.byComponent[component]}`,
    );
    console.log(`  ${r.route.padEnd(widths[0]!)}  ${parts.join(', ')}; other processes ${r.cpu.foreign}`);
  }
  const disturbed = results.filter((r) => r.cpu.foreign > DISTURBED_CPU_PERCENT);
  if (disturbed.length) {
    console.log(
      `  warning: processes outside the benchmark used ${disturbed.map((r) => `${r.cpu.foreign} % of a core during ${r.route}`).join(', ')}: ` +
        'these figures are disturbed; run again on a quiet machine.',
    );
  }
}

// A closed stdout/stderr (e.g. `| head`) must not kill this process before it has stopped the stack.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping`);
    activeCannon?.stop();
    if (activeRun && activeRun.exitCode === null) killGroup(activeRun, 'SIGTERM');
    void stack.stop().finally(() => process.exit(130));
  });
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  if (interrupted) log('interrupted');
  else
    console.error(
      `FAILED: ${error instanceof BenchError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  exitCode = 1;
} finally {
  await stack.stop();
}
process.exit(interrupted ? 130 : exitCode);
