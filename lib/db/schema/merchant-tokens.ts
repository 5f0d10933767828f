import { boolean, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants';

/**
 * A merchant's token settings (the Tokens tab). Registry tokens are accepted unless a row disables
 * them; custom ERC-20s are rows with `isCustom`, their symbol and decimals read from the chain when
 * added. `address` is stored lower-case (EVM) so lookups are exact.
 */
export const merchantTokens = pgTable(
  'merchant_tokens',
  {
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    chain: text('chain').notNull(),
    address: text('address').notNull(),
    symbol: text('symbol').notNull(),
    name: text('name').notNull(),
    decimals: integer('decimals').notNull(),
    isCustom: boolean('is_custom').notNull().default(false),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.chain, table.address] })],
);

export type MerchantTokenRow = typeof merchantTokens.$inferSelect;
