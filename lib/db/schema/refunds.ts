import { sql } from 'drizzle-orm';
import { index, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { REFUND_CLAIM_STATUSES } from '@/lib/refunds/state';
import { apiKeyMode } from './api-keys';
import { charges } from './charges';
import { baseUnits } from './columns';
import { merchants } from './merchants';
import { outboundTransfers } from './payments';

export const REFUND_SOURCES = ['deposit_address', 'merchant_wallet'] as const;
export type RefundSource = (typeof REFUND_SOURCES)[number];
export const refundSource = pgEnum('refund_source', REFUND_SOURCES);
export const refundClaimStatus = pgEnum('refund_claim_status', REFUND_CLAIM_STATUSES);

/**
 * A refund of (part of) what a charge received, back to a payer (lib/refunds/). Its money moves as one
 * outbound transfer of the transaction engine, recorded in the same transaction as this row (or, for a
 * claim link, in the transaction that records the payer's claim); the refund's status is read from that
 * transfer (pending → submitted → succeeded | failed), never stored twice. Before it, a claim link has
 * only its claim status (lib/refunds/state.ts).
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
    /** Null while a claim link waits for the payer (or after it expired). */
    transferId: text('transfer_id').references(() => outboundTransfers.id),
    chain: text('chain').notNull(),
    tokenAddress: text('token_address').notNull(),
    amountBaseUnits: baseUnits('amount_base_units').notNull(),
    /** Where the refund goes: a payer of the charge, an owner-approved address, or the address the payer claimed to. */
    destination: text('destination'),
    /** Where the funds were when refunded: still at the charge's deposit address, or swept to the merchant wallet. */
    source: refundSource('source'),
    /**
     * The part of a refund paid from the deposit address that drew on late payments (those never swept):
     * the sweep subtracts only the rest from what it owes (N11). Refunds from the deposit draw on late funds first.
     */
    lateBaseUnits: baseUnits('late_base_units')
      .notNull()
      .default(sql`0`),
    reason: text('reason'),
    /** `refund:<merchant>:<mode>:<Idempotency-Key or form id>`: a retried request is the same refund, claim links included. */
    requestKey: text('request_key'),
    /** Who asked: api_key:…, member:… */
    actor: text('actor').notNull(),
    /** Claim links only: awaiting_claim → claimed | expired. Null for a refund sent at once. */
    claimStatus: refundClaimStatus('claim_status'),
    /** sha256 (hex) of the claim link's token: the link is a bearer secret, never stored or logged in clear. */
    claimTokenHash: text('claim_token_hash'),
    claimExpiresAt: timestamp('claim_expires_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    index('refunds_charge_idx').on(table.chargeId, table.createdAt),
    uniqueIndex('refunds_transfer_idx').on(table.transferId),
    uniqueIndex('refunds_request_key_idx').on(table.requestKey),
    uniqueIndex('refunds_claim_token_idx').on(table.claimTokenHash),
    // The expiry job reads only the open claims.
    index('refunds_open_claims_idx')
      .on(table.claimExpiresAt)
      .where(sql`${table.claimStatus} = 'awaiting_claim'`),
  ],
);

export type RefundRow = typeof refunds.$inferSelect;
