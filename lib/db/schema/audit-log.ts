import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { memberRole } from './merchant-members';
import { merchants } from './merchants';
import { users } from './users';

/**
 * Every mutating dashboard action, written in the action's transaction: who (user and role at the
 * time), what (`api_key.create`, `member.invite`, …), on what, in which mode, from where. Owners read it.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    actorUserId: text('actor_user_id').references(() => users.id),
    actorRole: memberRole('actor_role'),
    action: text('action').notNull(),
    targetId: text('target_id'),
    mode: text('mode'),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    ip: text('ip'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('audit_log_merchant_created_idx').on(table.merchantId, table.createdAt.desc(), table.id.desc())],
);

export type AuditEntry = typeof auditLog.$inferSelect;
