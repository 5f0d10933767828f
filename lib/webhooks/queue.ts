/**
 * Starts and stops webhook delivery in a process: pg-boss on DATABASE_URL (its own schema `pgboss`,
 * created and migrated by pg-boss on start), the workers, the outbox relay and the stuck-delivery sweep.
 * lib/jobs/background-jobs.ts calls it from instrumentation.ts (RUN_JOBS_IN_WEB) and scripts/worker.mts.
 *
 * Several processes may run this at once: pg-boss hands each job to one worker (SKIP LOCKED), the relay
 * locks the events it takes (SKIP LOCKED), and each attempt is claimed on its row (attempt-delivery.ts).
 *
 * Head-of-line blocking: a slow or dead endpoint costs at most the 10 s timeout per attempt, and its
 * jobs carry the endpoint as their pg-boss group with `localGroupConcurrency`, so in each process at
 * most GROUP_CONCURRENCY attempts to one endpoint run at once — the other DELIVERY_CONCURRENCY − 2 slots
 * keep serving everyone else, whatever that endpoint's backlog. (pg-boss's database-wide
 * `groupConcurrency` is not exact under concurrent fetches — two fetches can both see a free slot — and
 * the two options exclude each other; the per-process bound is exact and is what protects the others.)
 * A failing endpoint's retries wait for their time (5 s, 5 min, …) in the queue without holding a
 * worker. The delivery queue has its own partition table.
 *
 * Draining a backlog: after each job a pg-boss fetch loop waits out its polling interval (2 s) unless
 * NOTIFY wakes it or it is in burst mode — without burst, 10 loops send at most ~5 attempts/s per
 * process once new jobs stop arriving (one endpoint got 1.5/s in `npm run bench:webhooks`). Burst mode
 * (`burstWhenReadyExceeds`) makes a loop fetch again at once while its fetches return a job and the
 * queue's cached ready count says more are waiting; that count is refreshed by pg-boss's supervisor and
 * queue cache, every STATS_INTERVAL_SECONDS here instead of pg-boss's 60 s, so a backlog switches the
 * loops to burst within about two intervals. (Batches with `burstWhenBatchFull` would react at once, but
 * a batch keeps its jobs' endpoint slots until its slowest job ends, so a hung endpoint would hold
 * other endpoints' slots too.)
 */
import { PgBoss, type Job } from 'pg-boss';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { attemptDelivery, DeliveryClaimedError, requeueStuckDeliveries, type AttemptOptions } from './attempt-delivery';
import {
  DELIVERY_QUEUE,
  FAILING_NOTICE_QUEUE,
  isBossRunning,
  setRunningBoss,
  type DeliveryJobData,
  type FailingNoticeJobData,
} from './jobs';
import { notifyFailingEndpoint } from './notify-failing-endpoint';
import { relayWaitingDeliveries, relayWebhookEvents } from './relay';

export const PGBOSS_SCHEMA = 'pgboss';
/** Attempts in flight per process. */
const DELIVERY_CONCURRENCY = 10;
/** Attempts in flight per endpoint, per process. */
const GROUP_CONCURRENCY = 2;
/** How often pg-boss refreshes the queue's ready count (burst mode, see the header). */
const STATS_INTERVAL_SECONDS = 5;
const RELAY_INTERVAL_MS = 1_000;
const STUCK_SWEEP_INTERVAL_MS = 5 * 60_000;

export interface WebhookQueueOptions {
  /** How often the outbox relay looks for new events. */
  relayIntervalMs?: number;
  /** Passed to every attempt (tests: a shorter retry schedule, a test CA). */
  attempt?: AttemptOptions;
  /** Seconds between polls of an idle worker (LISTEN/NOTIFY wakes it at once when available). */
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
    // Workers, relay transactions and maintenance; the app's own pool is separate.
    max: 6,
    // Wake workers the moment a job is enqueued; polling stays as the fallback.
    useListenNotify: true,
    // No cron schedules are used.
    schedule: false,
    // The ready count behind burst mode (see the header); also expires a dead worker's jobs sooner.
    superviseIntervalSeconds: STATS_INTERVAL_SECONDS,
    monitorIntervalSeconds: STATS_INTERVAL_SECONDS,
    queueCacheIntervalSeconds: STATS_INTERVAL_SECONDS,
  });
  boss.on('error', (error) => log.error('job queue error', { error }));
  await boss.start();
  try {
    const deliveryQueue = {
      // pg-boss's own retries cover crashes and database errors around an attempt (not HTTP failures:
      // those are recorded and rescheduled on the webhook schedule by attemptDelivery).
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

    const running: Running = { boss, timers: [], inFlight: new Set() };
    if (options.work === false) return running;
    // Also the backstop while NOTIFY is active: it is what picks up retries whose time has come.
    const pollingIntervalSeconds = options.pollingIntervalSeconds ?? 2;
    const polling = { pollingIntervalSeconds, notifyPollingIntervalSeconds: pollingIntervalSeconds };
    await boss.work<DeliveryJobData>(
      DELIVERY_QUEUE,
      {
        batchSize: 1,
        localConcurrency: DELIVERY_CONCURRENCY,
        localGroupConcurrency: GROUP_CONCURRENCY,
        // Fetch again at once while jobs are waiting (see the header).
        burstWhenReadyExceeds: 1,
        ...polling,
      },
      async (jobs: Job<DeliveryJobData>[]) => {
        for (const job of jobs) await runAttempt(job.data.deliveryId, options.attempt);
      },
    );
    await boss.work<FailingNoticeJobData>(FAILING_NOTICE_QUEUE, { batchSize: 1, ...polling }, async (jobs: Job<FailingNoticeJobData>[]) => {
      for (const job of jobs) await notifyFailingEndpoint(job.data.endpointId);
    });

    running.timers.push(every(running, 'relay-webhook-events', options.relayIntervalMs ?? RELAY_INTERVAL_MS, relayAll));
    running.timers.push(every(running, 'requeue-stuck-webhook-deliveries', STUCK_SWEEP_INTERVAL_MS, () => requeueStuckDeliveries()));
    log.info('webhook queue started', { queue: DELIVERY_QUEUE, concurrency: DELIVERY_CONCURRENCY, perEndpoint: GROUP_CONCURRENCY });
    return running;
  } catch (error) {
    setRunningBoss(undefined);
    await boss.stop({ graceful: false, close: true }).catch(() => {});
    throw error;
  }
}

async function runAttempt(deliveryId: string, options: AttemptOptions | undefined): Promise<void> {
  try {
    await attemptDelivery(deliveryId, options);
  } catch (error) {
    // Rethrown either way: pg-boss retries the job later (a claim held elsewhere may be a dead worker's).
    if (!(error instanceof DeliveryClaimedError)) log.error('webhook attempt failed', { deliveryId, error });
    throw error;
  }
}

/**
 * Relays until the outbox and the waiting deliveries (dashboard resends and test events) are empty
 * (a burst drains at once, not one batch per second).
 */
async function relayAll(): Promise<number> {
  let total = 0;
  for (;;) {
    const relayed = (await relayWebhookEvents()) + (await relayWaitingDeliveries());
    total += relayed;
    if (relayed === 0) return total;
  }
}

function every(running: Running, name: string, everyMs: number, task: () => Promise<unknown>): NodeJS.Timeout {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const run = task()
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

/** Stops the timers, lets in-flight work finish (up to `timeoutMs`), and closes pg-boss's pool. */
export async function stopWebhookQueue({ timeoutMs = 15_000 }: { timeoutMs?: number } = {}): Promise<void> {
  const pending = globalForQueue.__chargeportWebhookQueue;
  if (!pending) return;
  globalForQueue.__chargeportWebhookQueue = undefined;
  const running = await pending.catch(() => undefined);
  if (!running) return;
  for (const timer of running.timers) clearInterval(timer);
  await Promise.allSettled([...running.inFlight]);
  await running.boss.stop({ graceful: true, timeout: timeoutMs, close: true });
  setRunningBoss(undefined);
  log.info('webhook queue stopped');
}
