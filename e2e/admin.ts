import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { E2E_DATA_DIR, E2E_SECRETS } from '../playwright.config';

/**
 * Runs the admin CLI against the e2e stack's embedded database (found through its runtime file), with the
 * stack's keys: a merchant wallet it creates is sealed under the WALLET_MASTER_KEY the stack signs with.
 */
export function admin<T = any>(...args: string[]): T {
  const { WALLET_MASTER_KEY, DEPOSIT_HD_SEED } = E2E_SECRETS;
  const out = execFileSync('node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/admin.mts', ...args, '--json'], {
    env: { ...process.env, DATA_DIR: E2E_DATA_DIR, DATABASE_URL: '', WALLET_MASTER_KEY, DEPOSIT_HD_SEED },
    encoding: 'utf8',
  });
  return JSON.parse(out) as T;
}

export function createVerifiedMerchant(name: string): { merchantId: string; testKey: string; liveKey: string } {
  const created = admin('merchant', 'create', '--email', `owner+${Date.now()}@studio.example`, '--name', name, '--verified');
  return { merchantId: created.merchant.id, testKey: created.testKey.key, liveKey: created.liveKey.key };
}

/** Direct SQL on the e2e stack's embedded database, for set-up that no public API offers (e.g. moving time). */
export async function withE2eDatabase<T>(run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const info = JSON.parse(readFileSync(path.join(E2E_DATA_DIR, 'runtime.json'), 'utf8')) as { embeddedDatabaseUrl: string };
  const sql = postgres(info.embeddedDatabaseUrl, { max: 1, onnotice: () => {} });
  try {
    return await run(sql);
  } finally {
    await sql.end();
  }
}
