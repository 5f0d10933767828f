/**
 * The dashboard's Overview: succeeded charges of the last 30 days (count and volume per day) and the
 * most recent charges, for one merchant and mode.
 *
 *  - Days are UTC calendar days of the charge's creation, as in the Charges list's date filter. (A
 *    charge's creation is indexed per merchant and mode; the day it succeeded is on its timeline,
 *    usually within the hour — the CSV export carries it.)
 *  - Volume is per token (chain + token): different tokens are never added together. Sums are
 *    exact: PostgreSQL adds the NUMERIC base units, read back as bigint.
 *  - A USD figure is given only for USD stablecoins (registry `usdPegged`), whose value is their
 *    amount; other tokens' USD value changes with the price and is not summed over time.
 */
import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import { CHAINS, findToken, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';
import { authorizeMember } from '@/lib/merchants/permissions';
import { multiplyToCents } from '@/lib/pricing/approximate-usd';
import { toListItem, type DashboardChargeListItem, type DashboardMemberInput } from './list-dashboard-charges';

const OVERVIEW_DAYS = 30;
const RECENT_CHARGES = 10;
const DAY_MS = 86_400_000;

interface DailyTokenVolume {
  /** YYYY-MM-DD (UTC). */
  day: string;
  count: number;
  volumeBaseUnits: bigint;
  /** Exact decimal text. */
  volume: string;
}

interface TokenSeries {
  chain: ChainName;
  chainDisplayName: string;
  tokenSymbol: string;
  tokenAddress: string;
  decimals: number;
  /** One entry per day of the window, oldest first, zeros included. */
  days: DailyTokenVolume[];
  count: number;
  volumeBaseUnits: bigint;
  volume: string;
  /** "1234.56" for USD stablecoins; undefined for tokens without a fixed USD value. */
  usd?: string;
}

export interface DashboardOverview {
  /** The window's days, oldest first (YYYY-MM-DD, UTC). */
  days: string[];
  /** Succeeded charges per day, all tokens (a count can be added up across tokens). */
  dailyCounts: { day: string; count: number }[];
  succeededCount: number;
  series: TokenSeries[];
  recent: DashboardChargeListItem[];
}

export async function getDashboardOverview(input: DashboardMemberInput & { now?: Date }): Promise<DashboardOverview> {
  const db = getDb();
  await authorizeMember(db, { userId: input.userId, merchantId: input.merchantId, permission: 'dashboard.view' });
  const days = windowDays(input.now ?? new Date());
  const from = new Date(`${days[0]}T00:00:00Z`);
  const to = new Date(new Date(`${days.at(-1)}T00:00:00Z`).getTime() + DAY_MS);
  const scope = [eq(charges.merchantId, input.merchantId), eq(charges.mode, input.mode)];

  const day = sql<string>`to_char(${charges.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const [rows, recentRows] = await Promise.all([
    db
      .select({
        day,
        chain: charges.chain,
        tokenAddress: charges.tokenAddress,
        tokenSymbol: charges.tokenSymbol,
        decimals: charges.tokenDecimals,
        count: sql<number>`count(*)::int`,
        volume: sql<string>`sum(${charges.totalBaseUnits})::text`,
      })
      .from(charges)
      .where(and(...scope, eq(charges.status, 'succeeded'), gte(charges.createdAt, from), lt(charges.createdAt, to)))
      .groupBy(day, charges.chain, charges.tokenAddress, charges.tokenSymbol, charges.tokenDecimals),
    db
      .select()
      .from(charges)
      .where(and(...scope))
      .orderBy(desc(charges.createdAt), desc(charges.id))
      .limit(RECENT_CHARGES),
  ]);

  const byToken = new Map<string, typeof rows>();
  for (const row of rows) {
    const key = `${row.chain}\u0000${row.tokenAddress}`;
    byToken.set(key, [...(byToken.get(key) ?? []), row]);
  }
  const series = [...byToken.values()].map((tokenRows) => buildSeries(days, tokenRows));
  series.sort((a, b) => b.count - a.count || a.chain.localeCompare(b.chain) || a.tokenSymbol.localeCompare(b.tokenSymbol));

  const dailyCounts = days.map((d) => ({ day: d, count: rows.filter((row) => row.day === d).reduce((sum, row) => sum + row.count, 0) }));
  return {
    days,
    dailyCounts,
    succeededCount: dailyCounts.reduce((sum, entry) => sum + entry.count, 0),
    series,
    recent: recentRows.map(toListItem),
  };
}

/** The last OVERVIEW_DAYS UTC days up to and including `now`'s, oldest first. */
export function windowDays(now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: OVERVIEW_DAYS }, (_, i) => new Date(today - (OVERVIEW_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

function buildSeries(
  days: string[],
  rows: { day: string; chain: string; tokenAddress: string; tokenSymbol: string; decimals: number; count: number; volume: string }[],
): TokenSeries {
  const first = rows[0]!;
  const chain = first.chain as ChainName;
  const info = CHAINS[chain];
  const daily = days.map((d) => {
    const row = rows.find((r) => r.day === d);
    const volumeBaseUnits = row ? BigInt(row.volume) : 0n;
    return { day: d, count: row?.count ?? 0, volumeBaseUnits, volume: formatAmount(volumeBaseUnits, first.decimals) };
  });
  const volumeBaseUnits = daily.reduce((sum, entry) => sum + entry.volumeBaseUnits, 0n);
  const token = info ? findToken(info, first.tokenAddress) : undefined;
  return {
    chain,
    chainDisplayName: info?.displayName ?? first.chain,
    tokenSymbol: first.tokenSymbol,
    tokenAddress: first.tokenAddress,
    decimals: first.decimals,
    days: daily,
    count: daily.reduce((sum, entry) => sum + entry.count, 0),
    volumeBaseUnits,
    volume: formatAmount(volumeBaseUnits, first.decimals),
    ...(token?.usdPegged ? { usd: multiplyToCents(volumeBaseUnits, first.decimals, '1') } : {}),
  };
}
