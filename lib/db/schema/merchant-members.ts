import { sql } from 'drizzle-orm';
import { pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
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
    /**
     * When another member made this one an owner (invitation as owner, or promotion): withdrawals wait
     * OWNER_WITHDRAWAL_HOLD_HOURS from then (lib/merchants/withdrawal-hold.ts). Null for the founding owner.
     */
    ownerSince: timestamp('owner_since', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.merchantId, table.userId] }),
    // An account belongs to one merchant (the dashboard shows one): the database holds it, so two
    // concurrent acceptances or sign-ups cannot put a user in two merchants.
    uniqueIndex('merchant_members_one_merchant_per_user_idx').on(table.userId),
  ],
);

/**
 * An invitation to join a merchant, by e-mail. The link carries a random token; only its SHA-256 is
 * stored. Valid 7 days, once, for the invited address only. At most one open invitation per address.
 */
export const merchantInvitations = pgTable(
  'merchant_invitations',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    email: text('email').notNull(),
    role: memberRole('role').notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedByUserId: text('invited_by_user_id')
      .notNull()
      .references(() => users.id),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('merchant_invitations_token_idx').on(table.tokenHash),
    uniqueIndex('merchant_invitations_open_idx')
      .on(table.merchantId, table.email)
      .where(sql`${table.acceptedAt} is null and ${table.revokedAt} is null`),
  ],
);

export type MerchantInvitation = typeof merchantInvitations.$inferSelect;
