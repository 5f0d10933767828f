/**
 * A transaction whose connection is killed (a failover, a restart, pg_terminate_backend, the idle-in-transaction
 * timeout) must fail as a whole: the process survives, and nothing the transaction still sends runs anywhere.
 * postgres.js 3.4.9 did neither (porsager/postgres#1154): the rollback was written to a closed socket, an uncaught
 * TypeError that ended the process, and once the pool had reconnected the same connection for another query, the
 * transaction's later statements ran on the new session, outside any transaction. patches/postgres+3.4.9.patch
 * (applied by patch-package at `npm install`) fixes both; this test fails without it.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomBase62 } from '@/lib/ids';

const table = `connection_lost_${randomBase62(8).toLowerCase()}`;
const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });

beforeAll(async () => {
  await admin.unsafe(`create table ${table} (step int not null)`);
});

afterAll(async () => {
  await admin.unsafe(`drop table if exists ${table}`);
  await admin.end();
});

it('a killed transaction fails, the process survives, and none of its statements runs after the pool reconnects', async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  // One connection: the query queued behind the transaction makes the pool reconnect that same connection.
  const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  try {
    let backendPid = 0;
    let releaseTransaction!: () => void;
    const killed = new Promise<void>((resolve) => (releaseTransaction = resolve));
    let laterStatement: unknown = 'not sent';

    const transaction = sql.begin(async (tx) => {
      await tx.unsafe(`insert into ${table} (step) values (1)`);
      backendPid = (await tx<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      await killed;
      // The connection is gone and the pool has reconnected it: this must be refused, not run on the new session.
      laterStatement = await tx.unsafe(`insert into ${table} (step) values (2)`).then(
        () => 'ran',
        (error: { code?: string }) => error.code,
      );
    });
    const transactionOutcome = transaction.then(
      () => 'committed',
      (error: { code?: string }) => error.code,
    );

    await expect.poll(() => backendPid).toBeGreaterThan(0);
    const queued = sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
    const [termination] = await admin<{ terminated: boolean }[]>`select pg_terminate_backend(${backendPid}) as terminated`;
    expect(termination!.terminated).toBe(true);
    const [reconnected] = await queued;
    expect(reconnected!.pid).not.toBe(backendPid);
    releaseTransaction();

    expect(await transactionOutcome).toBe('CONNECTION_CLOSED');
    await expect.poll(() => laterStatement).toBe('CONNECTION_CLOSED');
    // Give a rollback written to the dead socket its chance to crash the process, as it did before the patch.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(uncaught).toEqual([]);
    expect(await admin.unsafe(`select step from ${table}`)).toEqual([]);
    // The pool serves the next caller.
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  } finally {
    process.off('uncaughtException', onUncaught);
    await sql.end({ timeout: 1 });
  }
});
