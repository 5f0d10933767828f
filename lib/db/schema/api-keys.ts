import { sql } from 'drizzle-orm';
import { index, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { merchants } from './merchants';

export const API_KEY_MODES = ['test', 'live'] as const;
export type ApiKeyMode = (typeof API_KEY_MODES)[number];
/** secret: full server-side key. publishable: safe in a browser, may only create and read charges. */
export const API_KEY_KINDS = ['secret', 'publishable'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

export const apiKeyMode = pgEnum('api_key_mode', API_KEY_MODES);
export const apiKeyKind = pgEnum('api_key_kind', API_KEY_KINDS);

/** API keys are stored only as SHA-256 hashes; `displayPrefix` (e.g. "cp_test_Ab12") lets people recognise one. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    mode: apiKeyMode('mode').notNull(),
    kind: apiKeyKind('kind').notNull().default('secret'),
    name: text('name').notNull().default('Default'),
    hash: text('hash').notNull(),
    displayPrefix: text('display_prefix').notNull(),
    /**
     * Publishable keys only: the browser origins allowed to call with the key (CORS, checked on the
     * server too), and the origins its charges may send buyers back to (successUrl / cancelUrl). Empty:
     * none (lib/api/publishable-origins.ts).
     */
    allowedOrigins: text('allowed_origins')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    allowedRedirectOrigins: text('allowed_redirect_origins')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    /**
     * The dated API version (`2026-11-27`) the key was pinned to by its first authenticated request;
     * null until then. Requests without a Chargeport-Version header get this version
     * (lib/api/resolve-api-version.ts).
     */
    apiVersion: text('api_version'),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [
    // Every authenticated request looks a key up by its hash.
    uniqueIndex('api_keys_hash_idx').on(table.hash),
    index('api_keys_merchant_idx').on(table.merchantId),
  ],
);

export type ApiKey = typeof apiKeys.$inferSelect;
