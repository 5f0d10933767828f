/**
 * The poll queries' partial indexes stay usable in the generic plans PostgreSQL switches prepared
 * statements to: with the status written into the statement the planner can prove the index's
 * condition; with the status as a parameter it cannot (and reads the table, bench:scale's relay at a
 * million deliveries).
 */
import { and, asc, eq, isNull, lte, type SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from './client';
import { charges, fulfilments, payments, webhookDeliveries } from './schema';
import { statusIs } from './status-is';

const literal = (value: unknown) => `'${(value instanceof Date ? value.toISOString() : String(value)).replaceAll("'", "''")}'`;

/** EXPLAIN of the query's generic plan, as a prepared statement gets after its first runs. */
async function genericPlan(query: { toSQL(): { sql: string; params: unknown[] } }): Promise<string> {
  const { sql: text, params } = query.toSQL();
  const db = getDb();
  return db.transaction(async (tx) => {
    await tx.execute('set local plan_cache_mode = force_generic_plan');
    // The test tables are small: without this a sequential scan wins whatever the condition says.
    await tx.execute('set local enable_seqscan = off');
    await tx.execute(`prepare status_literal_probe as ${text}`);
    try {
      const rows = await tx.execute<{ 'QUERY PLAN': string }>(
        `explain execute status_literal_probe${params.length ? `(${params.map(literal).join(', ')})` : ''}`,
      );
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await tx.execute('deallocate status_literal_probe');
    }
  });
}

/** The partial indexes whose condition is on the status: a plan may pick either, depending on the statistics. */
const DELIVERY_STATUS_INDEXES = /webhook_deliveries_(open|chain)_idx/;
const CHARGE_STATUS_INDEXES = /charges_(pending_expiry|open)_idx/;

const waitingDeliveries = (condition: SQL | undefined) =>
  getDb()
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(condition, isNull(webhookDeliveries.jobId)))
    .orderBy(asc(webhookDeliveries.scheduledAt))
    .limit(200);

describe('statusIs', () => {
  it('lets a generic plan use the partial index, where a status parameter does not', async () => {
    expect(await genericPlan(waitingDeliveries(eq(webhookDeliveries.status, 'pending')))).not.toMatch(DELIVERY_STATUS_INDEXES);
    expect(await genericPlan(waitingDeliveries(statusIs(webhookDeliveries.status, 'pending')))).toMatch(DELIVERY_STATUS_INDEXES);
  });

  it('covers the polls: health’s open deliveries, expiry, the scanner’s open payments, due fulfilments', async () => {
    const now = new Date();
    const plans = {
      openDeliveries: await genericPlan(
        getDb()
          .select({ id: webhookDeliveries.id })
          .from(webhookDeliveries)
          .where(and(statusIs(webhookDeliveries.status, 'pending', 'sending'), lte(webhookDeliveries.scheduledAt, now))),
      ),
      expiry: await genericPlan(
        getDb()
          .select({ id: charges.id })
          .from(charges)
          .where(and(statusIs(charges.status, 'pending'), lte(charges.expiresAt, now)))
          .orderBy(asc(charges.expiresAt))
          .limit(200),
      ),
      openPayments: await genericPlan(
        getDb()
          .select({ id: payments.id })
          .from(payments)
          .where(and(eq(payments.chain, 'POLYGON'), statusIs(payments.status, 'pending'))),
      ),
      dueFulfilments: await genericPlan(
        getDb()
          .select({ id: fulfilments.id })
          .from(fulfilments)
          .where(and(statusIs(fulfilments.status, 'pending'), lte(fulfilments.nextAttemptAt, now))),
      ),
    };
    expect(plans.openDeliveries).toMatch(DELIVERY_STATUS_INDEXES);
    expect(plans.expiry).toMatch(CHARGE_STATUS_INDEXES);
    expect(plans.openPayments).toContain('payments_pending_idx');
    expect(plans.dueFulfilments).toContain('fulfilments_due_idx');
  });

  it('writes one value as =, several as in (…), and refuses anything but a status name', () => {
    const text = (condition: SQL) => getDb().select({ id: charges.id }).from(charges).where(condition).toSQL();
    expect(text(statusIs(charges.status, 'pending'))).toMatchObject({ params: [] });
    expect(text(statusIs(charges.status, 'pending')).sql).toContain(`"status" = 'pending'`);
    expect(text(statusIs(charges.status, 'pending', 'processing')).sql).toContain(`"status" in ('pending', 'processing')`);
    expect(() => statusIs(charges.status, "pending' or '1'='1")).toThrow(/not a status name/);
  });
});
