import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgEnum, pgSequence, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { baseUnits, timestamps } from './columns';
import { charges } from './charges';
import { walletFamily } from './wallets';

/** Next HD derivation index for deposit addresses: a sequence, so concurrent charges never share one. */
export const depositDerivationIndex = pgSequence('deposit_derivation_index', { startWith: 0, minValue: 0 });

/**
 * One deposit address per charge, derived from the service's HD seed (DEPOSIT_HD_SEED) at
 * `derivationIndex` (EVM: BIP-44 m/44'/60'/0'/0/i; Solana: SLIP-0010 m/44'/501'/i'/0'), so the key is
 * never stored: it is re-derived when funds are swept.
 */
export const depositAddresses = pgTable(
  'deposit_addresses',
  {
    id: text('id').primaryKey(),
    chargeId: text('charge_id')
      .notNull()
      .references(() => charges.id),
    chain: text('chain').notNull(),
    family: walletFamily('family').notNull(),
    address: text('address').notNull(),
    derivationIndex: integer('derivation_index').notNull(),
    /** Solana Pay reference key of the charge (Solana only): how the watcher finds its transactions. */
    reference: text('reference'),
    /**
     * Solana only: the newest signature listed for the reference key, resp. for the account that
     * receives (the deposit address for SOL, its token account for a token), up to which every
     * transaction is finalized and handled. The next poll lists only what is newer.
     */
    referenceCursor: text('reference_cursor'),
    receiveCursor: text('receive_cursor'),
    /** Watched until this time (24 h after the charge expires): late payments are still recorded. */
    watchUntil: timestamp('watch_until', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('deposit_addresses_charge_idx').on(table.chargeId),
    uniqueIndex('deposit_addresses_address_idx').on(table.chain, table.address),
    uniqueIndex('deposit_addresses_index_idx').on(table.family, table.derivationIndex),
    // The watchers' "what is watched on this chain now": a range over the open addresses, not the table.
    index('deposit_addresses_watch_idx').on(table.chain, table.watchUntil),
  ],
);

export const PAYMENT_STATUSES = ['pending', 'confirmed', 'dropped'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const paymentStatus = pgEnum('payment_status', PAYMENT_STATUSES);

/**
 * A transfer seen on chain into a charge's deposit address. (chain, tx hash, log index) is unique, so
 * a transfer is counted once however often the watcher sees it. Native transfers use log index -1.
 */
export const payments = pgTable(
  'payments',
  {
    id: text('id').primaryKey(),
    chargeId: text('charge_id')
      .notNull()
      .references(() => charges.id),
    chain: text('chain').notNull(),
    txHash: text('tx_hash').notNull(),
    logIndex: integer('log_index').notNull(),
    fromAddress: text('from_address').notNull(),
    toAddress: text('to_address').notNull(),
    tokenAddress: text('token_address').notNull(),
    amountBaseUnits: baseUnits('amount_base_units').notNull(),
    blockNumber: bigint('block_number', { mode: 'bigint' }).notNull(),
    blockHash: text('block_hash').notNull(),
    status: paymentStatus('status').notNull().default('pending'),
    /** Arrived after the charge had expired, failed or been canceled: recorded and reported, not counted. */
    isLate: boolean('is_late').notNull().default(false),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('payments_chain_tx_log_idx').on(table.chain, table.txHash, table.logIndex),
    index('payments_charge_idx').on(table.chargeId),
    index('payments_pending_idx')
      .on(table.chain)
      .where(sql`${table.status} = 'pending'`),
  ],
);

export type PaymentRow = typeof payments.$inferSelect;

/** Where each chain watcher stopped: it resumes from here after a restart. */
export const chainCursors = pgTable('chain_cursors', {
  chain: text('chain').primaryKey(),
  lastBlock: bigint('last_block', { mode: 'bigint' }).notNull(),
  lastBlockHash: text('last_block_hash').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * balance_payment: consumer's service wallet → deposit address; sweep: deposit address → payee;
 * gas_topup: the gas tank pays the exact gas a transfer needs (a platform cost, recorded here);
 * withdrawal: a merchant moves funds from its service wallet to an external address (Balances tab);
 * wallet_send: a user sends from their service wallet to any address (/wallet/send).
 */
export const TRANSFER_PURPOSES = ['balance_payment', 'sweep', 'gas_topup', 'withdrawal', 'wallet_send'] as const;
export type TransferPurpose = (typeof TRANSFER_PURPOSES)[number];
export const transferPurpose = pgEnum('transfer_purpose', TRANSFER_PURPOSES);
export const TRANSFER_STATUSES = ['signed', 'broadcast', 'confirmed', 'failed'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];
export const transferStatus = pgEnum('transfer_status', TRANSFER_STATUSES);

/**
 * Every transfer the service sends, recorded (signed, with nonce and hash) before it is broadcast:
 * a crash between signing and broadcasting leaves a row to reconcile, never a second transfer.
 * At most one live balance payment per charge (partial unique index): a charge is paid once.
 */
export const outboundTransfers = pgTable(
  'outbound_transfers',
  {
    id: text('id').primaryKey(),
    chargeId: text('charge_id').references(() => charges.id),
    purpose: transferPurpose('purpose').notNull(),
    chain: text('chain').notNull(),
    fromAddress: text('from_address').notNull(),
    toAddress: text('to_address').notNull(),
    tokenAddress: text('token_address').notNull(),
    amountBaseUnits: baseUnits('amount_base_units').notNull(),
    nonce: integer('nonce').notNull(),
    txHash: text('tx_hash').notNull(),
    rawTransaction: text('raw_transaction').notNull(),
    status: transferStatus('status').notNull().default('signed'),
    error: text('error'),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('outbound_transfers_tx_idx').on(table.chain, table.txHash),
    index('outbound_transfers_charge_idx').on(table.chargeId, table.purpose),
    // The wallet's Activity lists what a user's wallet sent, newest first.
    index('outbound_transfers_from_idx').on(table.fromAddress, table.createdAt.desc()),
    index('outbound_transfers_open_idx')
      .on(table.status)
      .where(sql`${table.status} in ('signed', 'broadcast')`),
    uniqueIndex('outbound_transfers_one_payment_idx')
      .on(table.chargeId)
      .where(sql`${table.purpose} = 'balance_payment' and ${table.status} <> 'failed'`),
  ],
);
