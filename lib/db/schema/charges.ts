import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgEnum, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { CHARGE_STATUSES } from '@/lib/charges/state';
import { apiKeyMode, apiKeys } from './api-keys';
import { baseUnits, timestamps } from './columns';
import { merchants } from './merchants';
import { spendingAllowances } from './spending-allowances';

export const chargeStatus = pgEnum('charge_status', CHARGE_STATUSES);

/** Where the paid tokens end: the merchant's service wallet, a user wallet (toAddress), or an external wallet. */
export const CHARGE_DESTINATIONS = ['merchant_wallet', 'to_address', 'direct_transfer'] as const;
export type ChargeDestination = (typeof CHARGE_DESTINATIONS)[number];
export const chargeDestination = pgEnum('charge_destination', CHARGE_DESTINATIONS);

/** One line of a charge, as stored: the decimal the merchant sent and its exact base units. */
export interface StoredChargeItem {
  name: string;
  image?: string;
  amount: string;
  quantity: number;
  unitBaseUnits: string;
  lineTotalBaseUnits: string;
}

/**
 * A charge priced in US dollars (chargeData.pricing): the price asked and the rate that turned it into
 * `total_base_units` at creation. Recorded once, never recomputed: the rate is locked for the charge's
 * lifetime. Decimal text throughout (never a float).
 */
export interface StoredChargePricing {
  currency: 'USD';
  amount: string;
  /** US dollars per whole token. */
  rate: string;
  rateSource: 'par' | 'price_feed';
  /** ISO time the rate was fetched (par: the charge's creation). */
  rateAt: string;
}

export const charges = pgTable(
  'charges',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    apiKeyId: text('api_key_id')
      .notNull()
      .references(() => apiKeys.id),
    /** Created with a publishable key: its buyer chose the price, and it counts toward the publishable open-charge cap. */
    viaPublishableKey: boolean('via_publishable_key').notNull().default(false),
    mode: apiKeyMode('mode').notNull(),
    chain: text('chain').notNull(),
    tokenSymbol: text('token_symbol').notNull(),
    tokenAddress: text('token_address').notNull(),
    tokenDecimals: integer('token_decimals').notNull(),
    totalBaseUnits: baseUnits('total_base_units').notNull(),
    items: jsonb('items').$type<StoredChargeItem[]>().notNull(),
    destination: chargeDestination('destination').notNull(),
    toAddress: text('to_address'),
    isDirectTransfer: boolean('is_direct_transfer').notNull().default(false),
    successUrl: text('success_url'),
    cancelUrl: text('cancel_url'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
    pricing: jsonb('pricing').$type<StoredChargePricing>(),
    status: chargeStatus('status').notNull().default('pending'),
    /**
     * The spending allowance its live balance payment was made under (one tap, no PIN), else null: set with
     * that payment, cleared when it fails. The API's `paidUnderAllowance`.
     */
    allowanceId: text('allowance_id').references(() => spendingAllowances.id),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /**
     * Set when a payment of the succeeded charge left the chain after it counted (charge.payment_reversed,
     * docs/adr/0036): the dashboard's list flags it for a human's decision. Never cleared automatically.
     */
    needsReviewSince: timestamp('needs_review_since', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [
    // Listing: a merchant's charges of one mode, newest first, paged by (created_at, id).
    index('charges_merchant_mode_created_idx').on(table.merchantId, table.mode, table.createdAt.desc(), table.id.desc()),
    // The expiry sweep scans only charges that can still expire.
    index('charges_pending_expiry_idx')
      .on(table.expiresAt)
      .where(sql`${table.status} in ('pending', 'processing')`),
  ],
);

export type ChargeRow = typeof charges.$inferSelect;

/**
 * Open (pending) charges created with publishable keys, per merchant and mode: the cap a leaked
 * publishable key runs into (lib/charges/insert-charge.ts) reads one row instead of counting charges,
 * so createCharge costs the same at any number of open charges. Kept by a trigger on `charges`
 * (migration 0038) whoever changes a status; secret-key charges are not counted (they are rate-limited
 * per key, not capped).
 */
export const openChargeCounts = pgTable(
  'open_charge_counts',
  {
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    mode: apiKeyMode('mode').notNull(),
    publishableOpen: integer('publishable_open').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.mode] })],
);

/** The charge's timeline: one row per state change, written in the same transaction as the change. */
export const chargeEvents = pgTable(
  'charge_events',
  {
    id: text('id').primaryKey(),
    chargeId: text('charge_id')
      .notNull()
      .references(() => charges.id),
    type: text('type').notNull(),
    fromStatus: chargeStatus('from_status'),
    toStatus: chargeStatus('to_status').notNull(),
    /** Who or what caused it: "api_key:key_…", "system:expiry", "consumer". */
    actor: text('actor').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('charge_events_charge_idx').on(table.chargeId, table.createdAt)],
);

export type ChargeEventRow = typeof chargeEvents.$inferSelect;
