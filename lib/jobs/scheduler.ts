/**
 * Periodic background work of a server process: chain watchers, charge expiry, clean-up of short-lived rows.
 * Started once per process (instrumentation.ts, or `npm run worker`). Every task is safe to run in
 * several processes at once (row locks with SKIP LOCKED, idempotent deletes). A task can also be woken
 * (`wakeTask`): each EVM chain's new blocks wake its watcher at once (./new-blocks.ts, ADR 0028), each Solana
 * chain's new slots its block reader (./new-slots.ts, ADR 0037).
 */
import { lt } from 'drizzle-orm';
import { expireDueCharges } from '@/lib/charges/expire-charges';
import { deleteExpiredIdempotencyKeys } from '@/lib/api/idempotency';
import { sweepExpiredOidcPayloads } from '@/lib/oauth/adapter';
import { getDb } from '@/lib/db/client';
import { rateLimits } from '@/lib/db/schema';
import { deleteExpiredApiRateLimits } from '@/lib/rate-limit/api-rate-limit';
import { CHAIN_NAMES, CHAINS, EVM_CHAIN_NAMES } from '@/lib/chains/registry';
import { rpcUrl, rpcWsUrl } from '@/lib/env';
import { log } from '@/lib/log';
import { metrics } from '@/lib/metrics/metrics';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { reconcileAndReport } from '@/lib/ledger/reconcile-chains';
import { auditDepositAddresses } from '@/lib/ledger/audit-deposit-addresses';
import { releaseDepositAddresses } from './release-deposit-addresses';
import { pollSolanaWallets } from '@/lib/ledger/poll-solana-wallets';
import { sweepDueCharges } from '@/lib/payments/sweep-charges';
import { PRICE_REFRESH_EVERY_MS, refreshUsdPrices } from '@/lib/pricing/approximate-usd';
import { failUnderpaidCharges } from '@/lib/payments/settle-charge';
import { expireDueOnrampOrders } from '@/lib/onramp/orders/expire-orders';
import { pollSolana } from '@/lib/payments/solana/poll-solana';
import { readSolanaBlocks } from '@/lib/payments/solana/read-solana-blocks';
import { pollChain } from '@/lib/payments/poll-chain';
import { convertSwapFunding } from '@/lib/swap/convert-swap-funding';
import { checkSwapFundingFallback } from '@/lib/swap/check-swap-funding-fallback';
import { startDueFulfilments } from '@/lib/contracts/start-fulfilments';
import { payChargesFromDeliveredOrders } from '@/lib/onramp/pay-charge-from-order';
import { pollIncomingTransfers } from '@/lib/wallets/poll-incoming-transfers';
import { expireRefundClaims } from '@/lib/refunds/expire-refund-claims';
import { subscribeToNewBlocks, type BlockSubscriptions } from './new-blocks';
import { subscribeToNewSlots } from './new-slots';
import { traced } from '@/lib/tracing';

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

const SOLANA_CHAIN_NAMES = CHAIN_NAMES.filter((chain) => CHAINS[chain].family === 'solana');

const TASKS: Task[] = [
  { name: 'expire-charges', everyMs: 10_000, run: expireDueCharges },
  { name: 'expire-onramp-orders', everyMs: 30_000, run: () => expireDueOnrampOrders() },
  // Refund claim links nobody claimed in REFUND_CLAIM_TTL_DAYS: their amount is refundable again.
  { name: 'expire-refund-claims', everyMs: 60_000, run: () => expireRefundClaims() },
  // The transaction engine: every open transfer brought up to date (leases; safe in several processes).
  { name: 'reconcile-transfers', everyMs: 3_000, run: () => reconcileDueTransfers() },
  { name: 'sweep-deposits', everyMs: 5_000, run: sweepDueCharges },
  // Swap on-ramp: swap on-ramped USDC at PZP charges' deposit addresses, for the charges with a signal of
  // funding (no signal, no chain read); once a minute a bounded walk checks the rest, for a missed signal.
  { name: 'convert-swap-funding', everyMs: 5_000, run: () => convertSwapFunding() },
  { name: 'check-swap-funding-fallback', everyMs: 60_000, run: () => checkSwapFundingFallback() },
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
  { name: 'refresh-usd-prices', everyMs: PRICE_REFRESH_EVERY_MS, runAtStart: true, run: () => refreshUsdPrices() },
  // Solana clusters with an RPC (configured, or the launcher's local cluster): the per-address search, the
  // catch-up that moves each address's cursors and so lets expiry pass (ADR 0037)…
  ...SOLANA_CHAIN_NAMES.map((chain): Task => ({
    name: `watch-${chain}`,
    everyMs: 2_000,
    run: async () => countPayments(chain, rpcUrl(chain) ? ((await pollSolana(chain))?.recorded ?? 0) : 0),
  })),
  // …and the new confirmed blocks read once each, woken at every slot (its interval is the fallback). Only
  // with a WebSocket URL (RPC_WS_URL_SOLANA or the local cluster's): reading every mainnet block is
  // megabytes a slot, which an operator opts into by configuring it (ADR 0037).
  ...SOLANA_CHAIN_NAMES.map((chain): Task => ({
    name: `watch-slots-${chain}`,
    everyMs: 2_000,
    run: async () => countPayments(chain, rpcWsUrl(chain) ? ((await readSolanaBlocks(chain))?.recorded ?? 0) : 0),
  })),
  // Transfers into the Solana service wallets and the tank's Solana key, for the ledger (reconciliation also catches it up).
  ...SOLANA_CHAIN_NAMES.map((chain): Task => ({
    name: `index-incoming-${chain}`,
    everyMs: 60_000,
    run: async () => (rpcUrl(chain) ? ((await pollSolanaWallets(chain))?.recorded ?? 0) : 0),
  })),
  // The ledger against the chains: every difference is logged as an error (lib/ledger).
  { name: 'reconcile-ledger', everyMs: 10 * 60_000, run: () => reconcileAndReport() },
  // The slow pass over every deposit address ever issued: late payments after the watch window, stray tokens.
  { name: 'audit-deposit-addresses', everyMs: 10 * 60_000, run: async () => (await auditDepositAddresses()).length },
  // Settled, swept, empty EVM deposit addresses back to their merchant's pool, to be leased again (ADR 0038).
  { name: 'release-deposit-addresses', everyMs: 60_000, run: async () => (await releaseDepositAddresses()).released },
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

interface ScheduledTask {
  timer: NodeJS.Timeout;
  /** Runs the task now, or once more right after the run in progress (wakes during a run coalesce into one). */
  wake: () => void;
}

const globalForJobs = globalThis as unknown as {
  __chargeportJobs?: Map<string, ScheduledTask>;
  __chargeportBlockSubscriptions?: BlockSubscriptions;
  __chargeportSlotSubscriptions?: BlockSubscriptions;
};

/** Starts every task on its interval (once per process); `tasks` is for tests. */
export function startScheduler(tasks: Task[] = TASKS): void {
  if (globalForJobs.__chargeportJobs) return;
  globalForJobs.__chargeportJobs = new Map(tasks.map((task) => [task.name, schedule(task)]));
  log.info('background jobs started', { jobs: tasks.map((t) => t.name) });
  // New blocks wake their chain's watcher at once; the interval stays as the fallback and catch-up.
  const watched = new Set(tasks.map((task) => task.name));
  globalForJobs.__chargeportBlockSubscriptions = subscribeToNewBlocks(
    EVM_CHAIN_NAMES.filter((chain) => watched.has(`watch-${chain}`)),
    (chain) => wakeTask(`watch-${chain}`),
  );
  globalForJobs.__chargeportSlotSubscriptions = subscribeToNewSlots(
    SOLANA_CHAIN_NAMES.filter((chain) => watched.has(`watch-slots-${chain}`)),
    (chain) => wakeTask(`watch-slots-${chain}`),
  );
}

function schedule(task: Task): ScheduledTask {
  let running = false;
  let again = false;
  const tick = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        try {
          // A root span per run (lib/tracing.ts): its queries and chain calls are its children.
          const result = await traced(`job ${task.name}`, { attributes: { 'chargeport.job': task.name }, root: true }, () => task.run());
          if (typeof result === 'number' && result > 0) log.info('job done', { job: task.name, count: result });
        } catch (error) {
          log.error('job failed', { job: task.name, error });
        }
      } while (again);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), task.everyMs);
  timer.unref();
  if (task.runAtStart) void tick();
  return { timer, wake: () => void tick() };
}

/**
 * Runs the scheduled task `name` now instead of at its next interval (a new block for its chain). While it
 * runs, further wakes make one more run after it: a block that arrived mid-scan is read, never a queue of
 * runs. False when no such task is scheduled in this process.
 */
export function wakeTask(name: string): boolean {
  const task = globalForJobs.__chargeportJobs?.get(name);
  task?.wake();
  return task !== undefined;
}

export function stopScheduler(): void {
  for (const task of globalForJobs.__chargeportJobs?.values() ?? []) clearInterval(task.timer);
  globalForJobs.__chargeportJobs = undefined;
  globalForJobs.__chargeportBlockSubscriptions?.stop();
  globalForJobs.__chargeportBlockSubscriptions = undefined;
  globalForJobs.__chargeportSlotSubscriptions?.stop();
  globalForJobs.__chargeportSlotSubscriptions = undefined;
}
