import { integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { apiKeyKind, apiKeyMode } from './api-keys';
import { merchants } from './merchants';

/**
 * Idempotency-Key records. The primary key doubles as the lock: a second request with the same key
 * blocks on the insert until the first one's transaction commits, then reads its stored response.
 * Only successful responses are stored (a failed request stores nothing), so a retry after a
 * failure runs again. Rows are kept at least 24 h (see lib/api/idempotency.ts).
 *
 * A key is scoped by merchant, mode and key kind: a test key sending a live key's Idempotency-Key
 * (same body, no `isTest`) must make its own test charge, never get the live response back.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    mode: apiKeyMode('mode').notNull(),
    keyKind: apiKeyKind('key_kind').notNull(),
    key: text('key').notNull(),
    /** The operation and SHA-256 of the canonical request body: same key + other request → 409. */
    requestHash: text('request_hash').notNull(),
    responseStatus: integer('response_status').notNull(),
    responseBody: jsonb('response_body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.mode, table.keyKind, table.key] })],
);
