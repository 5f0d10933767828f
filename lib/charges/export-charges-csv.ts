/**
 * CSV export of the Charges tab: every charge matching the same filters as the list (one merchant,
 * one mode), newest first, produced page by page so an export of any size streams in constant memory.
 *
 * Columns: id, created_at, status, chain, token, amount (exact decimal), mode, metadata (JSON),
 * succeeded_at (from the timeline), tx_hashes (the transfers seen into the charge, space separated).
 * Cells are escaped by lib/csv.ts (quotes, commas, line breaks, formula injection).
 */
import { and, asc, eq, inArray, min } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { chargeEvents, payments } from '@/lib/db/schema';
import { csvRow } from '@/lib/csv';
import { authorizeMember } from '@/lib/merchants/permissions';
import type { DashboardChargeFilters } from './dashboard-filters';
import { selectDashboardCharges, toListItem, type DashboardMemberInput } from './list-dashboard-charges';

const EXPORT_BATCH_SIZE = 500;
export const EXPORT_COLUMNS = [
  'id',
  'created_at',
  'status',
  'chain',
  'token',
  'amount',
  'mode',
  'metadata',
  'succeeded_at',
  'tx_hashes',
] as const;

/**
 * Authorizes first (so a refusal is an error, not a broken download), then returns the CSV text as
 * chunks: the header, then one chunk per batch of rows.
 */
export async function exportChargesCsv(
  input: DashboardMemberInput & { filters: DashboardChargeFilters; batchSize?: number },
): Promise<AsyncGenerator<string>> {
  const db = getDb();
  await authorizeMember(db, { userId: input.userId, merchantId: input.merchantId, permission: 'dashboard.view' });
  return generateRows(db, input, input.batchSize ?? EXPORT_BATCH_SIZE);
}

async function* generateRows(
  db: DbOrTx,
  input: DashboardMemberInput & { filters: DashboardChargeFilters },
  batchSize: number,
): AsyncGenerator<string> {
  yield csvRow(EXPORT_COLUMNS);
  let afterId: string | undefined;
  for (;;) {
    const rows = await selectDashboardCharges(db, { ...input, afterId, limit: batchSize });
    if (rows.length === 0) return;
    const ids = rows.map((row) => row.id);
    const [succeeded, transfers] = await Promise.all([
      db
        .select({ chargeId: chargeEvents.chargeId, at: min(chargeEvents.createdAt) })
        .from(chargeEvents)
        .where(and(inArray(chargeEvents.chargeId, ids), eq(chargeEvents.type, 'charge.succeeded')))
        .groupBy(chargeEvents.chargeId),
      db
        .select({ chargeId: payments.chargeId, txHash: payments.txHash })
        .from(payments)
        .where(inArray(payments.chargeId, ids))
        .orderBy(asc(payments.createdAt), asc(payments.id)),
    ]);
    const succeededAt = new Map(succeeded.map((row) => [row.chargeId, row.at]));
    const hashes = new Map<string, string[]>();
    for (const { chargeId, txHash } of transfers) {
      const list = hashes.get(chargeId) ?? [];
      if (!list.includes(txHash)) list.push(txHash);
      hashes.set(chargeId, list);
    }
    yield rows
      .map((row) => {
        const item = toListItem(row);
        return csvRow([
          item.id,
          item.createdAt.toISOString(),
          item.status,
          item.chain,
          item.tokenSymbol,
          item.amount,
          row.mode,
          JSON.stringify(item.metadata),
          toIso(succeededAt.get(row.id)),
          (hashes.get(row.id) ?? []).join(' '),
        ]);
      })
      .join('');
    if (rows.length < batchSize) return;
    afterId = rows.at(-1)!.id;
  }
}

/** min() over a timestamp comes back as a Date or, through some drivers, as text. */
function toIso(value: Date | string | null | undefined): string | undefined {
  if (!value) return undefined;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
