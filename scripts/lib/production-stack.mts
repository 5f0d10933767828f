/**
 * The production stack of the benchmarks (bench:api, bench:detection): `scripts/stack.mts start` (web
 * server, worker, embedded PostgreSQL, local anvil nodes) on a free loopback port with a fresh data dir,
 * in a production configuration that stays on this machine, stopped (with everything it started) and
 * its data dir deleted afterwards — also when the benchmark dies without cleaning up (a watchdog).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { parseEnv } from 'node:util';

export class BenchError extends Error {}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Environment of the stack and the admin CLI: production, with random secrets per run, the dev outbox
 * (inside the data dir) for SMTP/SMS and local chain nodes. The variables `blank` selects, from the
 * environment or .env, are emptied (empty = unset): DATABASE_URL and RPC URLs, so nothing leaves loopback.
 */
export function benchEnv(input: {
  root: string;
  dataDir: string;
  blank: (name: string) => boolean;
  extra?: Record<string, string>;
}): NodeJS.ProcessEnv {
  const dotEnv = path.join(input.root, '.env');
  const fromDotEnv = existsSync(dotEnv) ? Object.keys(parseEnv(readFileSync(dotEnv, 'utf8'))) : [];
  const blanked = [...Object.keys(process.env), ...fromDotEnv].filter(input.blank);
  const secret = () => randomBytes(32).toString('base64');
  return {
    ...process.env,
    ...Object.fromEntries(blanked.map((name) => [name, ''])),
    DATA_DIR: input.dataDir,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    AUTH_SECRET: secret(),
    PIN_PEPPER: secret(),
    WALLET_MASTER_KEY: secret(),
    WALLET_MASTER_KEYS_PREVIOUS: '',
    DEPOSIT_HD_SEED: secret(),
    ALLOW_DEV_OUTBOX: 'true',
    // A production build never starts local chains on its own; the benchmarks' charges are on local nodes.
    LOCAL_CHAIN_NODES: 'true',
    ...input.extra,
  };
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Every live descendant of pid (from /proc), so processes in other groups (the Next.js server) are found too. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may contain spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new BenchError('no free port'))));
    });
  });
}

export interface ProductionStackOptions {
  root: string;
  /** Relative to root, e.g. `.data/bench`: deleted before the start and after the stop. */
  dataDir: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** Set by the benchmark's signal handlers: the wait for health stops. */
  isInterrupted: () => boolean;
  /** Copies what the stack writes to stderr as it comes. */
  verbose?: boolean;
  healthTimeoutMs?: number;
  stopTimeoutMs?: number;
}

/** One stack per benchmark: start() once, stop() as often as wanted (the first call does the work). */
export class ProductionStack {
  child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private readonly dataDirAbs: string;
  private readonly logFile: string;
  private readonly healthTimeoutMs: number;
  private readonly stopTimeoutMs: number;

  constructor(private readonly options: ProductionStackOptions) {
    this.dataDirAbs = path.resolve(options.root, options.dataDir);
    this.logFile = path.join(this.dataDirAbs, 'stack.log');
    this.healthTimeoutMs = options.healthTimeoutMs ?? 120_000;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
  }

  /** Starts the stack and waits for /api/health/ready; returns its base URL. `note` is added to the start line. */
  async start(note = ''): Promise<string> {
    const { root, log } = this.options;
    rmSync(this.dataDirAbs, { recursive: true, force: true });
    const port = await freePort();
    const baseUrl = `http://localhost:${port}`;
    log(`starting the production stack on ${baseUrl} (data in ${this.options.dataDir}${note})`);
    // The stack writes to a file, never to a pipe of ours: if this process dies, a broken pipe would
    // make next-server spin on EPIPE errors (seen: ~77 % of a core) instead of the stack just running on
    // until the watchdog stops it.
    mkdirSync(this.dataDirAbs, { recursive: true });
    const logFd = openSync(this.logFile, 'a');
    const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['--conditions=react-server', 'scripts/stack.mts', 'start'], {
      cwd: root,
      env: { ...this.options.env, PORT: String(port), APP_URL: baseUrl },
      stdio: ['ignore', logFd, logFd],
      detached: true,
    });
    closeSync(logFd);
    this.child = child;
    if (child.pid) this.startWatchdog(child.pid);
    const follow = this.options.verbose ? this.followLog() : undefined;
    this.exited = new Promise<void>((resolve) =>
      child.once('exit', () => {
        if (follow) clearInterval(follow);
        resolve();
      }),
    );

    const deadline = Date.now() + this.healthTimeoutMs;
    let last = 'no answer';
    while (Date.now() < deadline) {
      if (this.options.isInterrupted()) throw new BenchError('interrupted');
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new BenchError(`the stack exited early (${child.signalCode ?? `exit ${child.exitCode}`}):\n${this.logTail()}`);
      }
      try {
        const response = await fetch(`${baseUrl}/api/health/ready`, { signal: AbortSignal.timeout(5_000) });
        const text = await response.text();
        if (response.status === 200) return baseUrl;
        last = `${response.status} ${text.slice(0, 300)}`;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      await sleep(250);
    }
    throw new BenchError(
      `/api/health/ready did not answer 200 within ${this.healthTimeoutMs / 1000} s (last: ${last}):\n${this.logTail()}`,
    );
  }

  /** Stops the stack and everything it started, then deletes the data dir. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const { child } = this;
      const { log } = this.options;
      if (child?.pid && child.exitCode === null && child.signalCode === null) {
        log('stopping the stack');
        const tree = descendantsOf(child.pid);
        killGroup(child, 'SIGTERM');
        const timedOut = await Promise.race([this.exited!.then(() => false), sleep(this.stopTimeoutMs).then(() => true)]);
        if (timedOut) {
          log(`the stack did not stop within ${this.stopTimeoutMs / 1000} s: killing it`);
          killGroup(child, 'SIGKILL');
        }
        // Anything the launcher started that outlived it (next-server runs in its own group).
        for (let waited = 0; waited < 5_000 && tree.some(isAlive); waited += 100) await sleep(100);
        for (const pid of tree.filter(isAlive)) {
          log(`killing leftover process ${pid}`);
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
      rmSync(this.dataDirAbs, { recursive: true, force: true });
    })();
    return this.stopping;
  }

  /** The last lines the stack wrote. */
  logTail(lines = 40): string {
    try {
      return readFileSync(this.logFile, 'utf8')
        .trimEnd()
        .split('\n')
        .slice(-lines)
        .map((line) => `  | ${line.slice(0, 2_000)}`)
        .join('\n');
    } catch {
      return '  | (no stack log)';
    }
  }

  private followLog(): NodeJS.Timeout {
    let offset = 0;
    const timer = setInterval(() => {
      try {
        const text = readFileSync(this.logFile);
        if (text.length <= offset) return;
        const fresh = text.subarray(offset).toString('utf8');
        offset = text.length;
        for (const line of fresh.split('\n')) if (line) process.stderr.write(`  | ${line}\n`);
      } catch {
        // not there yet / removed
      }
    }, 500);
    timer.unref();
    return timer;
  }

  /**
   * A small detached process that stops the stack if the benchmark dies without cleaning up (SIGKILL, a
   * crash): SIGTERM to the launcher's group, SIGKILL after the stop timeout, then removes the data dir.
   * It exits by itself once the launcher is gone.
   */
  private startWatchdog(launcherPid: number): void {
    const code = `
      const [bench, launcher, dataDir] = [Number(process.argv[1]), Number(process.argv[2]), process.argv[3]];
      const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
      const signal = (sig) => { try { process.kill(-launcher, sig); } catch {} };
      let orphanedAt = 0;
      setInterval(() => {
        if (!alive(launcher)) {
          if (orphanedAt) require('node:fs').rmSync(dataDir, { recursive: true, force: true });
          process.exit(0);
        }
        if (!orphanedAt && !alive(bench)) { orphanedAt = Date.now(); signal('SIGTERM'); }
        if (orphanedAt && Date.now() - orphanedAt > ${this.stopTimeoutMs}) signal('SIGKILL');
      }, 500);`;
    spawn(process.execPath, ['-e', code, String(process.pid), String(launcherPid), this.dataDirAbs], {
      stdio: 'ignore',
      detached: true,
    }).unref();
  }
}
