/**
 * Every pooled connection starts with statement_timeout and idle_in_transaction_session_timeout (tunable by
 * env), and a jobs process (scripts/worker.mts) gets a pool of its own.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { closeDb, getSql, selectJobsPool } from './client';

const tuned = ['DATABASE_STATEMENT_TIMEOUT_MS', 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS'] as const;

afterEach(async () => {
  for (const name of tuned) delete process.env[name];
  resetEnvCache();
  await closeDb();
});

afterAll(() => {
  (globalThis as { __chargeportDbRole?: string }).__chargeportDbRole = undefined;
});

describe('connection settings', () => {
  it('bounds statements to 30 s and idle transactions to 60 s by default', async () => {
    const [row] =
      await getSql()`select current_setting('statement_timeout') as statement, current_setting('idle_in_transaction_session_timeout') as idle, current_setting('application_name') as app`;
    expect(row).toEqual({ statement: '30s', idle: '1min', app: 'chargeport' });
  });

  it('cancels a statement running past DATABASE_STATEMENT_TIMEOUT_MS', async () => {
    process.env.DATABASE_STATEMENT_TIMEOUT_MS = '200';
    resetEnvCache();
    await expect(getSql()`select pg_sleep(2)`).rejects.toMatchObject({ code: '57014' });
    // The pool stays usable.
    expect(await getSql()`select 1 as one`).toEqual([{ one: 1 }]);
  });

  it('ends a transaction left idle past DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS, releasing its locks', async () => {
    process.env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS = '200';
    resetEnvCache();
    const transaction = getSql().begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(4242)`;
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // a hung await inside a transaction
      await tx`select 1`;
    });
    await expect(transaction).rejects.toThrow();
    const [row] = await getSql()`select pg_try_advisory_lock(4242) as locked`;
    expect(row?.locked).toBe(true);
    await getSql()`select pg_advisory_unlock(4242)`;
  });

  it('a jobs process has a pool of its own, named chargeport-jobs', async () => {
    selectJobsPool();
    const [row] = await getSql()`select current_setting('application_name') as app`;
    expect(row?.app).toBe('chargeport-jobs');
  });
});
