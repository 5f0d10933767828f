import { index, integer, numeric, pgEnum, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { SANDBOX_SESSION_STATUSES, type SandboxSessionStatus } from '@/lib/sandbox-provider/state';
import { baseUnits, timestamps } from './columns';

/**
 * The sandbox on-ramp provider's own state (lib/sandbox-provider). It plays a separate company,
 * so nothing here references Chargeport's tables: the partner's order id is plain text, as a real
 * provider would store it.
 */
export type { SandboxSessionStatus };
export const sandboxSessionStatus = pgEnum('sandbox_session_status', SANDBOX_SESSION_STATUSES);

export const SANDBOX_PAYMENT_METHODS = ['card', 'bank_transfer', 'apple_pay', 'google_pay'] as const;
export type SandboxPaymentMethod = (typeof SANDBOX_PAYMENT_METHODS)[number];

/** One checkout at the provider: what is bought, how it was paid, and the delivery. */
export const sandboxProviderSessions = pgTable(
  'sandbox_provider_sessions',
  {
    id: text('id').primaryKey(),
    partnerOrderId: text('partner_order_id').notNull(),
    chain: text('chain').notNull(),
    tokenSymbol: text('token_symbol').notNull(),
    tokenDecimals: integer('token_decimals').notNull(),
    cryptoBaseUnits: baseUnits('crypto_base_units').notNull(),
    walletAddress: text('wallet_address').notNull(),
    fiatCurrency: text('fiat_currency').notNull(),
    /** The quoted total the buyer pays, exact decimal text in the fiat currency. */
    fiatAmount: numeric('fiat_amount', { precision: 30, scale: 8, mode: 'string' }).notNull(),
    /** The partner's preselected method: the screen's default tab. */
    paymentMethod: text('payment_method').$type<SandboxPaymentMethod>().notNull(),
    country: text('country').notNull(),
    redirectUrl: text('redirect_url').notNull(),
    email: text('email'),
    /** The provider this session stands in for on the partner's side (e.g. "MoonPay"), shown on the screen. */
    standingInFor: text('standing_in_for'),
    status: sandboxSessionStatus('status').notNull().default('open'),
    /** The method the buyer actually paid with, and the card's last four digits (nothing else of a card is kept). */
    paidWith: text('paid_with').$type<SandboxPaymentMethod>(),
    cardLast4: text('card_last4'),
    failureReason: text('failure_reason'),
    /** Set once by whoever claims the delivery, so the tokens go out at most once. */
    deliveryStartedAt: timestamp('delivery_started_at', { withTimezone: true, mode: 'date' }),
    txHash: text('tx_hash'),
    /** The payment screen stops taking payments at this time. */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    ...timestamps,
  },
  // A partner retrying a checkout for the same order gets its open session back: looked up by order id.
  (table) => [index('sandbox_provider_sessions_partner_order_idx').on(table.partnerOrderId)],
);

export type SandboxProviderSessionRow = typeof sandboxProviderSessions.$inferSelect;
