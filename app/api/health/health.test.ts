/**
 * The health endpoints against the suite's real PostgreSQL and anvil: liveness needs nothing, readiness
 * needs the database and the migrations (never a chain), and the full report gives each chain's watcher
 * lag, the job queue's depth and the age of waiting webhook work.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { PgBoss } from 'pg-boss';
import postgres from 'postgres';
import { createPublicClient, http } from 'viem';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { closeDb, getDb } from '@/lib/db/client';
import { migrateDatabase } from '@/lib/admin/migrate-database';
import { scannerCursors, webhookDeliveries, webhookEndpoints, webhookEvents } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { clearHealthCache } from '@/lib/health/check-health';
import { forgetMigrationStatus } from '@/lib/health/check-readiness';
import { newId } from '@/lib/ids';
import { pollChain } from '@/lib/payments/poll-chain';
import { PGBOSS_SCHEMA } from '@/lib/webhooks/queue';
import { newMerchant } from '@/test/fixtures';
import { serveSolanaCluster } from '@/scripts/stack/solana-cluster';
import { GET as getHealth } from './route';
import { GET as getLive } from './live/route';
import { GET as getReady } from './ready/route';

const suiteDatabaseUrl = inject('stackEnv').DATABASE_URL!;
/** Nothing listens on the discard port. */
const NOWHERE = 'http://127.0.0.1:9';

async function useDatabase(url: string): Promise<void> {
  await closeDb();
  process.env.DATABASE_URL = url;
  resetEnvCache();
  forgetMigrationStatus();
}

afterEach(async () => {
  delete process.env.RPC_URL_BSC;
  delete process.env.RPC_URL_SOLANA_DEVNET;
  await useDatabase(suiteDatabaseUrl);
  clearHealthCache();
});

async function read(response: Response | Promise<Response>) {
  const resolved = await response;
  return { status: resolved.status, body: await resolved.json() };
}

describe('GET /api/health/live', () => {
  it('200 while the process answers, even with the database unreachable', async () => {
    await useDatabase('postgres://nobody:nothing@127.0.0.1:9/none');
    expect(await read(getLive())).toEqual({ status: 200, body: { status: 'ok' } });
  });
});

describe('GET /api/health/ready', () => {
  it('200 when the database answers and every migration is applied', async () => {
    expect(await read(getReady())).toEqual({ status: 200, body: { status: 'ready', db: 'ok', migrations: 'applied' } });
  });

  it('stays 200 when a configured chain does not answer', async () => {
    process.env.RPC_URL_BSC = NOWHERE;
    resetEnvCache();
    expect((await read(getReady())).status).toBe(200);
  });

  it('503 when the database is unreachable', async () => {
    await useDatabase('postgres://nobody:nothing@127.0.0.1:9/none');
    expect(await read(getReady())).toEqual({ status: 503, body: { status: 'not_ready', db: 'unreachable', migrations: 'unknown' } });
  });

  it('503 while migrations are pending, 200 once applied', async () => {
    const name = `health_${randomBytes(4).toString('hex')}`;
    const admin = postgres(suiteDatabaseUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    try {
      const fresh = Object.assign(new URL(suiteDatabaseUrl), { pathname: `/${name}` }).toString();
      await useDatabase(fresh);
      expect(await read(getReady())).toEqual({ status: 503, body: { status: 'not_ready', db: 'ok', migrations: 'pending' } });
      expect((await read(getHealth())).body).toMatchObject({ status: 'down', migrations: 'pending' });
      await migrateDatabase(fresh);
      expect(await read(getReady())).toEqual({ status: 200, body: { status: 'ready', db: 'ok', migrations: 'applied' } });
    } finally {
      await useDatabase(suiteDatabaseUrl);
      await admin.unsafe(`drop database ${name} with (force)`);
      await admin.end();
    }
  });
});

describe('GET /api/health', () => {
  it("200 ok: each chain's status and its watcher's lag in blocks (head − cursor); unconfigured chains say so", async () => {
    await pollChain('POLYGON'); // the watcher has a cursor
    const client = createPublicClient({ transport: http(inject('stackEnv').RPC_URL_POLYGON) });
    // Hold the POLYGON watcher's lock so no other test file moves the cursor meanwhile.
    await getDb().transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${'chain-watcher:POLYGON'}, 0))`);
      const [cursor] = await tx
        .select()
        .from(scannerCursors)
        .where(and(eq(scannerCursors.chain, 'POLYGON'), eq(scannerCursors.consumer, 'charges')));
      await client.request({ method: 'anvil_mine' as never, params: ['0x5'] as never });
      const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
      clearHealthCache();
      const { status, body } = await read(getHealth());
      expect(status).toBe(200);
      expect(body).toMatchObject({ status: 'ok', db: 'ok', migrations: 'applied' });
      expect(body.chains.POLYGON).toEqual({
        status: 'ok',
        head,
        cursor: Number(cursor!.lastBlock),
        lagBlocks: head - Number(cursor!.lastBlock),
      });
      expect(body.chains.POLYGON.lagBlocks).toBeGreaterThanOrEqual(5);
    });
    // A cursor left from an earlier configuration (or another file's watcher) is not reported for a chain not served.
    await getDb()
      .insert(scannerCursors)
      .values({ chain: 'SOLANA', consumer: 'charges', lastBlock: 4n, lastBlockHash: 'left-over' })
      .onConflictDoNothing();
    clearHealthCache();
    const { body } = await read(getHealth());
    expect(body.chains.SOLANA).toEqual({ status: 'not_configured', head: null, cursor: null, lagBlocks: null });
    expect(body.chains.BSC.status).toBe('not_configured');
  });

  it("a Solana chain on the launcher's local cluster is ok, its head the cluster's slot", async () => {
    const served = await serveSolanaCluster({ chain: 'SOLANA_DEVNET' });
    try {
      process.env.RPC_URL_SOLANA_DEVNET = served.url;
      resetEnvCache();
      clearHealthCache();
      const { status, body } = await read(getHealth());
      expect(status).toBe(200);
      expect(body.chains.SOLANA_DEVNET).toMatchObject({ status: 'ok', head: expect.any(Number) });
      expect(body.chains.SOLANA_DEVNET.head).toBeGreaterThanOrEqual(1);
      expect(body.chains.SOLANA_DEVNET.head).toBeLessThanOrEqual(served.cluster.slot);
    } finally {
      await served.stop();
    }
  });

  it('says per chain how gas is paid (ADR 0035): sponsored where switched on and deployed, else the top-up fallback and why', async () => {
    process.env.SMART_ACCOUNT_CHAINS = 'POLYGON,DFK';
    resetEnvCache();
    try {
      const { body } = await read(getHealth());
      // The shared POLYGON node runs prague with EntryPoint v0.8 and Simple7702Account (scripts/stack/local-chain.ts).
      expect(body.smartAccounts.POLYGON).toEqual({ path: 'sponsored', reason: null });
      expect(body.smartAccounts.POLYGON_AMOY).toEqual({ path: 'topup', reason: 'not listed in SMART_ACCOUNT_CHAINS' });
      expect(body.smartAccounts.DFK.path).toBe('topup');
      expect(body.smartAccounts.DFK.reason).toMatch(/Subnet-EVM/);
      expect(body.smartAccounts.SOLANA.path).toBe('fee_payer');
    } finally {
      delete process.env.SMART_ACCOUNT_CHAINS;
      resetEnvCache();
    }
  });

  it('200 degraded (never 503) when a configured chain is unreachable', async () => {
    process.env.RPC_URL_BSC = NOWHERE;
    resetEnvCache();
    clearHealthCache();
    const { status, body } = await read(getHealth());
    expect(status).toBe(200);
    expect(body.status).toBe('degraded');
    // Its cursor is whatever other test files' BSC watchers left; without a head there is no lag.
    expect(body.chains.BSC).toMatchObject({ status: 'unreachable', head: null, lagBlocks: null });
    expect(body.chains.POLYGON.status).toBe('ok');
  });

  it('503 down when the database is unreachable', async () => {
    await useDatabase('postgres://nobody:nothing@127.0.0.1:9/none');
    const { status, body } = await read(getHealth());
    expect(status).toBe(503);
    expect(body).toMatchObject({
      status: 'down',
      db: 'unreachable',
      queue: { queued: null },
      webhooks: { oldestDueDeliverySeconds: null },
    });
  });

  it('reports the job queue depth: jobs waiting, and those due now', async () => {
    const boss = new PgBoss({ connectionString: suiteDatabaseUrl, schema: PGBOSS_SCHEMA, supervise: false, schedule: false });
    await boss.start();
    const queue = `health-test-${randomBytes(4).toString('hex')}`;
    try {
      await boss.createQueue(queue);
      await boss.send(queue, {});
      await boss.send(queue, {}, { startAfter: 3600 });
      const { body } = await read(getHealth());
      // Other test files share the queue tables: at least ours.
      expect(body.queue.queued).toBeGreaterThanOrEqual(2);
      expect(body.queue.ready).toBeGreaterThanOrEqual(1);
      expect(body.queue.ready).toBeLessThan(body.queue.queued);
    } finally {
      await boss.deleteQueue(queue);
      await boss.stop({ graceful: false });
    }
  });

  it('reports how long the oldest due webhook delivery and the oldest unrelayed event have waited', async () => {
    const merchant = await newMerchant();
    const db = getDb();
    const endpointId = newId('webhookEndpoint');
    await db.insert(webhookEndpoints).values({
      id: endpointId,
      merchantId: merchant.id,
      mode: 'test',
      url: `${NOWHERE}/hook`,
      eventTypes: ['*'],
      enabled: false,
      signingSecret: 'not-used',
    });
    const longAgo = (seconds: number) => new Date(Date.now() - seconds * 1000);
    const event = { merchantId: merchant.id, mode: 'test' as const, type: 'charge.created', payload: {} };
    const relayedId = newId('webhookEvent');
    const waitingId = newId('webhookEvent');
    await db.insert(webhookEvents).values([
      { ...event, id: relayedId, relayedAt: longAgo(5000), createdAt: longAgo(5000) },
      { ...event, id: waitingId, createdAt: longAgo(7200) },
    ]);
    const deliveryId = newId('webhookDelivery');
    await db.insert(webhookDeliveries).values({ id: deliveryId, eventId: relayedId, endpointId, attempt: 1, scheduledAt: longAgo(3600) });
    // Lock both rows (the relay and the stuck-delivery sweep skip locked rows) while the report is read.
    await db.transaction(async (tx) => {
      await tx.select().from(webhookEvents).where(eq(webhookEvents.id, waitingId)).for('update');
      await tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).for('update');
      const { body } = await read(getHealth());
      expect(body.webhooks.oldestDueDeliverySeconds).toBeGreaterThanOrEqual(3600);
      expect(body.webhooks.oldestUnrelayedEventSeconds).toBeGreaterThanOrEqual(7200);
    });
    await db.delete(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    await db.delete(webhookEvents).where(eq(webhookEvents.merchantId, merchant.id));
    await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
  });
});
