/**
 * One app request or worker job (test/faults/jobs.ts), run as its own process by the database and crash
 * fault files, so that it can die by SIGKILL at a named crash point (lib/crash-points.ts) or lose its
 * database connection. Prints the result, or the error's code (the database's SQLSTATE when there is
 * one) and message, as JSON when it survives.
 *
 *   node --conditions=react-server --import tsx test/faults/run-job.mts '<json job>'   (env: the suite's)
 */
import { startDueFulfilments } from '@/lib/contracts/start-fulfilments';
import type { ChainName } from '@/lib/chains/registry';
import { closeDb } from '@/lib/db/client';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { applyProviderWebhook } from '@/lib/onramp/orders/apply-provider-webhook';
import { payChargesFromDeliveredOrders } from '@/lib/onramp/pay-charge-from-order';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { pollChain } from '@/lib/payments/poll-chain';
import { createRefund } from '@/lib/refunds/create-refund';
import { startWebhookQueue, stopWebhookQueue } from '@/lib/webhooks/queue';
import { relayWebhookEvents } from '@/lib/webhooks/relay';
import type { Job } from './jobs';

async function run(job: Job): Promise<unknown> {
  switch (job.op) {
    case 'pay':
      return payFromBalance(job);
    case 'withdraw':
      return withdrawFromMerchantWallet(job.input);
    case 'refund':
      return (await createRefund({ ctx: job.ctx, chargeId: job.chargeId, body: {}, idempotencyKey: job.idempotencyKey })).refund.id;
    case 'poll':
      return pollChain(job.chain as ChainName);
    case 'relay': {
      // A worker's relay: pg-boss up for enqueueing, no delivery worker of its own.
      await startWebhookQueue({ work: false, relayOnNotify: false, relayIntervalMs: 3_600_000 });
      try {
        return await relayWebhookEvents();
      } finally {
        await stopWebhookQueue();
      }
    }
    case 'pay-orders':
      return payChargesFromDeliveredOrders();
    case 'provider-webhook':
      return applyProviderWebhook(job.providerId, { rawBody: job.rawBody, headers: job.headers });
    case 'fulfil':
      return startDueFulfilments();
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
