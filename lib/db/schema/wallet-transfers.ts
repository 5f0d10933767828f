import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { OBSERVED_TRANSFER_STATUSES } from '@/lib/scanner/state';
import { baseUnits } from './columns';
import { outboundTransfers } from './payments';
import { users } from './users';

/** The scanner's statuses (lib/scanner/state.ts): pending → confirmed | dropped. */
export const INCOMING_TRANSFER_STATUSES = OBSERVED_TRANSFER_STATUSES;
export type IncomingTransferStatus = (typeof INCOMING_TRANSFER_STATUSES)[number];
export const incomingTransferStatus = pgEnum('incoming_transfer_status', INCOMING_TRANSFER_STATUSES);

/**
 * Transfers into users' service wallets, from anyone (an external wallet, an on-ramp provider, another
 * user), indexed by lib/wallets/poll-incoming-transfers.ts for the wallet's Activity tab.
 * (chain, tx hash, log index) is unique, so a transfer is recorded once however often it is seen;
 * native transfers use log index -1, native coin moved by a contract -2 - its position. A transfer whose block
 * leaves the chain (re-organisation) follows its transaction into the new block, or ends `dropped`.
 * Solana (lib/wallets/poll-solana-incoming-transfers.ts): tx hash = signature, log index = the credited
 * account's index in the transaction's account keys, block = slot, block hash '', recorded `confirmed`
 * (only finalized transactions are read); addresses and mints in their base58 form.
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
    /** The head when the transfer was first found missing from the chain (re-organised out); dropped only after re-checks. */
    missingSinceBlock: bigint('missing_since_block', { mode: 'bigint' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('wallet_incoming_transfers_chain_tx_log_idx').on(table.chain, table.txHash, table.logIndex),
    // Activity reads one wallet's transfers newest first.
    index('wallet_incoming_transfers_to_idx').on(table.toAddress, table.blockTime.desc(), table.id.desc()),
    // The scanner re-checks only open (pending) transfers each poll: its cost does not grow with history.
    index('wallet_incoming_transfers_pending_idx')
      .on(table.chain)
      .where(sql`${table.status} = 'pending'`),
  ],
);

export type WalletIncomingTransferRow = typeof walletIncomingTransfers.$inferSelect;

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

/**
 * Solana's incoming-transfer indexer keeps one cursor per service wallet (users', merchants', the gas tank's
 * Solana key) and per account it lists: the wallet itself for SOL (`mint` = the native mint), its associated
 * token account of each registry mint. `cursor` is the newest signature up to which every transaction is
 * finalized and read; `searched_slot` the finalized slot read before the last complete listing began, so
 * every incoming transfer of a slot ≤ it is recorded (reconciliation compares the wallet only there).
 */
export const solanaWalletCursors = pgTable(
  'solana_wallet_cursors',
  {
    chain: text('chain').notNull(),
    /** The wallet (base58). */
    owner: text('owner').notNull(),
    /** The mint whose account is listed (base58); the native mint for SOL. */
    mint: text('mint').notNull(),
    cursor: text('cursor'),
    searchedSlot: bigint('searched_slot', { mode: 'bigint' }),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.chain, table.owner, table.mint] })],
);
