import { bigint, index, integer, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { baseUnits } from './columns';
import { outboundTransfers } from './payments';
import { users } from './users';

export const INCOMING_TRANSFER_STATUSES = ['pending', 'confirmed'] as const;
export type IncomingTransferStatus = (typeof INCOMING_TRANSFER_STATUSES)[number];
export const incomingTransferStatus = pgEnum('incoming_transfer_status', INCOMING_TRANSFER_STATUSES);

/**
 * Transfers into users' service wallets, from anyone (an external wallet, an on-ramp provider, another
 * user), indexed by lib/wallets/watch-incoming-transfers.ts for the wallet's Activity tab.
 * (chain, tx hash, log index) is unique, so a transfer is recorded once however often it is seen;
 * native transfers use log index -1. A row whose block leaves the chain (re-organisation) is deleted.
 */
export const walletIncomingTransfers = pgTable(
  'wallet_incoming_transfers',
  {
    id: text('id').primaryKey(),
    chain: text('chain').notNull(),
    txHash: text('tx_hash').notNull(),
    logIndex: integer('log_index').notNull(),
    fromAddress: text('from_address').notNull(),
    /** The receiving service wallet, in the canonical (EIP-55) form wallets.address uses. */
    toAddress: text('to_address').notNull(),
    tokenAddress: text('token_address').notNull(),
    amountBaseUnits: baseUnits('amount_base_units').notNull(),
    blockNumber: bigint('block_number', { mode: 'bigint' }).notNull(),
    blockHash: text('block_hash').notNull(),
    /** When the block was made: the time Activity shows and sorts by. */
    blockTime: timestamp('block_time', { withTimezone: true, mode: 'date' }).notNull(),
    status: incomingTransferStatus('status').notNull().default('pending'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('wallet_incoming_transfers_chain_tx_log_idx').on(table.chain, table.txHash, table.logIndex),
    // Activity reads one wallet's transfers newest first.
    index('wallet_incoming_transfers_to_idx').on(table.toAddress, table.blockTime.desc(), table.id.desc()),
    // Confirmation and re-organisation checks look at a chain's recent blocks.
    index('wallet_incoming_transfers_block_idx').on(table.chain, table.blockNumber),
  ],
);

export type WalletIncomingTransferRow = typeof walletIncomingTransfers.$inferSelect;

/** Where the incoming-transfer indexer of each chain stopped (its own cursor: it scans other addresses than the charge watcher). */
export const walletTransferCursors = pgTable('wallet_transfer_cursors', {
  chain: text('chain').primaryKey(),
  lastBlock: bigint('last_block', { mode: 'bigint' }).notNull(),
  lastBlockHash: text('last_block_hash').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * A send from a user's wallet (/wallet/send), keyed by the id the review step hands out: submitting the
 * confirmation twice (double click, retry) finds this row and returns the first transfer instead of
 * sending again. The transfer itself is an outbound_transfers row (purpose wallet_send).
 */
export const walletSends = pgTable(
  'wallet_sends',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    transferId: text('transfer_id')
      .notNull()
      .references(() => outboundTransfers.id),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('wallet_sends_transfer_idx').on(table.transferId),
    index('wallet_sends_user_idx').on(table.userId, table.createdAt),
  ],
);
