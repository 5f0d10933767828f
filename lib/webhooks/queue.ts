/**
 * Starts and stops webhook delivery in a process: pg-boss on DATABASE_URL (its own schema `pgboss`,
 * created and migrated by pg-boss on start), the delivery worker, the outbox relay and the
 * stuck-delivery sweep. lib/jobs/background-jobs.ts calls it from instrumentation.ts (RUN_JOBS_IN_WEB)
 * and scripts/worker.mts.
 *
 * Several processes may run this at once: pg-boss hands each job to one worker (SKIP LOCKED), the relay
 * locks the events it takes (SKIP LOCKED), and each attempt is claimed on its row (claim-deliveries.ts).
 *
 * No waiting on timers on the way of a payment's event (ADR 0018): the relay runs when PostgreSQL notifies
 * `webhook_events` (a trigger on the outbox, at the commit of the emitting transaction; `charge.created`,
 * written at the rate charges are created, waits for the one-second poll instead), and the delivery worker fetches the moment the relay or a recording committed jobs in
 * this process (delivery-worker.ts). Each process runs at most DELIVERY_CONCURRENCY attempts at once, at
 * most WEBHOOK_ENDPOINT_CONCURRENCY (default 16) to one endpoint, so a slow or dead endpoint (10 s
 * timeout per attempt) cannot starve the others; a failing endpoint's retries wait for their time
 * (5 s, 5 min, …) in the queue without holding a slot. The delivery queue has its own partition table.
 */
import { PgBoss, type Job } from 'pg-boss';
import { listenForNotifications, type NotificationListener } from '@/lib/db/client';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { requeueStuckDeliveries, type AttemptOptions } from './attempt-delivery';
import { startDeliveryWorker, type DeliveryWorker } from './delivery-worker';
import { closeEndpointAgents } from './endpoint-agents';
import { DELIVERY_QUEUE } from './enqueue-deliveries';
import { FAILING_NOTICE_QUEUE, type FailingNoticeJobData } from './enqueue-failing-notice';
import { isBossRunning, setRunningBoss } from './running-boss';
import { notifyFailingEndpoint } from './notify-failing-endpoint';
import { OUTBOX_CHANNEL, WAITING_DELIVERIES_PAYLOAD } from './announce-waiting-delivery';
import { RELAY_BATCH_SIZE, relayWaitingDeliveries, relayWebhookEvents } from './relay';

export const PGBOSS_SCHEMA = 'pgboss';
/** Attempts in flight per process: 20 endpoints at the default per-endpoint cap. */
const DELIVERY_CONCURRENCY = 320;
const SUPERVISE_INTERVAL_SECONDS = 5;
/**
 * The relay's poll: how long a `charge.created` event may wait (it does not notify: PostgreSQL serialises
 * the commits of notifying transactions, drizzle/0047_relay_new_charges_on_poll.sql), and the fallback
 * for every other event, which notifies at its commit. One indexed look at the outbox a second, whatever
 * the load.
 */
const RELAY_INTERVAL_MS = 1_000;
/**
 * How long the relay gathers notifications before a pass: each committed charge notifies, and one pass
 * costs the database about the same few statements for 1 event as for 200. At a few hundred new charges
 * a second, relaying each on its own cost PostgreSQL as much CPU as creating the charges (bench:api,
 * issue 27); 25 ms batches them and adds at most that to a webhook's way.
 */
const RELAY_GATHER_MS = 25;
const STUCK_SWEEP_INTERVAL_MS = 5 * 60_000;

export interface WebhookQueueOptions {
  /** How often the outbox relay looks for new events without being notified. */
  relayIntervalMs?: number;
  /** How long the notified relay gathers notifications before a pass (default RELAY_GATHER_MS). */
  relayGatherMs?: number;
  /** false: the relay runs on its timer only (tests that relay by hand). Default true. */
  relayOnNotify?: boolean;
  /** Passed to every attempt (tests: a shorter retry schedule, a test CA). */
  attempt?: AttemptOptions;
  /** Seconds between fetches of an idle delivery worker (retries whose time has come, other processes' jobs). */
  pollingIntervalSeconds?: number;
  /**
   * false: start pg-boss for enqueueing only — no workers, relay or sweep. For tests that run attempts
   * themselves while another test process's workers share the queue.
   */
  work?: boolean;
}

interface Running {
  boss: PgBoss;
  timers: NodeJS.Timeout[];
  inFlight: Set<Promise<unknown>>;
  worker?: DeliveryWorker;
  stopped: boolean;
}

const globalForQueue = globalThis as unknown as { __chargeportWebhookQueue?: Promise<Running> };

/** Idempotent within a process (Next's dev reloads call register() again). */
export function startWebhookQueue(options: WebhookQueueOptions = {}): Promise<void> {
  globalForQueue.__chargeportWebhookQueue ??= start(options).catch((error: unknown) => {
    globalForQueue.__chargeportWebhookQueue = undefined;
    throw error;
  });
  return globalForQueue.__chargeportWebhookQueue.then(() => undefined);
}

async function start(options: WebhookQueueOptions): Promise<Running> {
  const databaseUrl = env().DATABASE_URL;
  if (!databaseUrl) throw new Error('The webhook job queue needs DATABASE_URL.');
  if (isBossRunning()) throw new Error('A webhook job queue is already running in this process.');
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: PGBOSS_SCHEMA,
    application_name: 'chargeport-jobs',
    // pg-boss's fetch orders the ready jobs (job_i11) and takes a batch. The job table's statistics lag a
    // burst (the queue is empty most of the time), and the planner then chose a bitmap scan of every
    // ready job plus a sort, per fetch (bench:webhooks, 2026-11-24: 15 ms for 50 jobs of a 16,000-job
    // backlog). Without bitmap scans on pg-boss's own connections it walks the index and stops at the batch.
    options: '-c enable_bitmapscan=off',
    // Workers, relay transactions and maintenance; the app's own pool is separate.
    max: 6,
    // Wake workers the moment a job is enqueued; polling stays as the fallback.
    useListenNotify: true,
    // No cron schedules are used.
    schedule: false,
    // Expires a dead worker's jobs within seconds of their 60 s limit.
    superviseIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
    monitorIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
  });
  boss.on('error', (error) => log.error('job queue error', { error }));
  await boss.start();
  try {
    const deliveryQueue = {
      // pg-boss's own retries cover crashes and database errors around an attempt (not HTTP failures:
      // those are recorded and rescheduled on the webhook schedule by recordOutcomes).
      retryLimit: 20,
      retryDelay: 5,
      retryBackoff: true,
      retryDelayMax: 600,
      // An attempt takes at most ~10 s; a job active for a minute lost its worker.
      expireInSeconds: 60,
      notify: true,
    };
    await boss.createQueue(DELIVERY_QUEUE, { ...deliveryQueue, partition: true });
    await boss.updateQueue(DELIVERY_QUEUE, deliveryQueue);
    await boss.createQueue(FAILING_NOTICE_QUEUE, {
      retryLimit: 10,
      retryDelay: 30,
      retryBackoff: true,
      expireInSeconds: 120,
      notify: true,
    });
    setRunningBoss(boss);

    const running: Running = { boss, timers: [], inFlight: new Set(), stopped: false };
    if (options.work === false) return running;
    const pollingIntervalSeconds = options.pollingIntervalSeconds ?? 1;
    running.worker = startDeliveryWorker({
      boss,
      concurrency: DELIVERY_CONCURRENCY,
      // A slot is held from the fetch until the outcome commits, so the cap also bounds one endpoint's
      // throughput: bench:webhooks' 20 healthy endpoints peaked at ~600 deliveries/s with 2 each,
      // 1,186–1,546/s with 16 (2026-11-24, docs/api.md).
      perEndpoint: env().WEBHOOK_ENDPOINT_CONCURRENCY,
      pollingIntervalMs: pollingIntervalSeconds * 1000,
      ...(options.attempt ? { attempt: options.attempt } : {}),
    });
    const polling = { pollingIntervalSeconds, notifyPollingIntervalSeconds: pollingIntervalSeconds };
    await boss.work<FailingNoticeJobData>(FAILING_NOTICE_QUEUE, { batchSize: 1, ...polling }, async (jobs: Job<FailingNoticeJobData>[]) => {
      for (const job of jobs) await notifyFailingEndpoint(job.data.endpointId);
    });

    // Events on their notification (after a short gather); waiting deliveries only when one is announced
    // (a dashboard resend or test event), and both on start and on the fallback timer.
    const relayEvents = coalesced(
      running,
      'relay-webhook-events',
      () => drain(relayWebhookEvents),
      options.relayGatherMs ?? RELAY_GATHER_MS,
    );
    const relayWaiting = coalesced(running, 'relay-waiting-deliveries', () => drain(relayWaitingDeliveries));
    const relayBoth = () => {
      relayEvents();
      relayWaiting();
    };
    if (options.relayOnNotify !== false) {
      listenToOutbox({ onEvents: relayEvents, onWaitingDeliveries: relayWaiting, onListening: relayBoth });
    }
    relayBoth();
    running.timers.push(every(running, 'relay-webhook-events', options.relayIntervalMs ?? RELAY_INTERVAL_MS, relayBoth));
    running.timers.push(every(running, 'requeue-stuck-webhook-deliveries', STUCK_SWEEP_INTERVAL_MS, () => requeueStuckDeliveries()));
    log.info('webhook queue started', {
      queue: DELIVERY_QUEUE,
      concurrency: DELIVERY_CONCURRENCY,
      perEndpoint: env().WEBHOOK_ENDPOINT_CONCURRENCY,
    });
    return running;
  } catch (error) {
    setRunningBoss(undefined);
    await boss.stop({ graceful: false, close: true }).catch(() => {});
    throw error;
  }
}

/**
 * Relays batch after batch while they come back full (a burst drains at once, not one batch per
 * second); a short batch means the rest is empty, and a notification during the pass runs it again.
 */
async function drain(relayBatch: () => Promise<number>): Promise<void> {
  while ((await relayBatch()) >= RELAY_BATCH_SIZE);
}

/**
 * A task that runs at most once at a time: called while it runs, it runs once more right after (a
 * notification during a relay pass may be for an event that pass did not see). With `gatherMs`, each
 * run first waits that long, so the calls of a burst become one run.
 */
function coalesced(running: Running, name: string, task: () => Promise<unknown>, gatherMs = 0): () => void {
  let current: Promise<void> | undefined;
  let again = false;
  return () => {
    if (running.stopped) return;
    if (current) {
      again = true;
      return;
    }
    current = (async () => {
      do {
        again = false;
        if (gatherMs > 0) await new Promise((resolve) => setTimeout(resolve, gatherMs));
        if (running.stopped) return;
        await task().catch((error: unknown) => log.error('job failed', { job: name, error }));
      } while (again && !running.stopped);
    })().finally(() => {
      running.inFlight.delete(current!);
      current = undefined;
    });
    running.inFlight.add(current);
  };
}

function every(running: Running, name: string, everyMs: number, task: () => unknown): NodeJS.Timeout {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const run = Promise.resolve()
      .then(task)
      .catch((error: unknown) => log.error('job failed', { job: name, error }))
      .finally(() => {
        busy = false;
        running.inFlight.delete(run);
      });
    running.inFlight.add(run);
  }, everyMs);
  timer.unref();
  return timer;
}

/**
 * One LISTEN connection per process for the outbox channel, kept across queue restarts (closeDb()
 * ends it); `onEvent` is the running queue's relay. It also runs when LISTEN (re)starts: events
 * committed while it was not listening were not notified.
 */
interface OutboxHandlers {
  onEvents: () => void;
  onWaitingDeliveries: () => void;
  onListening: () => void;
}

const globalForOutbox = globalThis as unknown as {
  __chargeportOutboxListener?: { listener: NotificationListener; handlers?: OutboxHandlers };
};

function listenToOutbox(handlers: OutboxHandlers | undefined): void {
  let current = globalForOutbox.__chargeportOutboxListener;
  if (handlers && (!current || current.listener.closed)) {
    const state: { listener?: NotificationListener; handlers?: OutboxHandlers } = {};
    state.listener = listenForNotifications(OUTBOX_CHANNEL, {
      onNotification: (payload) =>
        payload === WAITING_DELIVERIES_PAYLOAD ? state.handlers?.onWaitingDeliveries() : state.handlers?.onEvents(),
      onListening: () => state.handlers?.onListening(),
      onLost: () => {},
    });
    current = globalForOutbox.__chargeportOutboxListener = state as { listener: NotificationListener; handlers?: OutboxHandlers };
  }
  if (current) current.handlers = handlers;
}

/** Stops the timers, lets in-flight work finish (up to `timeoutMs`), and closes pg-boss's pool. */
export async function stopWebhookQueue({ timeoutMs = 15_000 }: { timeoutMs?: number } = {}): Promise<void> {
  const pending = globalForQueue.__chargeportWebhookQueue;
  if (!pending) return;
  globalForQueue.__chargeportWebhookQueue = undefined;
  const running = await pending.catch(() => undefined);
  if (!running) return;
  running.stopped = true;
  listenToOutbox(undefined);
  for (const timer of running.timers) clearInterval(timer);
  await running.worker?.stop(timeoutMs);
  await Promise.allSettled([...running.inFlight]);
  await running.boss.stop({ graceful: true, timeout: timeoutMs, close: true });
  closeEndpointAgents();
  setRunningBoss(undefined);
  log.info('webhook queue stopped');
}
