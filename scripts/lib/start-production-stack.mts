/**
 * Starts the production stack (scripts/stack.mts start: the web server, one worker, embedded PostgreSQL
 * and local anvil nodes) for a benchmark, as bench:api and bench:detection do: a free loopback port, a
 * fresh data dir, random production secrets, DATABASE_URL and RPC URLs from the environment or .env
 * blanked so nothing leaves loopback. The stack writes to a log file in the data dir (never to a pipe of
 * ours: a broken pipe makes next-server spin on EPIPE), runs in its own process group, and a detached
 * watchdog stops it and removes the data dir if the caller dies without `stop()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { parseEnv } from 'node:util';

const HEALTH_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

export interface ProductionStack {
  baseUrl: string;
  /** The variables the stack runs with (its secrets too: the admin CLI needs the same). */
  env: NodeJS.ProcessEnv;
  /** The last lines the stack wrote, for an error message. */
  logTail: (lines?: number) => string;
  /** SIGTERM to the stack's group (SIGKILL after 30 s), leftovers killed, data dir removed. Idempotent. */
  stop: () => Promise<void>;
}

/** `dataDir` relative to the working directory (e.g. .data/bench-lighthouse); `env` is added last. */
export async function startProductionStack(options: { dataDir: string; env?: NodeJS.ProcessEnv }): Promise<ProductionStack> {
  const root = process.cwd();
  const dataDirAbs = path.resolve(root, options.dataDir);
  const logFile = path.join(dataDirAbs, 'stack.log');
  rmSync(dataDirAbs, { recursive: true, force: true });
  mkdirSync(dataDirAbs, { recursive: true });
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const env = { ...productionEnv(root, options.dataDir), PORT: String(port), APP_URL: baseUrl, ...options.env };

  const logFd = openSync(logFile, 'a');
  const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['--conditions=react-server', 'scripts/stack.mts', 'start'], {
    cwd: root,
    env,
    stdio: ['ignore', logFd, logFd],
    detached: true,
  });
  closeSync(logFd);
  if (child.pid) startWatchdog(child.pid, dataDirAbs);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const logTail = (lines = 30) => {
    try {
      const text = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines);
      return text.map((line) => `  | ${line.slice(0, 2_000)}`).join('\n');
    } catch {
      return '  | (no stack log)';
    }
  };
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.pid && child.exitCode === null && child.signalCode === null) {
        const tree = descendantsOf(child.pid);
        killGroup(child, 'SIGTERM');
        if (await Promise.race([exited.then(() => false), sleep(STOP_TIMEOUT_MS).then(() => true)])) killGroup(child, 'SIGKILL');
        // next-server runs in a group of its own: whatever of the tree outlived the launcher.
        for (let waited = 0; waited < 5_000 && tree.some(isAlive); waited += 100) await sleep(100);
        for (const pid of tree.filter(isAlive)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
      rmSync(dataDirAbs, { recursive: true, force: true });
    })());

  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const tail = logTail();
      await stop();
      throw new Error(`the stack exited early (${child.signalCode ?? `exit ${child.exitCode}`}):\n${tail}`);
    }
    try {
      const response = await fetch(`${baseUrl}/api/health/ready`, { signal: AbortSignal.timeout(5_000) });
      if (response.status === 200) return { baseUrl, env, logTail, stop };
      last = `${response.status} ${(await response.text()).slice(0, 300)}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await sleep(250);
  }
  const tail = logTail();
  await stop();
  throw new Error(`/api/health/ready did not answer 200 within ${HEALTH_TIMEOUT_MS / 1000} s (last: ${last}):\n${tail}`);
}

/** A production configuration that stays on this machine: embedded database and chains, random secrets. */
function productionEnv(root: string, dataDir: string): NodeJS.ProcessEnv {
  const dotEnv = path.join(root, '.env');
  const fromDotEnv = existsSync(dotEnv) ? Object.keys(parseEnv(readFileSync(dotEnv, 'utf8'))) : [];
  const blanked = [...Object.keys(process.env), ...fromDotEnv].filter(
    (name) => name === 'DATABASE_URL' || name.startsWith('RPC_URL_') || name.startsWith('RPC_WS_URL_'),
  );
  const secret = () => randomBytes(32).toString('base64');
  return {
    ...process.env,
    ...Object.fromEntries(blanked.map((name) => [name, ''])),
    DATA_DIR: dataDir,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    AUTH_SECRET: secret(),
    PIN_PEPPER: secret(),
    WALLET_MASTER_KEY: secret(),
    WALLET_MASTER_KEYS_PREVIOUS: '',
    DEPOSIT_HD_SEED: secret(),
    // Nothing is sent: the dev outbox inside the data dir stands in for SMTP/SMS.
    ALLOW_DEV_OUTBOX: 'true',
    // A production build never starts local chains on its own.
    LOCAL_CHAIN_NODES: 'true',
    NEXT_TELEMETRY_DISABLED: '1',
  };
}

/** Stops the stack if the caller dies without cleaning up; exits by itself once the stack is gone. */
function startWatchdog(launcherPid: number, dataDirAbs: string): void {
  const code = `const [caller, launcher, dataDir] = [Number(process.argv[1]), Number(process.argv[2]), process.argv[3]];
    const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
    const signal = (sig) => { try { process.kill(-launcher, sig); } catch {} };
    let orphanedAt = 0;
    setInterval(() => {
      if (!alive(launcher)) { if (orphanedAt) require('node:fs').rmSync(dataDir, { recursive: true, force: true }); process.exit(0); }
      if (!orphanedAt && !alive(caller)) { orphanedAt = Date.now(); signal('SIGTERM'); }
      if (orphanedAt && Date.now() - orphanedAt > ${STOP_TIMEOUT_MS}) signal('SIGKILL');
    }, 500);`;
  spawn(process.execPath, ['-e', code, String(process.pid), String(launcherPid), dataDirAbs], { stdio: 'ignore', detached: true }).unref();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // gone
  }
}

/** Every live descendant of pid (from /proc), so processes in other groups (next start) are found too. */
function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may contain spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
