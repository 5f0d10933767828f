import { index, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { apiKeyMode } from './api-keys';
import { charges } from './charges';
import { baseUnits } from './columns';
import { merchants } from './merchants';
import { outboundTransfers } from './payments';

export const REFUND_SOURCES = ['deposit_address', 'merchant_wallet'] as const;
export type RefundSource = (typeof REFUND_SOURCES)[number];
export const refundSource = pgEnum('refund_source', REFUND_SOURCES);

/**
 * A refund of (part of) what a charge received, back to a payer (lib/refunds/). Its money moves as one
 * outbound transfer of the transaction engine, recorded in the same transaction as this row; the refund's
 * status is read from that transfer (pending → submitted → succeeded | failed), never stored twice.
 */
export const refunds = pgTable(
  'refunds',
  {
    id: text('id').primaryKey(),
    chargeId: text('charge_id')
      .notNull()
      .references(() => charges.id),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    mode: apiKeyMode('mode').notNull(),
    transferId: text('transfer_id')
      .notNull()
      .references(() => outboundTransfers.id),
    chain: text('chain').notNull(),
    tokenAddress: text('token_address').notNull(),
    amountBaseUnits: baseUnits('amount_base_units').notNull(),
    /** Where the refund goes: the payer's address, or the toAddress the merchant gave. */
    destination: text('destination').notNull(),
    /** Where the funds were when refunded: still at the charge's deposit address, or swept to the merchant wallet. */
    source: refundSource('source').notNull(),
    reason: text('reason'),
    /** Who asked: api_key:…, member:… */
    actor: text('actor').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('refunds_charge_idx').on(table.chargeId, table.createdAt), uniqueIndex('refunds_transfer_idx').on(table.transferId)],
);

export type RefundRow = typeof refunds.$inferSelect;
