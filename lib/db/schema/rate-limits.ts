import { bigint, integer, pgTable, text, timestamp, varchar } from 'drizzle-orm/pg-core';

/** Counters of rate-limiter-flexible's RateLimiterDrizzle (column names are the library's). */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  points: integer('points').notNull().default(0),
  expire: timestamp('expire', { withTimezone: true, mode: 'date' }),
});

/**
 * Counters of the merchant API's per-key limit (lib/rate-limit/api-rate-limit.ts): rate-limiter-flexible's
 * RateLimiterPostgres layout (expire in epoch milliseconds), which it queries with one prepared
 * statement per request — cheaper on the API's hot path than the drizzle store above. The table is
 * UNLOGGED (migration 0021; drizzle-kit has no notation for it): no WAL flush per API call, and the
 * counters restart from zero after a database crash.
 */
export const apiRateLimits = pgTable('api_rate_limits', {
  key: varchar('key', { length: 255 }).primaryKey(),
  points: integer('points').notNull().default(0),
  expire: bigint('expire', { mode: 'number' }),
});
