/**
 * Where the embedded services keep their state (PostgreSQL cluster, local chain state dumps, the dev outbox,
 * dev secrets, runtime.json): DATA_DIR when set, else a directory OUTSIDE the project, keyed by the project's
 * path, so nothing `npm run dev` writes while it runs sits in the tree Next's dev server watches. (anvil dumps
 * its state every 5 s; inside the tree that could set off a recompile and reload loop. Next 16 has no option
 * to exclude a directory from Turbopack's watcher: `watchOptions` only takes `pollIntervalMs`.)
 *
 *   $XDG_STATE_HOME/chargeport/<project dir name>-<hash of its path>   (XDG_STATE_HOME: ~/.local/state)
 *   %LOCALAPPDATA%\chargeport\<…>                                      on Windows
 *
 * A checkout that still has its data in `<project>/.data` (the earlier default) keeps it: `npm run dev` moves
 * it to the new place once and says so; everything else (npm start, the admin CLI) goes on using `.data`
 * until it is moved. As root with a private home, the default directory is one the `postgres` user cannot
 * enter: the embedded driver then keeps the cluster under /var/lib/chargeport (embedded-postgres.ts).
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { readRuntimeInfo } from './runtime-file';

/** The data directory of a project when DATA_DIR is unset and there is no `.data` from before. */
export function defaultDataDir(projectRoot: string, environment: Record<string, string | undefined> = process.env): string {
  const root = realpathOrSelf(path.resolve(projectRoot));
  const base =
    process.platform === 'win32'
      ? (environment.LOCALAPPDATA ?? path.join(environment.HOME ?? homedir(), 'AppData', 'Local'))
      : environment.XDG_STATE_HOME || path.join(environment.HOME ?? homedir(), '.local', 'state');
  const hash = createHash('sha256').update(root).digest('hex').slice(0, 12);
  const name = path.basename(root).replace(/[^A-Za-z0-9._-]/g, '_') || 'root';
  return path.join(base, 'chargeport', `${name}-${hash}`);
}

/** The earlier default, inside the project. */
function legacyDataDir(projectRoot: string): string {
  return path.join(path.resolve(projectRoot), '.data');
}

/** What a stack's data directory holds (so `.data/test-results` or `.data/bench` alone is not "data from before"). */
const STACK_ENTRIES = ['pg', 'pg-location', 'anvil', 'dev-secrets.json', 'outbox', 'backups'] as const;

function holdsStackData(dir: string): boolean {
  return STACK_ENTRIES.some((entry) => existsSync(path.join(dir, entry)));
}

/**
 * The data directory to use, resolved to an absolute path. `migrate` (npm run dev): a `.data` from before is
 * moved to the default place when that is safe — no stack runs from it, nothing is there yet, and (as root)
 * its cluster is not kept in place, where the new directory would hide it from the `postgres` user.
 */
export function resolveDataDir(options: {
  projectRoot: string;
  environment?: Record<string, string | undefined>;
  migrate?: boolean;
  log?: (line: string) => void;
}): string {
  const environment = options.environment ?? process.env;
  const log = options.log ?? (() => {});
  if (environment.DATA_DIR) return path.resolve(options.projectRoot, environment.DATA_DIR);
  const target = defaultDataDir(options.projectRoot, environment);
  const legacy = legacyDataDir(options.projectRoot);
  if (!holdsStackData(legacy)) return target;
  if (!options.migrate) return legacy;

  const clusterInPlace = existsSync(path.join(legacy, 'pg', 'PG_VERSION')) && !existsSync(path.join(legacy, 'pg-location'));
  const blocker = readRuntimeInfo(legacy)
    ? 'a stack is running from it'
    : holdsStackData(target)
      ? `${target} holds data already`
      : process.getuid?.() === 0 && clusterInPlace
        ? 'as root its PostgreSQL cluster must stay where the postgres user can reach it'
        : undefined;
  if (blocker) {
    log(
      `WARNING: data from before in ${legacy}, inside the project: Next's dev server watches it and can reload while the ` +
        `local chains write their state there. Not moved (${blocker}); move it out and set DATA_DIR, or delete it.`,
    );
    return legacy;
  }
  mkdirSync(target, { recursive: true });
  // The stack's entries only: what else is in .data (test results, benchmarks' stacks) stays.
  for (const entry of STACK_ENTRIES) {
    if (existsSync(path.join(legacy, entry))) moveEntry(path.join(legacy, entry), path.join(target, entry));
  }
  log(`Moved the data in ${legacy} to ${target}, out of the tree Next's dev server watches (DATA_DIR sets another place).`);
  return target;
}

function moveEntry(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    // Another filesystem: copy, then remove the original.
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    cpSync(from, to, { recursive: true, preserveTimestamps: true });
    rmSync(from, { recursive: true, force: true });
  }
}

function realpathOrSelf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
