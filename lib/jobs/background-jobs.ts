/**
 * Everything a process runs in the background: the periodic tasks (scheduler.ts) and webhook
 * delivery (pg-boss workers and the outbox relay, lib/webhooks/queue.ts). Started once per process by
 * instrumentation.ts (when RUN_JOBS_IN_WEB) or scripts/worker.mts; safe to run in several at once.
 */
import { publicClientFor } from '@/lib/chains/clients';
import { log } from '@/lib/log';
import { smartAccountStatuses } from '@/lib/smart-accounts/smart-account-status';
import { startWebhookQueue, stopWebhookQueue } from '@/lib/webhooks/queue';
import { startScheduler, stopScheduler } from './scheduler';

export async function startBackgroundJobs(): Promise<void> {
  startScheduler();
  // ADR 0035: say which chains' gas is sponsored through smart accounts and which fall back to top-ups, and why.
  void smartAccountStatuses()
    .then((statuses) => {
      const served = statuses.filter((s) => s.path !== 'fee_payer' && publicClientFor(s.chain));
      log.info('gas paths', {
        sponsored: served.filter((s) => s.path === 'sponsored').map((s) => s.chain),
        topup: Object.fromEntries(served.filter((s) => s.path === 'topup').map((s) => [s.chain, s.reason])),
      });
    })
    .catch((error: unknown) => log.warn('could not check the smart-account chains', { error }));
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
