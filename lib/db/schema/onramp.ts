import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, numeric, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { ONRAMP_ORDER_STATUSES, type OnrampOrderStatusName } from '@/lib/onramp/orders/state';
import { baseUnits, timestamps } from './columns';
import { charges } from './charges';
import { outboundTransfers } from './payments';
import { users } from './users';

/**
 * The on-ramp provider registry as loaded from the reviewed data file (lib/onramp/registry/providers.json)
 * at start: one row per provider, its facts (countries, assets, methods, minimums, fees, currencies) in
 * `facts`, validated by lib/onramp/registry/schema.ts before it is written.
 */
export const onrampProviders = pgTable('onramp_providers', {
  id: text('id').primaryKey(),
  displayName: text('display_name').notNull(),
  /** Whether this deployment offers the provider (credentials configured, sandbox switched on). */
  enabled: boolean('enabled').notNull().default(true),
  facts: jsonb('facts').$type<Record<string, unknown>>().notNull(),
  /** Date the facts were last checked against the provider's public docs (YYYY-MM-DD). */
  reviewedOn: text('reviewed_on').notNull(),
  ...timestamps,
});

export { ONRAMP_ORDER_STATUSES, type OnrampOrderStatusName };
export const onrampOrderStatus = pgEnum('onramp_order_status', ONRAMP_ORDER_STATUSES);

/**
 * wallet_topup: tokens for a wallet (the on-ramp page); charge_payment: the checkout's card/bank method,
 * delivered to the charge's deposit address; swap_funding: USDC bought to be swapped into a charge's token;
 * charge_minimum: the checkout's card/bank method below the provider's minimum — the minimum is delivered
 * to the buyer's own service wallet, which then pays the charge from it (lib/onramp/pay-charge-from-order.ts,
 * ADR 0019); the rest stays in the buyer's balance.
 */
export const ONRAMP_ORDER_PURPOSES = ['wallet_topup', 'charge_payment', 'swap_funding', 'charge_minimum'] as const;
export type OnrampOrderPurpose = (typeof ONRAMP_ORDER_PURPOSES)[number];
export const onrampOrderPurpose = pgEnum('onramp_order_purpose', ONRAMP_ORDER_PURPOSES);

/** A purchase of tokens with fiat through a provider. Amounts: crypto in base units, fiat as exact decimals. */
export const onrampOrders = pgTable(
  'onramp_orders',
  {
    id: text('id').primaryKey(),
    /** The signed-in buyer; null when an anonymous visitor buys for a merchant-given wallet. */
    userId: text('user_id').references(() => users.id),
    chargeId: text('charge_id').references(() => charges.id),
    purpose: onrampOrderPurpose('purpose').notNull().default('wallet_topup'),
    providerId: text('provider_id')
      .notNull()
      .references(() => onrampProviders.id),
    /** The provider's own id, known once its first webhook (or session) names it. */
    providerOrderId: text('provider_order_id'),
    chain: text('chain').notNull(),
    tokenSymbol: text('token_symbol').notNull(),
    tokenAddress: text('token_address').notNull(),
    tokenDecimals: integer('token_decimals').notNull(),
    walletAddress: text('wallet_address').notNull(),
    walletLabel: text('wallet_label'),
    country: text('country').notNull(),
    paymentMethod: text('payment_method').notNull(),
    fiatCurrency: text('fiat_currency').notNull(),
    /** What the buyer asked for, before the provider's minimum was applied. */
    requestedBaseUnits: baseUnits('requested_base_units').notNull(),
    /** What the order buys (the minimum when the request was below it). */
    cryptoBaseUnits: baseUnits('crypto_base_units').notNull(),
    raisedToMinimum: boolean('raised_to_minimum').notNull().default(false),
    /** The quote shown when the order was placed: fiat total, fees, rate (exact decimal strings). */
    quote: jsonb('quote').$type<Record<string, string>>().notNull(),
    fiatTotal: numeric('fiat_total', { precision: 30, scale: 8, mode: 'string' }).notNull(),
    status: onrampOrderStatus('status').notNull().default('created'),
    providerStatus: text('provider_status'),
    failureReason: text('failure_reason'),
    deliveredBaseUnits: baseUnits('delivered_base_units'),
    deliveryTxHash: text('delivery_tx_hash'),
    /** charge_minimum: the balance payment of the charge made from this order's delivery (once: set with it). */
    chargeTransferId: text('charge_transfer_id').references(() => outboundTransfers.id),
    /** charge_minimum: why the delivery could not pay the charge (it stays in the buyer's balance). */
    chargePaymentError: text('charge_payment_error'),
    /** The provider's checkout link (some are single-use and short-lived). */
    checkoutUrl: text('checkout_url'),
    /** A created order nobody started by then expires. */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Time of the newest provider update applied: older ones arriving late change nothing. */
    lastProviderUpdateAt: timestamp('last_provider_update_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('onramp_orders_provider_order_idx').on(table.providerId, table.providerOrderId),
    index('onramp_orders_user_idx').on(table.userId, table.createdAt.desc()),
    index('onramp_orders_wallet_idx').on(table.walletAddress, table.createdAt.desc()),
    index('onramp_orders_charge_idx').on(table.chargeId),
    uniqueIndex('onramp_orders_charge_transfer_idx').on(table.chargeTransferId),
    index('onramp_orders_open_idx')
      .on(table.expiresAt)
      .where(sql`${table.status} in ('created', 'pending')`),
    // The swap conversion job notes recently completed swap-funding orders (lib/swap/convert-swap-funding.ts).
    index('onramp_orders_swap_funding_done_idx')
      .on(table.updatedAt)
      .where(sql`${table.purpose} = 'swap_funding' and ${table.status} = 'completed'`),
  ],
);

export type OnrampOrderRow = typeof onrampOrders.$inferSelect;

/** The order's timeline: one row per status change or applied provider update. */
export const onrampOrderEvents = pgTable(
  'onramp_order_events',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => onrampOrders.id),
    fromStatus: onrampOrderStatus('from_status'),
    toStatus: onrampOrderStatus('to_status').notNull(),
    providerStatus: text('provider_status'),
    /** "provider_webhook", "system:expiry", "buyer". */
    source: text('source').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('onramp_order_events_order_idx').on(table.orderId, table.createdAt)],
);

/** Every authentic provider webhook, once: a redelivery of the same body is acknowledged and ignored. */
export const onrampWebhookReceipts = pgTable(
  'onramp_webhook_receipts',
  {
    id: text('id').primaryKey(),
    providerId: text('provider_id').notNull(),
    /** SHA-256 of the raw body: providers redeliver byte-identical bodies. */
    bodySha256: text('body_sha256').notNull(),
    orderId: text('order_id'),
    outcome: text('outcome').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('onramp_webhook_receipts_body_idx').on(table.providerId, table.bodySha256)],
);

/**
 * Short-lived provider credentials minted by an API call (Transak's partner access token, 7 days),
 * sealed with the wallet master key. The replaced token stays valid for webhooks signed just before
 * the refresh until `previous_valid_until`.
 */
export const onrampAccessTokens = pgTable('onramp_access_tokens', {
  providerId: text('provider_id').primaryKey(),
  sealedToken: text('sealed_token').notNull(),
  masterKeyId: text('master_key_id').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  previousSealedToken: text('previous_sealed_token'),
  previousMasterKeyId: text('previous_master_key_id'),
  previousValidUntil: timestamp('previous_valid_until', { withTimezone: true, mode: 'date' }),
  ...timestamps,
});
