/**
 * The full health report (GET /api/health): readiness (database, migrations), each chain — reachable, and how
 * many blocks its watcher is behind (the chain's head − the watcher's cursor in chain_cursors; on Solana the head
 * is the slot, and a watcher that keeps its cursors per deposit address shows no lag) — the pg-boss
 * queue depth, and how old the oldest webhook work waiting is.
 *
 * Chain probes are cached a few seconds, so a monitoring or load-balancer probe cannot flood the nodes; the
 * database figures are read on every call (each one indexed: small whatever the history).
 */
import { and, eq, isNull, lte, min } from 'drizzle-orm';
import { CHAIN_NAMES, CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb, getSql } from '@/lib/db/client';
import { scannerCursors, webhookDeliveries, webhookEvents } from '@/lib/db/schema';
import { rpcUrls } from '@/lib/env';
import { PGBOSS_SCHEMA } from '@/lib/webhooks/queue';
import { smartAccountStatuses } from '@/lib/smart-accounts/smart-account-status';
import { checkReadiness, withTimeout } from './check-readiness';
import type { ChainHealth, HealthReport } from './schemas';
import { statusIs } from '@/lib/db/status-is';

const CHAIN_CHECK_TTL_MS = 5_000;
const TIMEOUT_MS = 2_000;

type ChainProbe = Pick<ChainHealth, 'status' | 'head'>;
let probeCache: { at: number; probes: Record<ChainName, ChainProbe> } | undefined;

export async function checkHealth(): Promise<HealthReport> {
  const [readiness, probes, smartAccounts] = await Promise.all([checkReadiness(), probeChainsCached(), smartAccountsOrUnknown()]);
  const figures = readiness.db === 'ok' ? await readFigures().catch(() => undefined) : undefined;
  const chains = Object.fromEntries(
    CHAIN_NAMES.map((chain) => {
      const probe = probes[chain];
      // A chain not served has no watcher: a cursor left from an earlier configuration would be stale.
      const cursor = probe.status === 'not_configured' ? null : (figures?.cursors.get(chain) ?? null);
      const lagBlocks = probe.head !== null && cursor !== null ? Math.max(0, probe.head - cursor) : null;
      return [chain, { ...probe, cursor, lagBlocks }];
    }),
  ) as Record<ChainName, ChainHealth>;
  const anyChainUnreachable = Object.values(chains).some((chain) => chain.status === 'unreachable');
  return {
    status: readiness.status !== 'ready' ? 'down' : anyChainUnreachable ? 'degraded' : 'ok',
    db: readiness.db,
    migrations: readiness.migrations,
    chains,
    queue: figures?.queue ?? { queued: null, ready: null },
    smartAccounts,
    webhooks: figures?.webhooks ?? { oldestDueDeliverySeconds: null, oldestUnrelayedEventSeconds: null },
  };
}

/** The gas path of each chain (lib/smart-accounts/smart-account-status.ts); a check that does not answer in time reads as the fallback, as the sweeper would take. */
async function smartAccountsOrUnknown(): Promise<HealthReport['smartAccounts']> {
  const statuses = await withTimeout(smartAccountStatuses(), TIMEOUT_MS).catch(() => undefined);
  return Object.fromEntries(
    CHAIN_NAMES.map((chain) => {
      const status = statuses?.find((s) => s.chain === chain);
      return [chain, status ? { path: status.path, reason: status.reason } : { path: 'topup', reason: 'the check did not answer in time' }];
    }),
  ) as HealthReport['smartAccounts'];
}

async function readFigures() {
  const db = getDb();
  const now = new Date();
  const [cursorRows, queue, [due], [outbox]] = await withTimeout(
    Promise.all([
      // The charge watcher's cursor: how far behind the chain payments are seen.
      db
        .select({ chain: scannerCursors.chain, lastBlock: scannerCursors.lastBlock })
        .from(scannerCursors)
        .where(eq(scannerCursors.consumer, 'charges')),
      queueDepth(),
      // Matches webhook_deliveries_open_idx (status in pending, sending).
      db
        .select({ oldest: min(webhookDeliveries.scheduledAt) })
        .from(webhookDeliveries)
        .where(and(statusIs(webhookDeliveries.status, 'pending', 'sending'), lte(webhookDeliveries.scheduledAt, now))),
      // Matches webhook_events_unrelayed_idx.
      db
        .select({ oldest: min(webhookEvents.createdAt) })
        .from(webhookEvents)
        .where(isNull(webhookEvents.relayedAt)),
    ]),
    TIMEOUT_MS,
  );
  const ageSeconds = (at: Date | null | undefined) => (at ? Math.max(0, Math.round((now.getTime() - at.getTime()) / 1000)) : null);
  return {
    cursors: new Map(cursorRows.map((row) => [row.chain, Number(row.lastBlock)])),
    queue,
    webhooks: { oldestDueDeliverySeconds: ageSeconds(due?.oldest), oldestUnrelayedEventSeconds: ageSeconds(outbox?.oldest) },
  };
}

/** Jobs waiting in pg-boss (any queue); null until pg-boss has created its schema. */
async function queueDepth(): Promise<{ queued: number | null; ready: number | null }> {
  const sqlClient = getSql();
  const [schema] = await sqlClient`select to_regclass(${`${PGBOSS_SCHEMA}.job`}) is not null as present`;
  if (!schema?.present) return { queued: null, ready: null };
  // "state < 'active'" and "not blocked": pg-boss's own fetch index (job_i11) covers exactly these rows.
  const [row] = await sqlClient.unsafe(
    `select count(*)::int as queued, (count(*) filter (where start_after <= now()))::int as ready
       from ${PGBOSS_SCHEMA}.job where state < 'active' and not blocked`,
  );
  return { queued: Number(row?.queued ?? 0), ready: Number(row?.ready ?? 0) };
}

async function probeChainsCached(): Promise<Record<ChainName, ChainProbe>> {
  if (probeCache && Date.now() - probeCache.at < CHAIN_CHECK_TTL_MS) return probeCache.probes;
  const entries = await Promise.all(CHAIN_NAMES.map(async (chain) => [chain, await probeChain(chain)] as const));
  probeCache = { at: Date.now(), probes: Object.fromEntries(entries) as Record<ChainName, ChainProbe> };
  return probeCache.probes;
}

async function probeChain(chain: ChainName): Promise<ChainProbe> {
  const urls = rpcUrls(chain);
  if (!urls.length) return { status: 'not_configured', head: null };
  // Several URLs fail over (lib/chains/clients.ts): the chain is reachable when one of them answers.
  for (const url of urls) {
    const probe = await probeUrl(chain, url);
    if (probe.status === 'ok') return probe;
  }
  return { status: 'unreachable', head: null };
}

async function probeUrl(chain: ChainName, url: string): Promise<ChainProbe> {
  const isEvm = CHAINS[chain].family === 'evm';
  const health = await rpcCall(url, isEvm ? 'eth_blockNumber' : 'getHealth');
  if (health === undefined) return { status: 'unreachable', head: null };
  if (isEvm) return { status: 'ok', head: typeof health === 'string' ? Number(BigInt(health)) : null };
  // Solana: healthy, and its head is the slot (a node that will not tell is still reachable).
  const slot = await rpcCall(url, 'getSlot');
  return { status: 'ok', head: typeof slot === 'number' ? slot : null };
}

/** One JSON-RPC call's result; undefined when the node does not answer, answers an error or no result. */
async function rpcCall(url: string, method: string): Promise<unknown> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const payload = (await response.json()) as { result?: unknown; error?: unknown };
    if (!response.ok || payload.result === undefined || payload.error) return undefined;
    return payload.result;
  } catch {
    return undefined;
  }
}

/** Tests switch chains on and off. */
export function clearHealthCache(): void {
  probeCache = undefined;
}
