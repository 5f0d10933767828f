import { sql } from 'drizzle-orm';
import { index, integer, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { SWAP_BRANCHES, SWAP_EXECUTION_STATUSES } from '@/lib/swap/state';
import { baseUnits, timestamps } from './columns';
import { charges } from './charges';
import { outboundTransfers } from './payments';
import { users } from './users';

export const swapExecutionStatus = pgEnum('swap_execution_status', SWAP_EXECUTION_STATUSES);
export const swapBranch = pgEnum('swap_branch', SWAP_BRANCHES);

/**
 * One exact-output swap into a charge's token (the swap on-ramp, lib/swap/). Its approve and swap calls
 * are outbound transfers of the one transaction engine (lib/transactions/), recorded before any is sent.
 * An attempt refused before signing (the pool moved past the funds held) is a `failed` row without
 * transactions: the conversion job backs off from it.
 */
export const swapExecutions = pgTable(
  'swap_executions',
  {
    id: text('id').primaryKey(),
    chargeId: text('charge_id')
      .notNull()
      .references(() => charges.id),
    branch: swapBranch('branch').notNull(),
    /** The payer whose wallet swaps (held_funds); null for the service's conversion at the deposit address. */
    userId: text('user_id').references(() => users.id),
    chain: text('chain').notNull(),
    router: text('router').notNull(),
    /** Who swaps: the payer's service wallet, or the charge's deposit address. */
    fromAddress: text('from_address').notNull(),
    /** Where the output goes: always the charge's deposit address (the watcher counts it like any payment). */
    recipient: text('recipient').notNull(),
    tokenIn: text('token_in').notNull(),
    tokenOut: text('token_out').notNull(),
    /** Exactly what must arrive (swapTokensForExactTokens' amountOut). */
    amountOut: baseUnits('amount_out').notNull(),
    /** The input the pool asked when signed. */
    quotedAmountIn: baseUnits('quoted_amount_in').notNull(),
    /** The most input the signed swap may take (quote + slippage limit, capped by what the payer accepted or holds). */
    amountInMax: baseUnits('amount_in_max').notNull(),
    /** The input it took, from the confirmed receipt. */
    amountIn: baseUnits('amount_in'),
    slippageBps: integer('slippage_bps').notNull(),
    deadline: timestamp('deadline', { withTimezone: true, mode: 'date' }).notNull(),
    /** The router's approval (when the allowance was short) and the swap itself: transfers of the one engine. */
    approveTransferId: text('approve_transfer_id').references(() => outboundTransfers.id),
    swapTransferId: text('swap_transfer_id').references(() => outboundTransfers.id),
    /** The swap transaction's hash, for links (the hash that was mined, once it is). */
    swapTxHash: text('swap_tx_hash'),
    status: swapExecutionStatus('status').notNull().default('signed'),
    error: text('error'),
    ...timestamps,
  },
  (table) => [
    // One swap per charge that is in flight or done: a double click, two tabs or two job instances
    // cannot swap twice. Failed attempts do not count, so a new one may follow.
    uniqueIndex('swap_executions_one_live_idx')
      .on(table.chargeId)
      .where(sql`${table.status} <> 'failed'`),
    // The conversion job's back-off looks up the newest attempt of a charge.
    index('swap_executions_charge_idx').on(table.chargeId, table.createdAt.desc()),
    // The reconciler's work list.
    index('swap_executions_open_idx')
      .on(table.status)
      .where(sql`${table.status} in ('signed', 'broadcast')`),
  ],
);

export type SwapExecutionRow = typeof swapExecutions.$inferSelect;

/**
 * Why a swap-pair charge's deposit address may now hold funding (USDC) to convert: the conversion job
 * (lib/swap/convert-swap-funding.ts) reads balances only for charges with a signal due, so its cost
 * follows funded charges, not open ones. Sources (`source`, unique per charge, so each is recorded once):
 *  - `transfer:<txHash>:<logIndex>:<blockHash>`: the charge watcher (lib/payments/poll-chain.ts) saw the
 *    pair's funding token sent to the deposit address;
 *  - `order:<onrampOrderId>`: the charge's swap-funding on-ramp order completed;
 *  - `retry:<swapExecutionId>`: an attempt refused (the pool moved past the funds held), due after the back-off.
 * A check of the charge marks the signals due by then `handled_at`.
 */
export const swapFundingSignals = pgTable(
  'swap_funding_signals',
  {
    chargeId: text('charge_id')
      .notNull()
      .references(() => charges.id),
    source: text('source').notNull(),
    dueAt: timestamp('due_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    handledAt: timestamp('handled_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.chargeId, table.source] }),
    // The job's work list: only signals not yet handled.
    index('swap_funding_signals_due_idx')
      .on(table.dueAt)
      .where(sql`${table.handledAt} is null`),
  ],
);
