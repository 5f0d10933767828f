/**
 * GET /api/metrics (and the worker's metrics port): the Prometheus text of this process, behind
 * METRICS_TOKEN (`Authorization: Bearer …`). Unset: 404, as if there were no such endpoint; wrong: 401.
 */
import 'server-only';
import { timingSafeEqual } from 'node:crypto';
import { and, count, isNotNull, isNull, lte } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { sweepSchedule } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { checkHealth } from '@/lib/health/check-health';
import { withTimeout } from '@/lib/health/check-readiness';
import { log } from '@/lib/log';
import { gasTankReport } from '@/lib/transactions/gas-tank';
import { metrics } from '@/lib/metrics/metrics';

const GAS_TANK_TTL_MS = 60_000;
let gasTankCache: { at: number; balances: { chain: string; balance: number }[] } | undefined;

export async function metricsResponse(authorization: string | null): Promise<Response> {
  const token = env().METRICS_TOKEN;
  if (!token) return new Response('Not found\n', { status: 404 });
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(authorization ?? '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return new Response('Unauthorized: send Authorization: Bearer <METRICS_TOKEN>\n', {
      status: 401,
      headers: { 'www-authenticate': 'Bearer' },
    });
  }
  await refreshSharedGauges().catch((error: unknown) => log.warn('metrics: shared gauges not refreshed', { error }));
  const { registry } = metrics();
  return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' } });
}

/** Figures every instance reads the same (from PostgreSQL and the chains): scrape them from one, or take max(). */
async function refreshSharedGauges(): Promise<void> {
  const m = metrics();
  const now = new Date();
  const [health, [due], [stuck], gasTank] = await Promise.all([
    checkHealth(),
    getDb()
      .select({ n: count() })
      .from(sweepSchedule)
      .where(and(isNotNull(sweepSchedule.dueAt), lte(sweepSchedule.dueAt, now))),
    getDb()
      .select({ n: count() })
      .from(sweepSchedule)
      .where(and(isNull(sweepSchedule.dueAt), isNotNull(sweepSchedule.stuckAt))),
    gasTankBalances(),
  ]);
  m.queueDepth.reset();
  if (health.queue.queued !== null) m.queueDepth.set({ state: 'queued' }, health.queue.queued);
  if (health.queue.ready !== null) m.queueDepth.set({ state: 'ready' }, health.queue.ready);
  m.watcherLag.reset();
  for (const [chain, report] of Object.entries(health.chains)) {
    if (report.lagBlocks !== null) m.watcherLag.set({ chain }, report.lagBlocks);
  }
  m.sweepBacklog.set({ state: 'due' }, due?.n ?? 0);
  m.sweepBacklog.set({ state: 'stuck' }, stuck?.n ?? 0);
  m.gasTankBalance.reset();
  for (const { chain, balance } of gasTank) m.gasTankBalance.set({ chain }, balance);
}

/** RPC reads, so cached for a minute and bounded in time; none without DEPOSIT_HD_SEED. */
async function gasTankBalances(): Promise<{ chain: string; balance: number }[]> {
  if (!env().DEPOSIT_HD_SEED) return [];
  if (gasTankCache && Date.now() - gasTankCache.at < GAS_TANK_TTL_MS) return gasTankCache.balances;
  const report = await withTimeout(gasTankReport(), 3_000).catch(() => undefined);
  if (!report) return gasTankCache?.balances ?? [];
  const balances = report.chains.flatMap((c) => (c.balance === null ? [] : [{ chain: c.chain, balance: Number(c.balance) }]));
  gasTankCache = { at: Date.now(), balances };
  return balances;
}
