import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { baseUnits, timestamps } from './columns';
import { merchants } from './merchants';
import { users } from './users';

/**
 * A player's spending allowance (issue 30 point 4, docs/adr/0034-spending-allowances.md): with the PIN once,
 * the user lets one merchant's charges in one token on one chain be paid from their balance without the PIN,
 * up to `amount_per_day_base_units` in any 24 hours, until `expires_at` or `revoked_at`. What was spent is
 * not stored here: the transfer gate sums the allowance's live balance payments (outbound_transfers.authority)
 * under this row's lock, so two purchases cannot both fit in the last of the budget.
 */
export const spendingAllowances = pgTable(
  'spending_allowances',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    chain: text('chain').notNull(),
    tokenAddress: text('token_address').notNull(),
    tokenSymbol: text('token_symbol').notNull(),
    tokenDecimals: integer('token_decimals').notNull(),
    amountPerDayBaseUnits: baseUnits('amount_per_day_base_units').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [
    // The wallet lists a user's allowances; the checkout looks for the one of its merchant.
    index('spending_allowances_user_merchant_idx').on(table.userId, table.merchantId),
  ],
);

export type SpendingAllowanceRow = typeof spendingAllowances.$inferSelect;
