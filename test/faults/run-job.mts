/**
 * One app request or worker job (test/faults/jobs.ts), run as its own process by the database and crash
 * fault files, so that it can die by SIGKILL at a named crash point (lib/crash-points.ts) or lose its
 * database connection. Prints the result, or the error's code (the database's SQLSTATE when there is
 * one) and message, as JSON when it survives.
 *
 *   node --conditions=react-server --import tsx test/faults/run-job.mts '<json job>'   (env: the suite's)
 */
import type { ChainName } from '@/lib/chains/registry';
import { closeDb } from '@/lib/db/client';
import type { Job } from './jobs';

// Each job imports only its own modules: a child process starts in a few seconds instead of ten.
async function run(job: Job): Promise<unknown> {
  switch (job.op) {
    case 'pay':
      return (await import('@/lib/payments/pay-from-balance')).payFromBalance(job);
    case 'withdraw':
      return (await import('@/lib/merchants/withdraw')).withdrawFromMerchantWallet(job.input);
    case 'refund': {
      const { createRefund } = await import('@/lib/refunds/create-refund');
      return (await createRefund({ ctx: job.ctx, chargeId: job.chargeId, body: {}, idempotencyKey: job.idempotencyKey })).refund.id;
    }
    case 'sweep':
      return (await import('@/lib/payments/sweep-charges')).sweepCharge(job.chargeId);
    case 'reconcile':
      return (await import('@/lib/jobs/transfer-outcome-hooks')).reconcileDueTransfers({ ignoreSchedule: true });
    case 'poll':
      return (await import('@/lib/payments/poll-chain')).pollChain(job.chain as ChainName);
    case 'relay': {
      // A worker's relay: pg-boss up for enqueueing, no delivery worker of its own.
      const { startWebhookQueue, stopWebhookQueue } = await import('@/lib/webhooks/queue');
      await startWebhookQueue({ work: false, relayOnNotify: false, relayIntervalMs: 3_600_000 });
      try {
        return await (await import('@/lib/webhooks/relay')).relayWebhookEvents();
      } finally {
        await stopWebhookQueue();
      }
    }
    case 'pay-orders':
      return (await import('@/lib/onramp/pay-charge-from-order')).payChargesFromDeliveredOrders();
    case 'provider-webhook':
      return (await import('@/lib/onramp/orders/apply-provider-webhook')).applyProviderWebhook(job.providerId, {
        rawBody: job.rawBody,
        headers: job.headers,
      });
    case 'fulfil':
      return (await import('@/lib/contracts/start-fulfilments')).startDueFulfilments();
  }
}

/** The first code along the error's causes (drizzle wraps the database's error). */
function codeOf(error: unknown): string | null {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string') return e.code;
  }
  return null;
}

try {
  const result = await run(JSON.parse(process.argv[2]!) as Job);
  console.log(JSON.stringify({ ok: true, result }, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
} catch (error) {
  console.log(JSON.stringify({ ok: false, code: codeOf(error), message: (error as Error).message ?? String(error) }));
} finally {
  await closeDb();
}
