/**
 * Periodic background work of a server process: chain watchers, charge expiry, clean-up of short-lived rows.
 * Started once per process (instrumentation.ts, or `npm run worker`). Every task is safe to run in
 * several processes at once (row locks with SKIP LOCKED, idempotent deletes).
 */
import { lt } from 'drizzle-orm';
import { expireDueCharges } from '@/lib/charges/expire-charges';
import { deleteExpiredIdempotencyKeys } from '@/lib/api/idempotency';
import { sweepExpiredOidcPayloads } from '@/lib/oauth/adapter';
import { getDb } from '@/lib/db/client';
import { rateLimits } from '@/lib/db/schema';
import { deleteExpiredApiRateLimits } from '@/lib/api/rate-limit';
import { CHAIN_NAMES, CHAINS, EVM_CHAIN_NAMES } from '@/lib/chains/registry';
import { rpcUrl } from '@/lib/env';
import { log } from '@/lib/log';
import { metrics } from '@/lib/metrics/metrics';
import { reconcileTransfers } from '@/lib/transactions/reconcile-transfers';
import { reconcileAndReport } from '@/lib/ledger/reconcile-chains';
import { sweepDueCharges } from '@/lib/payments/sweep-deposits';
import { refreshUsdPrices } from '@/lib/pricing/usd-value';
import { failUnderpaidCharges } from '@/lib/payments/settle-charge';
import { expireDueOnrampOrders } from '@/lib/onramp/orders/expire-orders';
import { pollSolana } from '@/lib/payments/solana/watch-solana';
import { pollChain } from '@/lib/payments/watch-chain';
import { convertSwapFunding } from '@/lib/swap/convert-swap-funding';
import { startDueFulfilments } from '@/lib/contracts/start-fulfilments';
import { payChargesFromDeliveredOrders } from '@/lib/onramp/pay-charge-from-order';
import { pollIncomingTransfers } from '@/lib/wallets/watch-incoming-transfers';
import { expireRefundClaims } from '@/lib/refunds/expire-refund-claims';

/** The watchers' recorded payments, for chargeport_payments_seen_total. */
function countPayments(chain: string, recorded: number): number {
  if (recorded > 0) metrics().paymentsSeen.inc({ chain }, recorded);
  return recorded;
}

interface Task {
  name: string;
  everyMs: number;
  /** Also run once right away (a long period should not leave the first minutes without data). */
  runAtStart?: boolean;
  run: () => Promise<unknown>;
}

const TASKS: Task[] = [
  { name: 'expire-charges', everyMs: 10_000, run: expireDueCharges },
  { name: 'expire-onramp-orders', everyMs: 30_000, run: () => expireDueOnrampOrders() },
  // Refund claim links nobody claimed in REFUND_CLAIM_TTL_DAYS: their amount is refundable again.
  { name: 'expire-refund-claims', everyMs: 60_000, run: () => expireRefundClaims() },
  // The transaction engine: every open transfer brought up to date (leases; safe in several processes).
  { name: 'reconcile-transfers', everyMs: 3_000, run: () => reconcileTransfers() },
  { name: 'sweep-deposits', everyMs: 5_000, run: sweepDueCharges },
  // Swap on-ramp: settle swaps in flight, then swap on-ramped USDC at PZP charges' deposit addresses.
  { name: 'convert-swap-funding', everyMs: 5_000, run: () => convertSwapFunding() },
  // Contracts tab: succeeded charges' fulfilments (armed by the database) become contract calls of the engine.
  { name: 'start-fulfilments', everyMs: 3_000, run: () => startDueFulfilments() },
  // Card payments below the provider's minimum: the delivered minimum pays its charge from the buyer's wallet.
  { name: 'pay-charges-from-orders', everyMs: 3_000, run: () => payChargesFromDeliveredOrders() },
  { name: 'fail-underpaid-charges', everyMs: 10_000, run: () => getDb().transaction((tx) => failUnderpaidCharges(tx)) },
  // One watcher per EVM chain that has an RPC URL (configured or local).
  ...EVM_CHAIN_NAMES.map((chain): Task => ({
    name: `watch-${chain}`,
    everyMs: 2_000,
    run: async () => countPayments(chain, rpcUrl(chain) ? ((await pollChain(chain))?.recorded ?? 0) : 0),
  })),
  // Transfers into users' service wallets, for the wallet's Activity: one indexer per EVM chain with an RPC.
  ...EVM_CHAIN_NAMES.map((chain): Task => ({
    name: `index-incoming-${chain}`,
    everyMs: 3_000,
    run: async () => (rpcUrl(chain) ? ((await pollIncomingTransfers(chain))?.recorded ?? 0) : 0),
  })),
  { name: 'refresh-usd-prices', everyMs: 5 * 60_000, runAtStart: true, run: () => refreshUsdPrices() },
  // Solana clusters are watched only against a configured RPC (there is no local Solana node).
  ...CHAIN_NAMES.filter((chain) => CHAINS[chain].family === 'solana').map((chain): Task => ({
    name: `watch-${chain}`,
    everyMs: 2_000,
    run: async () => countPayments(chain, rpcUrl(chain) ? ((await pollSolana(chain))?.recorded ?? 0) : 0),
  })),
  // The ledger against the chains: every difference is logged as an error (lib/ledger).
  { name: 'reconcile-ledger', everyMs: 10 * 60_000, run: () => reconcileAndReport() },
  { name: 'delete-expired-idempotency-keys', everyMs: 60 * 60_000, run: () => deleteExpiredIdempotencyKeys() },
  // The OpenID provider's expired codes, tokens, sessions and interactions (lib/oauth/adapter.ts).
  { name: 'sweep-expired-oidc-payloads', everyMs: 60 * 60_000, run: () => sweepExpiredOidcPayloads() },
  {
    name: 'delete-expired-rate-limits',
    everyMs: 10 * 60_000,
    run: async () => {
      await getDb().delete(rateLimits).where(lt(rateLimits.expire, new Date()));
      await deleteExpiredApiRateLimits();
    },
  },
];

const globalForJobs = globalThis as unknown as { __chargeportJobs?: NodeJS.Timeout[] };

export function startScheduler(): void {
  if (globalForJobs.__chargeportJobs) return;
  globalForJobs.__chargeportJobs = TASKS.map((task) => {
    let running = false;
    const tick = async () => {
      if (running) return;
      running = true;
      try {
        const result = await task.run();
        if (typeof result === 'number' && result > 0) log.info('job done', { job: task.name, count: result });
      } catch (error) {
        log.error('job failed', { job: task.name, error });
      } finally {
        running = false;
      }
    };
    const timer = setInterval(tick, task.everyMs);
    timer.unref();
    if (task.runAtStart) void tick();
    return timer;
  });
  log.info('background jobs started', { jobs: TASKS.map((t) => t.name) });
}

export function stopScheduler(): void {
  for (const timer of globalForJobs.__chargeportJobs ?? []) clearInterval(timer);
  globalForJobs.__chargeportJobs = undefined;
}
