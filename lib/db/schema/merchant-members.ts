import { pgEnum, pgTable, primaryKey, text, timestamp, index } from 'drizzle-orm/pg-core';
import { merchants } from './merchants';
import { users } from './users';

export const MEMBER_ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
export const memberRole = pgEnum('member_role', MEMBER_ROLES);

/** Who may act for a merchant, and as what. A merchant always keeps at least one owner. */
export const merchantMembers = pgTable(
  'merchant_members',
  {
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    role: memberRole('role').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.userId] }), index('merchant_members_user_idx').on(table.userId)],
);
