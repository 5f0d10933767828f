/**
 * Everything a process runs in the background: the periodic tasks (scheduler.ts) and webhook
 * delivery (pg-boss workers and the outbox relay, lib/webhooks/queue.ts). Started once per process by
 * instrumentation.ts (when RUN_JOBS_IN_WEB) or scripts/worker.mts; safe to run in several at once.
 */
import { log } from '@/lib/log';
import { startWebhookQueue, stopWebhookQueue } from '@/lib/webhooks/queue';
import { startScheduler, stopScheduler } from './scheduler';

export async function startBackgroundJobs(): Promise<void> {
  startScheduler();
  try {
    await startWebhookQueue();
  } catch (error) {
    // Events stay in the outbox (webhook_events) until a process with a working queue relays them.
    log.error('webhook queue did not start; webhook events wait in the outbox', { error });
  }
}

export async function stopBackgroundJobs(): Promise<void> {
  stopScheduler();
  await stopWebhookQueue();
}
