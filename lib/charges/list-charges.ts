import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { ApiContext } from '@/lib/context';
import { getDb } from '@/lib/db/client';
import { charges, type ChargeRow } from '@/lib/db/schema';
import { AppError, inputExcerpt } from '@/lib/errors';
import type { ListChargesQuery } from './schemas';

/**
 * The key's charges, newest first, in pages. The cursor is a charge id (`starting_after`); pages
 * are cut on (created_at, id) so charges created in the same millisecond are neither lost nor repeated.
 */
export async function listCharges({ ctx, query }: { ctx: ApiContext; query: ListChargesQuery }): Promise<{
  charges: ChargeRow[];
  hasMore: boolean;
}> {
  if (query.mode && query.mode !== ctx.apiKey.mode) {
    throw new AppError(
      query.mode === 'live' ? 'live_key_required' : 'test_key_required',
      `Listing ${query.mode} charges needs a ${query.mode === 'live' ? 'production' : 'test'} key; keys only see their own mode.`,
      { param: 'mode' },
    );
  }
  const db = ctx.tx ?? getDb();
  const conditions: SQL[] = [eq(charges.merchantId, ctx.merchant.id), eq(charges.mode, ctx.apiKey.mode)];
  if (query.status) conditions.push(eq(charges.status, query.status));
  if (query.created_gte) conditions.push(gte(charges.createdAt, query.created_gte));
  if (query.created_lt) conditions.push(lt(charges.createdAt, query.created_lt));
  if (query.starting_after) {
    const [cursor] = await db
      .select({ createdAt: charges.createdAt, id: charges.id })
      .from(charges)
      .where(and(eq(charges.id, query.starting_after), eq(charges.merchantId, ctx.merchant.id), eq(charges.mode, ctx.apiKey.mode)));
    if (!cursor)
      throw new AppError('invalid_request', `starting_after: no charge ${inputExcerpt(query.starting_after)} for this key.`, {
        param: 'starting_after',
      });
    // Compared in SQL against the cursor row: a JS Date would drop the microseconds PostgreSQL keeps,
    // and charges created within the same millisecond would be skipped.
    conditions.push(sql`(${charges.createdAt}, ${charges.id}) < (select c.created_at, c.id from ${charges} c where c.id = ${cursor.id})`);
  }
  const rows = await db
    .select()
    .from(charges)
    .where(and(...conditions))
    .orderBy(desc(charges.createdAt), desc(charges.id))
    .limit(query.limit + 1);
  return { charges: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}
