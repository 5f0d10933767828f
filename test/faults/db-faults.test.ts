/**
 * Database faults under money movements (part of `npm run test:faults`): real PostgreSQL, the real code
 * paths, a private DFK testnet node. Each fault is placed at a chosen point of the money transaction by a
 * competing locker: a connection of the test's own takes a lock the transaction needs next (a table lock
 * in SHARE mode on the table it writes after the transfer row, or the sender's advisory lock), waits
 * until the app's backend is blocked there, and then:
 *  - terminates that backend (pg_terminate_backend): the connection is lost mid-transaction, with the
 *    transfer row (nonce, signed bytes) written but not committed;
 *  - lets the app's own statement_timeout (DATABASE_STATEMENT_TIMEOUT_MS, set low) cancel it;
 *  - closes a lock cycle, so PostgreSQL's deadlock detector aborts the money transaction (no path runs
 *    SERIALIZABLE: a deadlock is the serialization failure these paths can meet);
 *  - or keeps the sender lock held while more requests than the pool has connections arrive.
 * Each scenario asserts that its fault fired (the backend was terminated and was inside the money
 * transaction, holding the sender lock; the error was the timeout's or the deadlock's), then the user
 * retries as a user would, the jobs run, and the audit (money-world.ts) checks: every recipient got its
 * money exactly once, nothing is half-written, the ledger reconciles.
 */
import { and, eq, getTableName, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { getAddress, parseEther, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { closeDb, getDb } from '@/lib/db/client';
import { auditLog, chargeEvents, charges, outboundTransfers, refunds, webhookEvents } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { createRefund, newRefundRequestId } from '@/lib/refunds/create-refund';
import { runJob, type Job, type JobRun } from './jobs';
import { pause, PIN, stranger } from './harness';
import {
  CHAIN,
  mine,
  newCharge,
  newConsumer,
  paidCharge,
  payFromOutside,
  refundCtx,
  scenario,
  startWorld,
  stopWorld,
  w,
  withdrawal,
  type Scenario,
} from './money-world';

beforeAll(async () => {
  await startWorld('dbfaults');
}, 120_000);

afterAll(async () => {
  await usePool({});
  await stopWorld('faults-db');
});

// ---------------------------------------------------------------------------------------------------------
// The competing locker
// ---------------------------------------------------------------------------------------------------------

interface Held {
  /** Ends the locker's transaction (its locks go). Resolves once it has ended. */
  release: () => Promise<void>;
  /** Runs a statement in the locker's transaction (it may block, or be the deadlock's victim). */
  run: (statement: string, ...args: unknown[]) => Promise<unknown>;
}

/** Opens a transaction on the test's own connection and runs `statement` in it (taking a lock). */
async function hold(statement: string, ...args: unknown[]): Promise<Held> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let queue: Promise<unknown> = Promise.resolve();
  let tx!: { unsafe: (q: string, a?: never[]) => Promise<unknown> };
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const done = w()
    .admin.begin(async (t) => {
      tx = t as unknown as typeof tx;
      await tx.unsafe(statement, args as never[]);
      ready();
      await released;
    })
    .catch(() => undefined);
  await Promise.race([isReady, done]);
  return {
    release: async () => {
      release();
      await done;
    },
    run: (q, ...a) => (queue = queue.then(() => tx.unsafe(q, a as never[]))),
  };
}

const holdTable = (table: PgTable) => hold(`lock table ${getTableName(table)} in share mode`);

interface Blocked {
  pid: number;
  /** Advisory locks the blocked backend holds: in a money transaction, the sender's lock. */
  advisoryHeld: number;
}

/**
 * Waits until one of the app's backends waits for a lock on `table` (or any advisory lock) and says which;
 * gives up when `call` ends first (it never reached the lock) or after a minute (a child process starts
 * slowly on a loaded machine).
 */
async function blockedOn(what: PgTable | 'advisory', call?: Promise<unknown>, timeoutMs = 60_000): Promise<Blocked> {
  let ended: unknown = undefined;
  void call?.then((result) => (ended = { result }));
  const deadline = Date.now() + timeoutMs;
  const target = what === 'advisory' ? null : getTableName(what);
  for (;;) {
    const rows = await w().admin<{ pid: number; advisory_held: number }[]>`
      select l.pid, (select count(*)::int from pg_locks h where h.pid = l.pid and h.locktype = 'advisory' and h.granted) as advisory_held
      from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where not l.granted and a.application_name = 'chargeport' and a.datname = current_database()
        and ${target === null ? w().admin`l.locktype = 'advisory'` : w().admin`l.relation = ${target}::regclass`}`;
    if (rows[0]) return { pid: rows[0].pid, advisoryHeld: rows[0].advisory_held };
    if (ended !== undefined || Date.now() > deadline) {
      throw new Error(`no app backend blocked on ${target ?? 'an advisory lock'}${ended ? `; it ended: ${JSON.stringify(ended)}` : ''}`);
    }
    await pause(20);
  }
}

async function terminate(pid: number): Promise<boolean> {
  const [row] = await w().admin<{ ok: boolean }[]>`select pg_terminate_backend(${pid}) as ok`;
  return row!.ok;
}

/** The app's pool, rebuilt with these settings (the process's env, as a deployment sets it). */
async function usePool(settings: { statementTimeoutMs?: number; poolSize?: number }): Promise<void> {
  await closeDb();
  if (settings.statementTimeoutMs === undefined) delete process.env.DATABASE_STATEMENT_TIMEOUT_MS;
  else process.env.DATABASE_STATEMENT_TIMEOUT_MS = String(settings.statementTimeoutMs);
  if (settings.poolSize === undefined) delete process.env.DATABASE_POOL_SIZE;
  else process.env.DATABASE_POOL_SIZE = String(settings.poolSize);
  resetEnvCache();
}

/** The error's codes along its causes (drizzle wraps the database's error) and its message. */
const errorCode = (error: unknown): string => {
  const codes: string[] = [];
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string') codes.push(e.code);
  }
  return `${codes.join(' ')} ${(error as Error)?.message ?? String(error)}`;
};

/**
 * Runs `money` while `table` is held, so that it blocks at its write there; then applies `fault` to the
 * blocked backend. Returns the call's error (or its result) and where it was blocked.
 */
async function faultAt<T>(table: PgTable, money: () => Promise<T>, fault: (blocked: Blocked) => Promise<void>) {
  const held = await holdTable(table);
  const call = money().then(
    (result) => result as unknown,
    (error: unknown) => error,
  );
  try {
    const blocked = await blockedOn(table, call);
    await fault(blocked);
    const error = await call;
    return { error, blocked };
  } finally {
    await held.release();
    await call;
  }
}

/** Rows of this charge's kind that must exist once per transfer (nothing half-written). */
function onePerTransfer(s: Scenario, label: string, count: () => Promise<{ transfers: number; rows: number }>, expected = 1): void {
  s.expectRows(label, async () => {
    const { transfers, rows } = await count();
    return transfers === expected && rows === expected ? null : `${transfers} transfers, ${rows} rows (expected ${expected} of each)`;
  });
}

const countOf = async (query: Promise<{ n: number }[]>) => (await query)[0]!.n;

const balancePaymentRows = (s: Scenario, chargeId: string) =>
  onePerTransfer(s, `balance payment of ${chargeId}`, async () => ({
    transfers: await countOf(
      getDb()
        .select({ n: sql<number>`count(*)::int` })
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'balance_payment'))),
    ),
    rows: await countOf(
      getDb()
        .select({ n: sql<number>`count(*)::int` })
        .from(chargeEvents)
        .where(and(eq(chargeEvents.chargeId, chargeId), eq(chargeEvents.type, 'charge.payment_submitted'))),
    ),
  }));

const withdrawalRows = (s: Scenario, destination: Address, expected = 1) =>
  onePerTransfer(
    s,
    `withdrawal to ${destination}`,
    async () => {
      const transfers = await getDb()
        .select({ id: outboundTransfers.id })
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.toAddress, destination), eq(outboundTransfers.purpose, 'withdrawal')));
      const rows = transfers.length
        ? await countOf(
            getDb()
              .select({ n: sql<number>`count(*)::int` })
              .from(auditLog)
              .where(and(eq(auditLog.action, 'funds.withdraw'), sql`${auditLog.targetId} in ${transfers.map((t) => t.id)}`)),
          )
        : 0;
      return { transfers: transfers.length, rows };
    },
    expected,
  );

const refundRows = (s: Scenario, chargeId: string) =>
  onePerTransfer(s, `refund of ${chargeId}`, async () => ({
    transfers: await countOf(
      getDb()
        .select({ n: sql<number>`count(*)::int` })
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'refund'))),
    ),
    rows: await countOf(
      getDb()
        .select({ n: sql<number>`count(*)::int` })
        .from(refunds)
        .where(and(eq(refunds.chargeId, chargeId), sql`${refunds.transferId} is not null`)),
    ),
  }));

const succeededEvents = (s: Scenario, chargeId: string) =>
  s.expectRows(`charge.succeeded events of ${chargeId}`, async () => {
    const n = await countOf(
      getDb()
        .select({ n: sql<number>`count(*)::int` })
        .from(webhookEvents)
        .where(and(eq(webhookEvents.chargeId, chargeId), eq(webhookEvents.type, 'charge.succeeded'))),
    );
    return n === 1 ? null : `${n} charge.succeeded events in the outbox`;
  });

// ---------------------------------------------------------------------------------------------------------

const LOST = 'connection lost mid-transaction';

describe(`${LOST} (pg_terminate_backend of the backend running the money transaction)`, () => {
  /**
   * The request or job runs in a process of its own (as the app or worker would), blocked at `table`;
   * its backend is terminated after checking it is inside the money transaction (holding the sender
   * lock, when `inMoneyTransaction`). The process then fails the request with the lost connection and
   * lives on: unpatched, postgres.js 3.4.9 threw an uncaught TypeError from the rollback written to the
   * closed socket and the process died (porsager/postgres#1154; patches/postgres+3.4.9.patch).
   */
  async function lose(s: Scenario, table: PgTable, job: Job, inMoneyTransaction = true): Promise<void> {
    const { error: run } = await faultAt(
      table,
      () => runJob(job),
      async (blocked) => {
        if (inMoneyTransaction) expect(blocked.advisoryHeld, 'the terminated backend holds the sender lock').toBeGreaterThan(0);
        expect(await terminate(blocked.pid)).toBe(true);
        s.note('backend terminated');
      },
    );
    const { output, exitCode, stderr } = run as JobRun;
    expect(output, `the process answered instead of dying (exit ${exitCode}): ${stderr}`).toBeDefined();
    expect(output!.ok, JSON.stringify(output)).toBe(false);
    expect(`${output!.code} ${output!.message}`).toMatch(/57P01|terminat|CONNECTION_(CLOSED|ENDED)/i);
  }

  scenario(LOST, 'balance payment: killed after its transfer row is written, before commit; the consumer pays again', async (s) => {
    const consumer = await newConsumer('20');
    const charge = await newCharge('4');
    s.expectCharge(charge.chargeId, 'succeeded');
    balancePaymentRows(s, charge.chargeId);
    await lose(s, chargeEvents, { op: 'pay', userId: consumer.userId, chargeId: charge.chargeId, pin: PIN });
    // Nothing of the killed transaction is left: no transfer was recorded, nothing was sent.
    expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, charge.chargeId))).toEqual([]);
    await payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN });
  });

  scenario(LOST, 'withdrawal: killed between its transfer row and its audit row; the owner submits the same form again', async (s) => {
    const destination = stranger();
    const form = withdrawal(destination, '2');
    await s.expectArrival('withdrawal', destination, parseEther('2'));
    withdrawalRows(s, destination);
    await lose(s, auditLog, { op: 'withdraw', input: form });
    await withdrawFromMerchantWallet(form);
  });

  scenario(LOST, 'refund: killed between its transfer row and the refund row; retried with its Idempotency-Key', async (s) => {
    const paid = await paidCharge('3');
    const key = newRefundRequestId();
    await s.expectArrival('refund', paid.payer, parseEther('3'));
    s.expectCharge(paid.chargeId, 'succeeded');
    refundRows(s, paid.chargeId);
    await lose(s, refunds, { op: 'refund', ctx: refundCtx(), chargeId: paid.chargeId, idempotencyKey: key });
    await createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: key });
  });

  scenario(
    LOST,
    'the chain watcher: killed while settling a paid charge (payment and status written); the next poll settles it once',
    async (s) => {
      const charge = await newCharge('2');
      s.expectCharge(charge.chargeId, 'succeeded');
      succeededEvents(s, charge.chargeId);
      await payFromOutside(charge.deposit, '2');
      await mine(w().depth + 1);
      // The watcher's poll records the payment, then settles the charge: blocked at its timeline rows.
      await lose(s, chargeEvents, { op: 'poll', chain: CHAIN }, false);
      const [row] = await getDb().select().from(charges).where(eq(charges.id, charge.chargeId));
      expect(row!.status).toBe('pending'); // the whole poll rolled back
    },
  );
});

const TIMEOUT = 'statement timeout';

describe(`${TIMEOUT} (DATABASE_STATEMENT_TIMEOUT_MS low: a statement waiting on a lock is cancelled)`, () => {
  const timedOut = (s: Scenario, error: unknown) => {
    expect(errorCode(error)).toMatch(/57014|statement timeout/);
    s.note('statement_timeout');
  };

  scenario(TIMEOUT, 'balance payment and withdrawal cancelled mid-transaction; both retried once the lock is gone', async (s) => {
    const consumer = await newConsumer('20');
    const charge = await newCharge('3');
    const destination = stranger();
    const form = withdrawal(destination, '1.5');
    s.expectCharge(charge.chargeId, 'succeeded');
    await s.expectArrival('withdrawal', destination, parseEther('1.5'));
    balancePaymentRows(s, charge.chargeId);
    withdrawalRows(s, destination);
    await usePool({ statementTimeoutMs: 400 });
    try {
      const pay = await faultAt(
        chargeEvents,
        () => payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN }),
        async () => {},
      );
      expect(pay.blocked.advisoryHeld).toBeGreaterThan(0);
      timedOut(s, pay.error);
      const out = await faultAt(
        auditLog,
        () => withdrawFromMerchantWallet(form),
        async () => {},
      );
      expect(out.blocked.advisoryHeld).toBeGreaterThan(0);
      timedOut(s, out.error);
    } finally {
      await usePool({});
    }
    await payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN });
    await withdrawFromMerchantWallet(form);
  });
});

const DEADLOCK = 'serialization failure (deadlock)';

describe(`${DEADLOCK}: no path runs SERIALIZABLE; a competing locker closes a lock cycle and PostgreSQL aborts the money transaction`, () => {
  scenario(
    DEADLOCK,
    'balance payment holds the charge and waits for the sender lock; the locker holds that and asks for the charge',
    async (s) => {
      const consumer = await newConsumer('20');
      const charge = await newCharge('2.5');
      s.expectCharge(charge.chargeId, 'succeeded');
      balancePaymentRows(s, charge.chargeId);
      const senderLock = `wallet-nonce:${CHAIN}:${getAddress(consumer.address)}`;
      const held = await hold(`select pg_advisory_xact_lock(hashtextextended($1, 0))`, senderLock);
      const call = payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN }).then(
        () => null,
        (error: unknown) => error,
      );
      let lockerError: unknown = null;
      try {
        const blocked = await blockedOn('advisory', call);
        expect(blocked.advisoryHeld).toBe(0); // it waits for the sender lock, holding the charge row
        // The locker asks for the charge row the payment holds: a cycle. The payment waited first, so its
        // backend runs the deadlock check first and is the one aborted.
        await held.run(`select id from charges where id = $1 for update`, charge.chargeId).catch((error: unknown) => (lockerError = error));
        const error = await call;
        expect(errorCode(error)).toMatch(/40P01|deadlock/);
        s.note('deadlock_detected');
      } finally {
        await held.release();
        await call;
      }
      expect(lockerError).toBeNull();
      expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, charge.chargeId))).toEqual([]);
      await payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN });
    },
  );
});

const POOL = 'pool exhausted while the sender lock is held';

describe(`${POOL} (DATABASE_POOL_SIZE=2)`, () => {
  scenario(POOL, 'four withdrawals from one wallet while the first holds its lock: the others wait, then each lands once', async (s) => {
    const destinations = [stranger(), stranger(), stranger(), stranger()];
    const forms = destinations.map((d, i) => withdrawal(d, `0.${i + 1}`));
    for (const [i, d] of destinations.entries()) {
      await s.expectArrival(`withdrawal ${i + 1}`, d, parseEther(`0.${i + 1}`));
      withdrawalRows(s, d);
    }
    await usePool({ poolSize: 2 });
    const held = await holdTable(auditLog);
    const results: Promise<unknown>[] = [];
    try {
      results.push(
        withdrawFromMerchantWallet(forms[0]!).then(
          () => 'ok',
          (error: unknown) => error,
        ),
      );
      const first = await blockedOn(auditLog);
      expect(first.advisoryHeld).toBeGreaterThan(0); // the first request holds the merchant wallet's lock
      for (const form of forms.slice(1))
        results.push(
          withdrawFromMerchantWallet(form).then(
            () => 'ok',
            (error: unknown) => error,
          ),
        );
      // Every connection of the pool is taken: one in the first transaction, one waiting behind its lock.
      await blockedOn('advisory');
      const [busy] = await w().admin<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity where application_name = 'chargeport' and datname = current_database() and state <> 'idle'`;
      expect(busy!.n).toBe(2);
      s.note('pool exhausted');
      await pause(1_000); // requests keep waiting for a connection: none fails meanwhile
      const settledEarly = await Promise.race([Promise.all(results).then(() => true), pause(0).then(() => false)]);
      expect(settledEarly).toBe(false);
    } finally {
      await held.release();
    }
    const outcomes = await Promise.all(results);
    await usePool({});
    expect(outcomes.map((o) => (o === 'ok' ? o : errorCode(o)))).toEqual(['ok', 'ok', 'ok', 'ok']);
  });
});
