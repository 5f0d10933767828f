/**
 * Issue 26 point 6 and N17: the admin CLI never seals with development secrets, or another master key,
 * against a production stack's database; a worker without NODE_ENV=production refuses one. Each case
 * runs the real scripts (fresh tsx processes) against a private database whose last server start is set
 * as instrumentation.ts records it. Master-key rotation's "done" rule (N7) is checked through the CLI too.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { merchants, platformSettings } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { masterKeyIdFrom, type ServerStart } from '@/lib/admin/server-start';
import { enrolTotp, newUser } from '@/test/accounts';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';

const run = promisify(execFile);
const TEST_KEY_ID = masterKeyIdFrom(TEST_SECRETS.WALLET_MASTER_KEY)!;
const SERVER_KEY_ID = masterKeyIdFrom(randomBytes(32).toString('base64'))!;

type Env = Record<string, string | undefined>;

/** The environment of the test process without the suite's secrets (as a shell that has none of the server's). */
function bareEnv(overrides: Env = {}): NodeJS.ProcessEnv {
  const env: Env = { ...process.env, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'chargeport-guard-')) };
  for (const name of Object.keys(TEST_SECRETS)) delete env[name];
  return { ...env, ...overrides } as NodeJS.ProcessEnv;
}

async function admin(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/admin.mts', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

/** The worker until it says it started (then stopped) or exits by itself. */
function worker(env: NodeJS.ProcessEnv): Promise<{ started: boolean; code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/worker.mts'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let started = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!started && output.includes('background jobs started')) {
        started = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => resolve({ started, code, output }));
  });
}

async function recordServerStart(start: Partial<ServerStart>): Promise<void> {
  const value = { masterKeyId: SERVER_KEY_ID, production: true, role: 'server', at: new Date().toISOString(), ...start };
  await getDb()
    .insert(platformSettings)
    .values({ key: 'last_server_start', value })
    .onConflictDoUpdate({ target: platformSettings.key, set: { value } });
}

const merchantCount = async () => (await getDb().select({ id: merchants.id }).from(merchants)).length;

describe('the admin CLI and workers against a production database', { timeout: 180_000 }, () => {
  const saved = process.env.DATABASE_URL;
  beforeAll(async () => {
    await switchToPrivateDatabase('guard');
  });
  afterAll(() => {
    process.env.DATABASE_URL = saved;
    resetEnvCache();
  });

  /** The development master key the first case's CLI generated (its merchant's wallets are sealed under it). */
  let devKey = '';

  it('a fresh database (no server start yet): the CLI works with development secrets as today', async () => {
    const env = bareEnv();
    const created = await admin(env, 'merchant', 'create', '--email', 'fresh@studio.example', '--name', 'Fresh', '--json');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).merchant.name).toBe('Fresh');
    devKey = (JSON.parse(readFileSync(path.join(env.DATA_DIR!, 'dev-secrets.json'), 'utf8')) as Record<string, string>).WALLET_MASTER_KEY!;
  });

  it('refuses development defaults against a production database, naming the missing variables; nothing is created', async () => {
    await recordServerStart({ masterKeyId: SERVER_KEY_ID, production: true });
    const before = await merchantCount();
    const refused = await admin(bareEnv(), 'merchant', 'create', '--email', 'dev@studio.example', '--name', 'Dev', '--json');
    expect(refused.code).toBe(1);
    const { error } = JSON.parse(refused.stderr);
    expect(error.code).toBe('deployment_mismatch');
    expect(error.message).toMatch(
      /^WALLET_MASTER_KEY and DEPOSIT_HD_SEED are not set: this database was last opened by a production server/,
    );
    expect(error.message).toContain(SERVER_KEY_ID);
    expect(await merchantCount()).toBe(before);

    // The same without --json: a plain message on stderr.
    const plain = await admin(bareEnv(), 'merchant', 'list');
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('error: WALLET_MASTER_KEY and DEPOSIT_HD_SEED are not set');
  });

  it('refuses a master key other than the server’s, even with every secret set; nothing is created', async () => {
    await recordServerStart({ masterKeyId: SERVER_KEY_ID, production: true });
    const before = await merchantCount();
    const refused = await admin(bareEnv(TEST_SECRETS), 'merchant', 'create', '--email', 'k@studio.example', '--name', 'K', '--json');
    expect(refused.code).toBe(1);
    const { error } = JSON.parse(refused.stderr);
    expect(error.message).toContain(`WALLET_MASTER_KEY names master key ${TEST_KEY_ID}`);
    expect(error.message).toContain(SERVER_KEY_ID);
    expect(await merchantCount()).toBe(before);
  });

  it('works with the server’s key; rotation says done only when no value names an old key', async () => {
    await recordServerStart({ masterKeyId: TEST_KEY_ID, production: true });
    const created = await admin(bareEnv(TEST_SECRETS), 'merchant', 'create', '--email', 'ok@studio.example', '--name', 'Ok', '--json');
    expect(created.code).toBe(0);
    const merchantId = JSON.parse(created.stdout).merchant.id as string;
    expect(await getDb().select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId))).toHaveLength(1);

    // A TOTP secret sealed under a key the CLI does not have: not done, the column and key are named.
    const stranger = randomBytes(32).toString('base64');
    process.env.WALLET_MASTER_KEY = stranger;
    resetEnvCache();
    try {
      await enrolTotp(await newUser());
    } finally {
      process.env.WALLET_MASTER_KEY = TEST_SECRETS.WALLET_MASTER_KEY;
      resetEnvCache();
    }
    const notDone = await admin(bareEnv(TEST_SECRETS), 'wallets', 'rotate-master-key');
    expect(notDone.code).toBe(1);
    expect(notDone.stdout).toContain(`still on ${masterKeyIdFrom(stranger)}: 1 in users.totp_secret`);
    expect(notDone.stdout).toContain(`still on ${masterKeyIdFrom(devKey)}: `); // the first case's merchant wallets
    expect(notDone.stdout).toContain('Not done');

    const done = await admin(
      bareEnv({ ...TEST_SECRETS, WALLET_MASTER_KEYS_PREVIOUS: `${stranger},${devKey}` }),
      'wallets',
      'rotate-master-key',
      '--json',
    );
    expect(done.code).toBe(0);
    const result = JSON.parse(done.stdout);
    expect(result.onOldKeys).toEqual([]);
    expect(result.resealedByKind['authenticator (TOTP) secret']).toBe(1);
  });

  it('a worker without NODE_ENV=production refuses a production database; against a development one it starts', async () => {
    await recordServerStart({ masterKeyId: TEST_KEY_ID, production: true });
    const refused = await worker(bareEnv({ ...TEST_SECRETS, NODE_ENV: 'development' }));
    expect(refused.started).toBe(false);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('NODE_ENV is development, not production');
    expect(refused.output).toContain(TEST_KEY_ID);

    await recordServerStart({ masterKeyId: TEST_KEY_ID, production: false });
    const started = await worker(bareEnv({ ...TEST_SECRETS, NODE_ENV: 'development' }));
    expect(started.started).toBe(true);
  });
});
