/**
 * kill -9 between a state change and its delivery loses nothing (ADR 0006). The background jobs run in
 * real, separate processes — `node --import tsx scripts/worker.mts`, what `npm run worker` runs — that
 * are killed with SIGKILL; a receiver on 127.0.0.1 (a test-mode endpoint) checks the Standard Webhooks
 * signature of every request it gets.
 *
 * Its own database: a worker relays every outbox event and runs every pg-boss job of its database, and
 * the other test files share `chargeport` while parking or driving the relay themselves. So this file
 * creates and migrates a database of its own on the suite's PostgreSQL server, and points both this
 * process (DATABASE_URL + resetEnvCache) and the workers at it.
 *
 * One minute skipped: a worker killed mid-request leaves its attempt `sending` (claimed) and its pg-boss
 * job `active`. In production that attempt goes out again a little over a minute later: the supervisor
 * pass of a live worker's pg-boss (every few seconds, queue.ts) fails the job once it is past
 * `expireInSeconds` (60 s), pg-boss retries it 5–10 s later, and attemptDelivery takes the claim over
 * once it is older than CLAIM_LEASE_MS (60 s). Instead of waiting that minute, the test moves the dead
 * worker's claim and job start 61 s into the past; everything else is the new worker's own doing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as createEndpointRoute } from '@/app/api/webhook-endpoints/route';
import { transitionCharge } from '@/lib/charges/transition-charge';
import { closeDb, getDb } from '@/lib/db/client';
import { migrateDatabase } from '@/lib/admin/migrate-database';
import { charges, webhookDeliveries, webhookEvents } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { callRoute, createTestCharge, newMerchant, testCharge, type TestMerchant } from '@/test/fixtures';
import { startWebhookReceiver, waitFor, type ReceivedWebhook, type WebhookReceiver } from '@/test/webhook-receiver';
import { CLAIM_LEASE_MS } from './claim-deliveries';
import { DELIVERY_QUEUE } from './enqueue-deliveries';
import { PGBOSS_SCHEMA } from './queue';

/** Requests the receiver never answers (0-based): the first worker dies while they are in flight. */
const HUNG_REQUESTS = new Set([3, 4]);
/** How far the dead worker's claims and jobs are moved into the past: past the lease and pg-boss's 60 s expiry. */
const SKIPPED_MS = CLAIM_LEASE_MS + 1_000;

interface Spawned {
  name: string;
  child: ChildProcess;
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const suiteDatabaseUrl = process.env.DATABASE_URL!;
const databaseName = `chargeport_durability_${randomBytes(4).toString('hex')}`;
const databaseUrl = withDatabase(suiteDatabaseUrl, databaseName);
const spawned: Spawned[] = [];
let receiver: WebhookReceiver;
let merchant: TestMerchant;
let endpointId: string;
let secret: string;

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function onServer<T>(run: (admin: postgres.Sql) => Promise<T>): Promise<T> {
  const admin = postgres(withDatabase(suiteDatabaseUrl, 'postgres'), { max: 1, onnotice: () => {} });
  try {
    return await run(admin);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/**
 * This process's environment (the suite's secrets, NODE_ENV=test), on this file's database. No chain
 * RPC and no price feed: the workers run the scheduler's database tasks and webhook delivery only.
 */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    WEBHOOKS_ALLOW_LOOPBACK: 'true',
    PRICE_FEED_URL: '',
    LOCAL_CHAINS: '',
    LOG_LEVEL: 'warn',
    // Two attempts per endpoint at a time, so the first worker stalls on the two requests that hang.
    WEBHOOK_ENDPOINT_CONCURRENCY: '2',
  };
  for (const name of Object.keys(env)) if (name.startsWith('RPC_URL_')) env[name] = '';
  return env;
}

/**
 * `node --import tsx <script>`: one process, so SIGKILL ends exactly it (the tsx CLI would run the
 * script in a child of its own, which a SIGKILL of the CLI leaves running).
 */
function spawnScript(name: string, script: string, args: string[] = []): Spawned {
  const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', script, ...args], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const started = { name, child, output, exited };
  spawned.push(started);
  return started;
}

const startWorker = (name: string) => spawnScript(name, 'scripts/worker.mts');

async function kill(target: Spawned): Promise<void> {
  if (target.child.exitCode === null && target.child.signalCode === null) target.child.kill('SIGKILL');
  expect(await target.exited).toEqual({ code: null, signal: 'SIGKILL' });
}

/** What a worker printed, for the message of a failed wait. */
function outputOf(...targets: Spawned[]): string {
  return targets.map((t) => `--- ${t.name}\n${t.output.join('').slice(-2_000)}`).join('\n');
}

async function eventsOf(chargeIds: readonly string[]) {
  return getDb().select().from(webhookEvents).where(inArray(webhookEvents.chargeId, chargeIds)).orderBy(asc(webhookEvents.createdAt));
}

async function deliveriesOf(eventIds: readonly string[]) {
  return getDb()
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.endpointId, endpointId), inArray(webhookDeliveries.eventId, eventIds)));
}

async function statusCounts(eventIds: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const delivery of await deliveriesOf(eventIds)) counts[delivery.status] = (counts[delivery.status] ?? 0) + 1;
  return counts;
}

async function newCharge(): Promise<string> {
  return (await createTestCharge({ apiKey: merchant.testKey, body: testCharge() })).chargeId;
}

async function transition(chargeId: string, ...statuses: ('processing' | 'succeeded' | 'canceled')[]): Promise<void> {
  await getDb().transaction(async (tx) => {
    for (const to of statuses) await transitionCharge(tx, { chargeId, to, actor: 'test' });
  });
}

/** Every request the receiver got for these events, each verified against the endpoint's secret. */
function verifiedRequestsFor(eventIds: readonly string[]): ReceivedWebhook[] {
  const wanted = new Set(eventIds);
  const requests = receiver.received.filter((r) => wanted.has(r.headers['webhook-id']!));
  for (const request of requests) {
    const event = new Webhook(secret).verify(request.body, request.headers) as { id: string };
    expect(event.id).toBe(request.headers['webhook-id']);
  }
  return requests;
}

/** Every event has exactly one delivery row, attempt 1, succeeded (the hung attempts were taken over, not repeated as new attempts). */
async function expectAllSucceeded(eventIds: readonly string[]): Promise<void> {
  const deliveries = await deliveriesOf(eventIds);
  expect(deliveries.map((d) => [d.eventId, d.attempt, d.status, d.responseStatus]).sort()).toEqual(
    eventIds.map((id) => [id, 1, 'succeeded', 200]).sort(),
  );
}

beforeAll(async () => {
  await onServer((admin) => admin.unsafe(`create database "${databaseName}"`));
  await migrateDatabase(databaseUrl);
  process.env.DATABASE_URL = databaseUrl;
  resetEnvCache();
  await closeDb();

  receiver = await startWebhookReceiver((index) => (HUNG_REQUESTS.has(index) ? null : 200));
  merchant = await newMerchant();
  const res = await callRoute(createEndpointRoute, { apiKey: merchant.testKey, body: { url: receiver.url } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  endpointId = res.json.data.id;
  secret = res.json.data.secret;
});

afterAll(async () => {
  // Also after a failure: no worker outlives the file.
  await Promise.all(spawned.map((target) => kill(target).catch(() => {})));
  await receiver?.close();
  await closeDb();
  process.env.DATABASE_URL = suiteDatabaseUrl;
  resetEnvCache();
  await onServer((admin) => admin.unsafe(`drop database if exists "${databaseName}" with (force)`));
});

describe('kill -9 between a state change and its delivery', () => {
  it('of the worker mid-delivery: a new worker delivers every event, the interrupted ones again with the same webhook-id', async () => {
    // Committed while no worker runs: the events wait in the outbox.
    const [a, b, c, d] = [await newCharge(), await newCharge(), await newCharge(), await newCharge()];
    await transition(a!, 'processing', 'succeeded');
    await transition(b!, 'processing');
    await transition(c!, 'canceled');
    const events = await eventsOf([a!, b!, c!, d!]);
    const eventIds = events.map((event) => event.id);
    expect(events).toHaveLength(8);
    expect(events.every((event) => event.relayedAt === null)).toBe(true);
    expect(await deliveriesOf(eventIds)).toEqual([]);

    // The first worker relays everything, delivers three events, then hangs on two requests
    // (two attempts per endpoint at a time): it is killed mid-request with the rest still queued —
    // pending, or held behind an earlier event of their charge (per-charge order).
    const first = startWorker('worker 1');
    await waitFor(async () => receiver.received.length >= 5 && (await statusCounts(eventIds)).succeeded === 3, {
      what: 'the first worker to deliver 3 events and hang on 2',
      timeoutMs: 20_000,
    }).catch(async (error: Error) =>
      expect.fail(
        `${error.message}: ${receiver.received.length} requests, ${JSON.stringify(await statusCounts(eventIds))}\n${outputOf(first)}`,
      ),
    );
    await kill(first);

    expect((await eventsOf([a!, b!, c!, d!])).every((event) => event.relayedAt !== null)).toBe(true);
    const { succeeded, sending, pending = 0, held = 0, ...other } = await statusCounts(eventIds);
    expect({ succeeded, sending, queued: pending + held, other }).toEqual({ succeeded: 3, sending: 2, queued: 3, other: {} });
    expect(receiver.received).toHaveLength(5);
    const interrupted = [...HUNG_REQUESTS].map((index) => receiver.received[index]!.headers['webhook-id']!);
    const claimedIds = (await deliveriesOf(eventIds)).filter((d) => d.status === 'sending').map((d) => d.eventId);
    expect(claimedIds.sort()).toEqual([...interrupted].sort());

    const second = startWorker('worker 2');
    // The minute the dead worker's claims need to lapse (see the header), skipped.
    const movedClaims = await getDb()
      .update(webhookDeliveries)
      .set({ claimedAt: sql`${webhookDeliveries.claimedAt} - make_interval(secs => ${SKIPPED_MS / 1000})` })
      .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'sending')))
      .returning({ id: webhookDeliveries.id });
    expect(movedClaims).toHaveLength(2);
    const movedJobs = await getDb().execute(
      sql`update ${sql.identifier(PGBOSS_SCHEMA)}.job set started_on = started_on - make_interval(secs => ${SKIPPED_MS / 1000})
          where name = ${DELIVERY_QUEUE} and state = 'active' returning id`,
    );
    expect(movedJobs).toHaveLength(2);

    await waitFor(async () => (await statusCounts(eventIds)).succeeded === eventIds.length, {
      what: 'every event to be delivered',
      timeoutMs: 25_000,
    }).catch((error: Error) => expect.fail(`${error.message}\n${outputOf(first, second)}`));

    await expectAllSucceeded(eventIds);
    const requests = verifiedRequestsFor(eventIds);
    const timesReceived = new Map<string, number>();
    for (const request of requests)
      timesReceived.set(request.headers['webhook-id']!, (timesReceived.get(request.headers['webhook-id']!) ?? 0) + 1);
    // Every state change reached the receiver; only the two requests cut by the kill came twice.
    expect([...timesReceived.keys()].sort()).toEqual([...eventIds].sort());
    expect(timesReceived.size).toBe(events.length);
    expect(eventIds.filter((id) => timesReceived.get(id) !== 1).sort()).toEqual([...interrupted].sort());
    expect(interrupted.map((id) => timesReceived.get(id))).toEqual([2, 2]);
    // Each charge's events arrived in their order (first receipts), across the kill.
    for (const chargeId of [a!, b!, c!, d!]) {
      const ofCharge = events.filter((event) => event.chargeId === chargeId).map((event) => event.id);
      const firstReceipts = [...new Set(requests.map((r) => r.headers['webhook-id']!).filter((id) => ofCharge.includes(id)))];
      expect(firstReceipts).toEqual(ofCharge);
    }

    await kill(second);
  }, 60_000);

  it('of the app right after the commit: the outbox holds the events and the next worker delivers them', async () => {
    // No worker runs (also when the test above failed half-way).
    await Promise.all(spawned.map((target) => kill(target)));
    const chargeIds = [await newCharge(), await newCharge()];
    // The app process commits the cancellations and kills itself with SIGKILL right after (no kill from here).
    const app = spawnScript('app', 'test/cancel-charges-then-die.mts', chargeIds);
    expect(await app.exited, outputOf(app)).toEqual({ code: null, signal: 'SIGKILL' });

    // Died the instant COMMIT returned: the change and its events are there, nothing else happened.
    const rows = await getDb().select({ status: charges.status }).from(charges).where(inArray(charges.id, chargeIds));
    expect(rows.map((row) => row.status)).toEqual(['canceled', 'canceled']);
    const events = await eventsOf(chargeIds);
    const eventIds = events.map((event) => event.id);
    expect(events.map((event) => [event.type, event.relayedAt]).sort()).toEqual([
      ['charge.canceled', null],
      ['charge.canceled', null],
      ['charge.created', null],
      ['charge.created', null],
    ]);
    expect(await deliveriesOf(eventIds)).toEqual([]);

    const worker = startWorker('worker 3');
    await waitFor(async () => (await statusCounts(eventIds)).succeeded === eventIds.length, {
      what: 'the events to be delivered',
      timeoutMs: 20_000,
    }).catch((error: Error) => expect.fail(`${error.message}\n${outputOf(worker)}`));
    await expectAllSucceeded(eventIds);
    const requests = verifiedRequestsFor(eventIds);
    expect(requests.map((r) => r.headers['webhook-id']).sort()).toEqual([...eventIds].sort());
    await kill(worker);
  }, 45_000);
});
