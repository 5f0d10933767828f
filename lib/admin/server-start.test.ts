/**
 * The record of the last server start (issue 26 point 6, N17), on a private database: a production start
 * records itself, a development server or worker refuses a production database, and the admin CLI's
 * refusals (scripts/deployment-guard.test.ts runs the CLI itself).
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { platformSettings } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';
import { adminRefusal, depositSeedIdFrom, DeploymentRefused, masterKeyIdFrom, readServerStart, recordStart } from './server-start';

const TEST_KEY_ID = masterKeyIdFrom(TEST_SECRETS.WALLET_MASTER_KEY)!;
const saved = {
  DATABASE_URL: process.env.DATABASE_URL,
  NODE_ENV: process.env.NODE_ENV,
  ALLOW_DEV_OUTBOX: process.env.ALLOW_DEV_OUTBOX,
  LOCAL_CHAIN_NODES: process.env.LOCAL_CHAIN_NODES,
};

function setEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetEnvCache();
}

async function refusalOf(promise: Promise<unknown>): Promise<DeploymentRefused> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DeploymentRefused);
  return error as DeploymentRefused;
}

describe('the last server start', () => {
  beforeAll(async () => {
    await switchToPrivateDatabase('serverstart');
  });
  afterEach(async () => {
    setEnv({ ...saved, DATABASE_URL: process.env.DATABASE_URL, WALLET_MASTER_KEY: TEST_SECRETS.WALLET_MASTER_KEY });
  });
  afterAll(() => setEnv({ DATABASE_URL: saved.DATABASE_URL }));

  it('a development server records its key; a production start then marks the database; a development server or worker refuses it', async () => {
    const url = process.env.DATABASE_URL!;
    expect(await readServerStart(url)).toBeNull();
    await recordStart('server');
    expect(await readServerStart(url)).toMatchObject({
      masterKeyId: TEST_KEY_ID,
      depositSeedId: depositSeedIdFrom(TEST_SECRETS.DEPOSIT_HD_SEED),
      production: false,
      role: 'server',
    });
    // A development worker only checks.
    await recordStart('worker');
    expect(await readServerStart(url)).toMatchObject({ role: 'server' });

    setEnv({ NODE_ENV: 'production', ALLOW_DEV_OUTBOX: 'true', LOCAL_CHAIN_NODES: 'true' });
    await recordStart('worker');
    expect(await readServerStart(url)).toMatchObject({ masterKeyId: TEST_KEY_ID, production: true, role: 'worker' });

    setEnv({ NODE_ENV: 'development' });
    for (const role of ['server', 'worker'] as const) {
      const refused = await refusalOf(recordStart(role));
      expect(refused.message).toMatch(/^NODE_ENV is development, not production, but this database was last opened by a production worker/);
      expect(refused.message).toContain(`Start the ${role} with the server's environment`);
    }
    // The production mark stays.
    expect(await readServerStart(url)).toMatchObject({ production: true });
  });

  it('a database not yet migrated has no server start (the CLI reads it before migrating)', async () => {
    const name = `unmigrated_${randomBytes(6).toString('hex')}`;
    const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`create database ${name}`);
    } finally {
      await admin.end();
    }
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    expect(await readServerStart(url.toString())).toBeNull();
  });

  it('a development worker refuses a database whose server runs another master key', async () => {
    await getDb().delete(platformSettings).where(eq(platformSettings.key, 'last_server_start'));
    await recordStart('server');
    const other = randomBytes(32).toString('base64');
    setEnv({ WALLET_MASTER_KEY: other });
    const refused = await refusalOf(recordStart('worker'));
    expect(refused.message).toContain(`WALLET_MASTER_KEY names master key ${masterKeyIdFrom(other)}`);
    expect(refused.message).toContain(TEST_KEY_ID);
    // The same key with another deposit seed: refused too.
    setEnv({ WALLET_MASTER_KEY: TEST_SECRETS.WALLET_MASTER_KEY, DEPOSIT_HD_SEED: other });
    try {
      expect((await refusalOf(recordStart('worker'))).message).toMatch(/^DEPOSIT_HD_SEED is not the server's/);
    } finally {
      setEnv({ DEPOSIT_HD_SEED: TEST_SECRETS.DEPOSIT_HD_SEED });
    }
  });
});

describe('adminRefusal', () => {
  const production = { masterKeyId: 'mk_1111111111111111', production: true, role: 'server' as const, at: '2026-11-27T07:00:00.000Z' };

  it('no server start yet, or the same key: no refusal', () => {
    expect(adminRefusal(null, { production: false, masterKeyId: 'mk_2222222222222222', filled: ['WALLET_MASTER_KEY'] })).toBeNull();
    expect(adminRefusal(production, { production: false, masterKeyId: production.masterKeyId, filled: ['AUTH_SECRET'] })).toBeNull();
    expect(adminRefusal(production, { production: true, masterKeyId: production.masterKeyId, filled: [] })).toBeNull();
  });

  it('development defaults for data secrets against production, or another key: refused, naming the variable', () => {
    expect(adminRefusal(production, { production: false, masterKeyId: production.masterKeyId, filled: ['DEPOSIT_HD_SEED'] })).toMatch(
      /^DEPOSIT_HD_SEED is not set: this database was last opened by a production server with master key mk_1111111111111111/,
    );
    expect(adminRefusal(production, { production: true, masterKeyId: 'mk_2222222222222222', filled: [] })).toMatch(
      /^WALLET_MASTER_KEY names master key mk_2222222222222222, but .* mk_1111111111111111/,
    );
    // A development database with another development key: the CLI would seal what its server cannot open.
    expect(
      adminRefusal(
        { ...production, production: false },
        { production: false, masterKeyId: 'mk_2222222222222222', filled: ['WALLET_MASTER_KEY'] },
      ),
    ).toContain('(the development default, WALLET_MASTER_KEY is not set)');
    // The server's key with another deposit seed: deposit addresses the server could not sweep.
    const withSeed = { ...production, depositSeedId: 'ds_1111111111111111' };
    expect(
      adminRefusal(withSeed, { production: true, masterKeyId: production.masterKeyId, depositSeedId: 'ds_2222222222222222', filled: [] }),
    ).toMatch(/^DEPOSIT_HD_SEED is not the server's: seed ds_2222222222222222, .* ds_1111111111111111/);
    expect(
      adminRefusal(withSeed, { production: true, masterKeyId: production.masterKeyId, depositSeedId: 'ds_1111111111111111', filled: [] }),
    ).toBeNull();
  });
});
