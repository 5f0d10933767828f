import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import path from 'node:path';
import postgres from 'postgres';
import { E2E_DATA_DIR, E2E_SECRETS } from '../playwright.config';

/**
 * Runs the admin CLI against the e2e stack's embedded database (found through its runtime file), with the
 * stack's keys: a merchant wallet it creates is sealed under the WALLET_MASTER_KEY the stack signs with.
 */
export function admin<T = any>(...args: string[]): T {
  const out = execFileSync('node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/admin.mts', ...args, '--json'], {
    env: adminEnv(),
    encoding: 'utf8',
  });
  return JSON.parse(out) as T;
}

function adminEnv(): NodeJS.ProcessEnv {
  const { WALLET_MASTER_KEY, DEPOSIT_HD_SEED } = E2E_SECRETS;
  return { ...process.env, DATA_DIR: E2E_DATA_DIR, DATABASE_URL: '', WALLET_MASTER_KEY, DEPOSIT_HD_SEED };
}

type VerifiedMerchant = { merchantId: string; testKey: string; liveKey: string };
type Answer = { id: number; merchant?: VerifiedMerchant; error?: string };

/** This worker's e2e/admin-server.mts, started on first use; it ends when the worker does (its stdin closes). */
let merchantServer: { send: (request: { email: string; name: string }) => Promise<VerifiedMerchant> } | undefined;

function startMerchantServer(): NonNullable<typeof merchantServer> {
  const child = spawn('node_modules/.bin/tsx', ['--conditions=react-server', 'e2e/admin-server.mts'], {
    env: adminEnv(),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = new Map<number, { resolve: (merchant: VerifiedMerchant) => void; reject: (error: Error) => void }>();
  const failAll = (error: Error) => {
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
    merchantServer = undefined;
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    const answer = JSON.parse(line) as Answer;
    const caller = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (answer.merchant) caller?.resolve(answer.merchant);
    else caller?.reject(new Error(`admin merchant create: ${answer.error}`));
  });
  child.on('exit', (code) => failAll(new Error(`e2e/admin-server.mts exited (${code})`)));
  child.on('error', failAll);
  // Neither the process nor its pipes keep the worker alive: a test awaiting an answer does.
  child.unref();
  for (const stream of [child.stdin, child.stdout]) (stream as unknown as { unref?: () => void }).unref?.();
  let nextId = 0;
  return {
    send: (request) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        child.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
      }),
  };
}

/** A verified merchant with a test and a production key, as `admin merchant create --verified` makes it. */
export async function createVerifiedMerchant(name: string): Promise<VerifiedMerchant> {
  merchantServer ??= startMerchantServer();
  return merchantServer.send({ email: `owner+${Date.now()}-${Math.random().toString(36).slice(2, 8)}@studio.example`, name });
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
