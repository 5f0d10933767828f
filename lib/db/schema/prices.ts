import { numeric, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Last USD price of each priced token (by the feed's id), refreshed in the background by one process and
 * read by every instance: the checkout shows an approximate USD value without waiting on the feed.
 */
export const usdPrices = pgTable('usd_prices', {
  priceId: text('price_id').primaryKey(),
  /** Exact decimal as the feed sent it (never a float round-trip). */
  usd: numeric('usd', { precision: 38, scale: 18 }).notNull(),
  fetchedAt: timestamp('fetched_at', { withTimezone: true, mode: 'date' }).notNull(),
});
