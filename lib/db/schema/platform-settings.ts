import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Facts about the deployment that tools read before touching its data (lib/admin/server-start.ts):
 * 'last_server_start' holds the master key id and the production flag of the last server or production
 * worker that started against this database.
 */
export const platformSettings = pgTable('platform_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').$type<Record<string, unknown>>().notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
