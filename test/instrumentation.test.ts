/**
 * instrumentation.ts (what Next.js runs once per server process) records the server start for the admin
 * CLI and workers (lib/admin/server-start.ts), and a development server refuses a database a production
 * server opened (N17), on a private database.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { platformSettings } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { masterKeyIdFrom, readServerStart } from '@/lib/admin/server-start';
import { register } from '@/instrumentation';
import { switchToPrivateDatabase } from './private-database';
import { TEST_SECRETS } from './test-secrets';

describe('instrumentation.ts', () => {
  const saved = { DATABASE_URL: process.env.DATABASE_URL, NEXT_RUNTIME: process.env.NEXT_RUNTIME };
  beforeAll(async () => {
    await switchToPrivateDatabase('instrumentation');
    process.env.NEXT_RUNTIME = 'nodejs';
  });
  afterAll(() => {
    Object.assign(process.env, saved);
    if (saved.NEXT_RUNTIME === undefined) delete process.env.NEXT_RUNTIME;
    resetEnvCache();
  });

  it('records the server start; a development server then refuses a database a production server opened', async () => {
    await register();
    expect(await readServerStart(process.env.DATABASE_URL!)).toMatchObject({
      masterKeyId: masterKeyIdFrom(TEST_SECRETS.WALLET_MASTER_KEY),
      production: false,
      role: 'server',
    });

    const production = { masterKeyId: 'mk_1111111111111111', production: true, role: 'server', at: new Date().toISOString() };
    await getDb().update(platformSettings).set({ value: production }).where(eq(platformSettings.key, 'last_server_start'));
    await expect(register()).rejects.toThrow(/^NODE_ENV is test, not production, but this database was last opened by a production server/);
    expect(await readServerStart(process.env.DATABASE_URL!)).toEqual(production);
  });
});
