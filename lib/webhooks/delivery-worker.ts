/**
 * The delivery worker of a process: takes `webhook-delivery` jobs from pg-boss in batches, claims their
 * attempts in one statement per batch, sends each over the endpoint's keep-alive pool, and records
 * what finished — outcomes, next attempts, released events and the jobs' completion — in one
 * transaction per batch (ADR 0018). pg-boss still stores, hands out (SKIP LOCKED), expires and retries
 * the jobs; this loop replaces `boss.work()`, which fetches, runs and completes one batch at a time per
 * loop (a slow endpoint's job would hold the others of its batch) and completes each job on its own
 * connection, outside the transaction that records it.
 *
 * Per-endpoint cap: each fetch asks pg-boss for jobs of endpoints with fewer than `perEndpoint` active
 * jobs (`groupConcurrency`, the endpoint is the job's group), and a job stays active until the
 * transaction that records its outcome commits. One fetch runs at a time in a process, so within a
 * process an endpoint never has more than `perEndpoint` attempts in flight, however slow it is, and
 * the other endpoints keep the remaining slots. (Fetches of several processes can overlap and each
 * see a free slot: across N processes the bound is N × perEndpoint.)
 *
 * When it fetches: at once while jobs come back and slots are free (under load, once FETCH_MIN_ROOM
 * slots are: a fetch costs PostgreSQL nearly the same for 5 jobs as for 60); woken when the relay or a
 * recording enqueued jobs in this process (wake-delivery-worker.ts) or slots freed up; otherwise every
 * `pollingIntervalMs` (retries whose time has come, jobs enqueued by other processes).
 *
 * Pipelined, so that the round trips of one step overlap the others' (bench:webhooks, 2026-11-24: the
 * machine sat 27 % idle at the peak with one step at a time): the next fetch does not wait for the
 * previous batch's claim, and up to RECORDINGS_AT_ONCE transactions record at once. Nothing in the
 * exactly-once or order guarantees depends on that order: the claim (one guarded UPDATE per row) and
 * the chain locks (release-deliveries.ts) hold them, as they do between worker processes.
 */
import { sql } from 'drizzle-orm';
import { fromDrizzle, type Job, type PgBoss } from 'pg-boss';
import { log } from '@/lib/log';
import { sendAttempt, type AttemptOptions } from './attempt-delivery';
import { traced } from '@/lib/tracing';
import { claimDeliveries } from './claim-deliveries';
import { endpointAgent } from './endpoint-agents';
import { DELIVERY_QUEUE, type DeliveryJobData } from './enqueue-deliveries';
import { setDeliveryWorkerWake } from './wake-delivery-worker';
import type { SentAttempt } from './delivery-types';
import { recordOutcomes } from './record-outcomes';

/** Jobs fetched per statement, at most. */
const FETCH_BATCH = 64;
/** Free slots a fetch waits for while attempts are in flight. */
const FETCH_MIN_ROOM = 32;
/** Outcomes recorded per transaction, at most. */
const RECORD_BATCH = 250;
/** Recording transactions at once: a commit's round trips overlap the next batch's statements. */
const RECORDINGS_AT_ONCE = 2;
/** Outcomes waiting before a second transaction starts beside the running one. */
const SECOND_RECORDING_MIN_BATCH = 16;
/** A failed recording is tried again this many times before its jobs are left to expire. */
const RECORD_TRIES = 3;

export interface DeliveryWorkerOptions {
  boss: PgBoss;
  /** Attempts in flight in this process (fetched and not yet recorded). */
  concurrency: number;
  /** Attempts in flight per endpoint. */
  perEndpoint: number;
  pollingIntervalMs: number;
  attempt?: AttemptOptions;
}

export interface DeliveryWorker {
  /** Stops fetching, waits for the attempts in flight to be sent and recorded (up to `timeoutMs`). */
  stop(timeoutMs: number): Promise<void>;
}

type DeliveryJob = Job<DeliveryJobData>;

interface Finished {
  job: DeliveryJob;
  /** null: nothing was sent (a duplicate or finished attempt): only the job completes. */
  sent: SentAttempt | null;
}

const chargeOf = (item: Finished): string | null => item.sent?.claimed.delivery.chargeId ?? null;

export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { boss, concurrency, perEndpoint, pollingIntervalMs } = options;
  let stopped = false;
  /** Jobs fetched and not yet completed or failed. */
  let active = 0;
  let woken = false;
  let wakeSleeper: (() => void) | undefined;
  /** Claims and requests under way: a fetch does not wait for the previous batch's claim. */
  const sending = new Set<Promise<void>>();
  const toRecord: Finished[] = [];
  const recordings = new Set<Promise<void>>();
  /** The charges of the outcomes being recorded. */
  const chargesRecording = new Set<string>();

  const wake = () => {
    woken = true;
    wakeSleeper?.();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || stopped) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeSleeper = undefined;
        resolve();
      }
      wakeSleeper = done;
    });

  async function fetchLoop(): Promise<void> {
    while (!stopped) {
      const room = concurrency - active;
      // Under load, fetch once a batch's worth of slots is free; the attempts in flight keep the
      // endpoints busy meanwhile.
      if (room <= 0 || (active > 0 && room < Math.min(FETCH_MIN_ROOM, concurrency))) {
        await sleep(pollingIntervalMs);
        woken = false;
        continue;
      }
      woken = false;
      let jobs: DeliveryJob[];
      try {
        jobs = await boss.fetch<DeliveryJobData>(DELIVERY_QUEUE, { batchSize: Math.min(room, FETCH_BATCH), groupConcurrency: perEndpoint });
      } catch (error) {
        if (!stopped) log.error('webhook job fetch failed', { error });
        await sleep(pollingIntervalMs);
        continue;
      }
      if (jobs.length === 0) {
        await sleep(pollingIntervalMs);
        continue;
      }
      active += jobs.length;
      // The next fetch overlaps this batch's claim: only fetches must not overlap (the per-endpoint cap).
      const claiming: Promise<void> = runJobs(jobs)
        .catch((error: unknown) => log.error('starting webhook attempts failed', { error }))
        .finally(() => sending.delete(claiming));
      sending.add(claiming);
    }
  }

  /** Claims the batch and starts its requests; returns once they are under way. */
  async function runJobs(jobs: DeliveryJob[]): Promise<void> {
    const jobOf = new Map<string, DeliveryJob>();
    const duplicates: DeliveryJob[] = [];
    for (const job of jobs) {
      if (jobOf.has(job.data.deliveryId)) duplicates.push(job);
      else jobOf.set(job.data.deliveryId, job);
    }
    let claim: Awaited<ReturnType<typeof claimDeliveries>>;
    try {
      claim = await claimDeliveries([...jobOf.keys()]);
    } catch (error) {
      log.error('claiming webhook attempts failed', { error });
      await failJobs(jobs, 'claim failed');
      return;
    }
    // A fresh claim elsewhere may be a dead worker's: pg-boss retries the job after its delay.
    await failJobs(
      claim.busy.map((id) => jobOf.get(id)!),
      'the attempt is being sent by another worker',
    );
    finish([...duplicates, ...claim.skipped.map((id) => jobOf.get(id)!)].map((job) => ({ job, sent: null })));
    for (const claimed of claim.claimed) {
      const job = jobOf.get(claimed.delivery.id)!;
      const agent = endpointAgent(claimed.endpoint.id, claimed.endpoint.url, perEndpoint);
      // A root span per attempt (lib/tracing.ts): the POST to the endpoint (recorded once finished, in a batch).
      const attributes = { 'chargeport.job': 'webhook-delivery', 'chargeport.delivery_id': claimed.delivery.id };
      const send: Promise<void> = traced('job webhook-delivery', { attributes, root: true }, () =>
        sendAttempt(claimed, { ...options.attempt, agent }),
      )
        .then((sent) => finish([{ job, sent }]))
        .catch((error: unknown) => {
          // sendAttempt does not throw for HTTP outcomes; this is a bug or a bad secret. The claim
          // lapses and pg-boss retries the job.
          log.error('webhook attempt failed', { deliveryId: claimed.delivery.id, error });
          return failJobs([job], 'attempt failed');
        })
        .finally(() => sending.delete(send));
      sending.add(send);
    }
  }

  async function failJobs(jobs: DeliveryJob[], message: string): Promise<void> {
    if (jobs.length === 0) return;
    try {
      await boss.fail(
        DELIVERY_QUEUE,
        jobs.map((job) => ({ id: job.id, retryCount: job.retryCount })),
        { message },
      );
    } catch (error) {
      log.error('failing webhook jobs failed', { error });
    }
    active -= jobs.length;
    wake();
  }

  function finish(finished: Finished[]): void {
    toRecord.push(...finished);
    startRecordings();
  }

  /**
   * Whatever finished goes into the next transaction. A second transaction starts beside the running
   * one only for a batch worth it (outcomes that wait a few ms for the next commit cost less per attempt
   * than a transaction each), and without the running one's charges: both would release the next
   * events of a shared charge, and the second would wait on its chain lock.
   */
  function startRecordings(): void {
    while (toRecord.length > 0 && recordings.size < RECORDINGS_AT_ONCE) {
      const { batch, left } = nextBatch();
      if (recordings.size > 0 && batch.length < SECOND_RECORDING_MIN_BATCH) return;
      toRecord.splice(0, toRecord.length, ...left);
      const charges = new Set(batch.map(chargeOf).filter((charge) => charge !== null));
      for (const charge of charges) chargesRecording.add(charge);
      const recording: Promise<void> = recordBatch(batch).finally(() => {
        active -= batch.length;
        for (const charge of charges) chargesRecording.delete(charge);
        recordings.delete(recording);
        wake();
        startRecordings();
      });
      recordings.add(recording);
    }
  }

  /** Up to RECORD_BATCH outcomes in the order they finished, passing over charges being recorded. */
  function nextBatch(): { batch: Finished[]; left: Finished[] } {
    const batch: Finished[] = [];
    const left: Finished[] = [];
    for (const item of toRecord) {
      const charge = chargeOf(item);
      if (batch.length < RECORD_BATCH && !(charge && chargesRecording.has(charge))) batch.push(item);
      else left.push(item);
    }
    return { batch, left };
  }

  async function recordBatch(batch: Finished[]): Promise<void> {
    const sent = batch.flatMap((item) => (item.sent ? [item.sent] : []));
    const jobs = batch.map((item) => ({ id: item.job.id, retryCount: item.job.retryCount }));
    for (let tryNumber = 1; ; tryNumber++) {
      try {
        await recordOutcomes(sent, {
          ...(options.attempt?.retryDelay ? { retryDelay: options.attempt.retryDelay } : {}),
          inTransaction: async (tx) => {
            await boss.complete(DELIVERY_QUEUE, jobs, null, { db: fromDrizzle(tx, sql) });
          },
        });
        return;
      } catch (error) {
        if (tryNumber >= RECORD_TRIES) {
          // The jobs stay active until pg-boss expires and retries them; the claims lapse after the
          // lease and the attempts go out again (receivers deduplicate on webhook-id).
          log.error('recording webhook attempts failed', { attempts: batch.length, error });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 50 * tryNumber));
      }
    }
  }

  setDeliveryWorkerWake(wake);
  const loop = fetchLoop().catch((error: unknown) => log.error('webhook delivery worker stopped', { error }));

  return {
    async stop(timeoutMs) {
      stopped = true;
      setDeliveryWorkerWake(undefined);
      wake();
      const drained = (async () => {
        await loop;
        while (sending.size) await Promise.allSettled([...sending]);
        while (recordings.size) await Promise.allSettled([...recordings]);
      })();
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    },
  };
}
