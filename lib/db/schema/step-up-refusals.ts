import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants';
import { users } from './users';

/**
 * Every refused step-up (issue 26): a money move or ownership change tried without the factor it
 * needs — no PIN or passkey, a wrong one, a factor still cooling down, no two-factor sign-in, a wrong
 * e-mail code. Written in its own transaction (the refused action's rolls back), with the account, and
 * for a merchant action the merchant. `notified` marks the one refusal per account and action per
 * REFUSAL_NOTICE_INTERVAL that was e-mailed (lib/accounts/reporting-refusal.ts): the rows are the
 * throttle, shared by every server process. Never a secret: the reason is the error code.
 */
export const stepUpRefusals = pgTable(
  'step_up_refusals',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    merchantId: text('merchant_id').references(() => merchants.id),
    /** What was tried (StepUpAction: `withdrawal`, `passkey_add`, …). */
    action: text('action').notNull(),
    /** Why it was refused: the AppError code (`step_up_required`, `pin_incorrect`, `factor_cooling_down`, …). */
    reason: text('reason').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    notified: boolean('notified').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  // The throttle's question: was this account e-mailed about this action in the last 15 minutes?
  (table) => [index('step_up_refusals_user_action_idx').on(table.userId, table.action, table.createdAt.desc())],
);

export type StepUpRefusal = typeof stepUpRefusals.$inferSelect;
