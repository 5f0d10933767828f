/**
 * The dashboard's Charges tab: a member's view of the merchant's charges of one mode (the test/live
 * switch), newest first, filtered, in pages.
 *
 *  - Every query is scoped by merchant and mode: test data never shows in live, nor the reverse.
 *  - Pages are cut on (created_at, id), compared in SQL against the cursor row itself, so charges
 *    created in the same instant (timestamps have microseconds, JS dates only milliseconds) are
 *    neither lost nor repeated.
 *  - Search is exact (dashboard-filters.ts parseChargeSearch): a charge id by primary key, metadata by
 *    jsonb containment (`@>`) or a jsonb path with the value as a bound variable — never text
 *    matching on the serialized document. Both run on the rows of the (merchant, mode, created_at)
 *    index range, not on other merchants' charges.
 *  - Amounts are exact decimal text (formatAmount), never floats.
 */
import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, type ApiKeyMode, type ChargeRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { authorizeMember } from '@/lib/merchants/permissions';
import { createdRange, parseChargeSearch, type DashboardChargeFilters } from './dashboard-filters';
import type { ChargeStatus } from './state';

const DASHBOARD_PAGE_SIZE = 25;

export interface DashboardChargeListItem {
  id: string;
  createdAt: Date;
  status: ChargeStatus;
  chain: ChainName;
  chainDisplayName: string;
  tokenSymbol: string;
  tokenDecimals: number;
  totalBaseUnits: bigint;
  /** Exact decimal text of the total. */
  amount: string;
  metadata: Record<string, string>;
  /** A payment of it left the chain after it succeeded (charge.payment_reversed, docs/adr/0036): a human decides. */
  needsReview: boolean;
}

export interface DashboardMemberInput {
  userId: string;
  merchantId: string;
  mode: ApiKeyMode;
}

export async function listChargesForDashboard(
  input: DashboardMemberInput & { filters: DashboardChargeFilters; cursor?: string; limit?: number },
): Promise<{ charges: DashboardChargeListItem[]; nextCursor?: string }> {
  const db = getDb();
  await authorizeMember(db, { userId: input.userId, merchantId: input.merchantId, permission: 'dashboard.view' });
  const limit = input.limit ?? DASHBOARD_PAGE_SIZE;
  if (input.cursor) {
    const [known] = await db
      .select({ id: charges.id })
      .from(charges)
      .where(and(eq(charges.id, input.cursor), eq(charges.merchantId, input.merchantId), eq(charges.mode, input.mode)));
    if (!known)
      throw new AppError('invalid_request', 'This page link is no longer valid: start again from the first page.', { param: 'after' });
  }
  const rows = await selectDashboardCharges(db, { ...input, limit: limit + 1, afterId: input.cursor });
  const page = rows.slice(0, limit);
  return { charges: page.map(toListItem), ...(rows.length > limit ? { nextCursor: page.at(-1)!.id } : {}) };
}

/**
 * One page of the merchant's charges of the mode matching the filters, after `afterId` (a charge of
 * the same merchant and mode; the caller checks it). No authorization here: callers authorize first.
 */
export async function selectDashboardCharges(
  db: DbOrTx,
  input: { merchantId: string; mode: ApiKeyMode; filters: DashboardChargeFilters; afterId?: string; limit: number },
): Promise<ChargeRow[]> {
  const conditions = dashboardChargeConditions(input);
  if (input.afterId) {
    const cursor = db
      .select({ createdAt: charges.createdAt, id: charges.id })
      .from(charges)
      .where(and(eq(charges.id, input.afterId), eq(charges.merchantId, input.merchantId), eq(charges.mode, input.mode)));
    // Row comparison against the cursor row as stored (microseconds included), newest first.
    conditions.push(sql`(${charges.createdAt}, ${charges.id}) < (select "created_at", "id" from (${cursor}) as "cursor")`);
  }
  return db
    .select()
    .from(charges)
    .where(and(...conditions))
    .orderBy(desc(charges.createdAt), desc(charges.id))
    .limit(input.limit);
}

function dashboardChargeConditions(input: { merchantId: string; mode: ApiKeyMode; filters: DashboardChargeFilters }): SQL[] {
  const { filters } = input;
  const conditions: SQL[] = [eq(charges.merchantId, input.merchantId), eq(charges.mode, input.mode)];
  if (filters.status) conditions.push(eq(charges.status, filters.status));
  if (filters.chain) conditions.push(eq(charges.chain, filters.chain));
  if (filters.token) conditions.push(sql`upper(${charges.tokenSymbol}) = upper(${filters.token})`);
  const range = createdRange(filters);
  if (range.gte) conditions.push(gte(charges.createdAt, range.gte));
  if (range.lt) conditions.push(lt(charges.createdAt, range.lt));
  if (filters.q) conditions.push(searchCondition(filters.q));
  return conditions;
}

function searchCondition(q: string): SQL {
  const search = parseChargeSearch(q);
  switch (search.kind) {
    case 'id':
      return eq(charges.id, search.id);
    case 'metadata':
      // jsonb containment with a bound jsonb document: {"orderId": "1001"}.
      return sql`${charges.metadata} @> ${JSON.stringify({ [search.key]: search.value })}::jsonb`;
    case 'metadataValue':
      // Any top-level value equal to the search; the value is a bound path variable, not path text.
      return sql`jsonb_path_exists(${charges.metadata}, '$.* ? (@ == $value)', jsonb_build_object('value', ${search.value}::text))`;
  }
}

export function toListItem(row: ChargeRow): DashboardChargeListItem {
  const chain = row.chain as ChainName;
  return {
    id: row.id,
    createdAt: row.createdAt,
    status: row.status,
    chain,
    chainDisplayName: CHAINS[chain]?.displayName ?? row.chain,
    tokenSymbol: row.tokenSymbol,
    tokenDecimals: row.tokenDecimals,
    totalBaseUnits: row.totalBaseUnits,
    amount: formatAmount(row.totalBaseUnits, row.tokenDecimals),
    metadata: row.metadata,
    needsReview: row.needsReviewSince !== null,
  };
}
