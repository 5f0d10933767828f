import { and, desc, eq, gte, lt, ne, or, type SQL } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { webhookEvents, type WebhookEventRow } from '@/lib/db/schema';
import { AppError, inputExcerpt } from '@/lib/errors';
import { TEST_EVENT_TYPE } from './event-types';
import type { WebhookOwner } from './get-webhook-endpoint';
import type { ListEventsQuery } from './schemas';

/**
 * The owner's webhook events, newest first, in pages — how a merchant reconciles deliveries it
 * missed. Every event is here whether or not an endpoint received it. The cursor is an event id
 * (`starting_after`); pages are cut on (created_at, id) so nothing is lost or repeated. Dashboard
 * test events are not listed: they carry no charge and there is nothing to reconcile.
 */
export async function listEvents({ owner, query }: { owner: WebhookOwner; query: ListEventsQuery }): Promise<{
  events: WebhookEventRow[];
  hasMore: boolean;
}> {
  const db = getDb();
  const conditions: SQL[] = [
    eq(webhookEvents.merchantId, owner.merchantId),
    eq(webhookEvents.mode, owner.mode),
    ne(webhookEvents.type, TEST_EVENT_TYPE),
  ];
  if (query.type) conditions.push(eq(webhookEvents.type, query.type));
  if (query.created_gte) conditions.push(gte(webhookEvents.createdAt, query.created_gte));
  if (query.created_lt) conditions.push(lt(webhookEvents.createdAt, query.created_lt));
  if (query.starting_after) {
    const [cursor] = await db
      .select({ createdAt: webhookEvents.createdAt, id: webhookEvents.id })
      .from(webhookEvents)
      .where(
        and(eq(webhookEvents.id, query.starting_after), eq(webhookEvents.merchantId, owner.merchantId), eq(webhookEvents.mode, owner.mode)),
      );
    if (!cursor)
      throw new AppError('invalid_request', `starting_after: no event ${inputExcerpt(query.starting_after)} for this key.`, {
        param: 'starting_after',
      });
    conditions.push(
      or(
        lt(webhookEvents.createdAt, cursor.createdAt),
        and(eq(webhookEvents.createdAt, cursor.createdAt), lt(webhookEvents.id, cursor.id)),
      )!,
    );
  }
  const rows = await db
    .select()
    .from(webhookEvents)
    .where(and(...conditions))
    .orderBy(desc(webhookEvents.createdAt), desc(webhookEvents.id))
    .limit(query.limit + 1);
  return { events: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}
