import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgEnum,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { ATTEMPT_KINDS, TRANSFER_PURPOSES, TRANSFER_STATUSES, type TransferPurpose, type TransferStatus } from '@/lib/transactions/state';
import { baseUnits, timestamps } from './columns';
import { apiKeyMode } from './api-keys';
import { charges } from './charges';
import { merchants } from './merchants';
import { walletFamily } from './wallets';
import { PAYMENT_STATUSES, type PaymentStatus } from '@/lib/payments/state';

/** Next HD derivation index for deposit addresses: a sequence, so concurrent charges never share one. */
export const depositDerivationIndex = pgSequence('deposit_derivation_index', { startWith: 0, minValue: 0 });

/**
 * One deposit address per charge, derived from the service's HD seed (DEPOSIT_HD_SEED) at
 * `derivationIndex` (EVM: BIP-44 m/44'/60'/0'/0/i; Solana: SLIP-0010 m/44'/501'/i'/0'), so the key is
 * never stored: it is re-derived when funds are swept.
 *
 * Each row is a lease (docs/adr/0038-deposit-addresses-reused.md): an EVM address may be leased again by a
 * later charge of the same merchant and mode once this lease is released (`releasedAt`, by
 * lib/jobs/release-deposit-addresses.ts) into deposit_address_pool. At most one lease of an address (and of a
 * derivation index) is open at a time: a transfer to it belongs to the charge whose lease is open.
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
    /**
     * Solana only: the watcher's last complete search of this address began after this slot was finalized, so every
     * transaction to it stamped at or before `searchedUntil` is recorded. Charge expiry waits for it
     * (lib/scanner/scanned-past.ts); reconciliation compares this address only at or below `searchedSlot`.
     * Null until the first complete search.
     */
    searchedSlot: bigint('searched_slot', { mode: 'bigint' }),
    searchedUntil: timestamp('searched_until', { withTimezone: true, mode: 'date' }),
    /** Solana only: when the watcher last tried this address (its clock): a pass cut by its budget takes the least recent first. */
    searchedAt: timestamp('searched_at', { withTimezone: true, mode: 'date' }),
    /** Watched until this time (24 h after the charge expires): late payments are still recorded. */
    watchUntil: timestamp('watch_until', { withTimezone: true, mode: 'date' }).notNull(),
    /** When the slow pass over every deposit address last read this one's balances (lib/ledger/audit-deposit-addresses.ts). */
    lastAuditedAt: timestamp('last_audited_at', { withTimezone: true, mode: 'date' }),
    /** When this lease ended and the address went back to its merchant's pool (EVM only; null: open, or never pooled). */
    releasedAt: timestamp('released_at', { withTimezone: true, mode: 'date' }),
    /** When the release job looks at this lease again after a check that could not release it (null: at watchUntil). */
    releaseCheckAt: timestamp('release_check_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('deposit_addresses_charge_idx').on(table.chargeId),
    // One open lease per derivation index, hence per address (an address is its index's key, the same on every
    // chain of its family); released leases stay as history. No second unique index on (chain, address): it
    // would say the same at the cost of one more index write per createCharge.
    uniqueIndex('deposit_addresses_open_index_idx')
      .on(table.family, table.derivationIndex)
      .where(sql`${table.releasedAt} is null`),
    // Every lease of an address, newest last (the slow pass, recovery, the signer's lookup).
    index('deposit_addresses_address_idx').on(table.chain, table.address, table.createdAt),
    // The release job's queue: open EVM leases by when to look next, oldest first.
    index('deposit_addresses_release_idx')
      .on(sql`coalesce(${table.releaseCheckAt}, ${table.watchUntil})`)
      .where(sql`${table.releasedAt} is null and ${table.family} = 'evm'`),
    // Reconciliation pages over every address ever issued in derivation order.
    index('deposit_addresses_index_idx').on(table.family, table.derivationIndex),
    // The watchers' "what is watched on this chain now": a range over the open addresses, not the table.
    index('deposit_addresses_watch_idx').on(table.chain, table.watchUntil),
    // The slow pass takes the addresses read longest ago (never read first), a page per run.
    index('deposit_addresses_audit_idx').on(table.chain, table.lastAuditedAt.asc().nullsFirst()),
  ],
);

/**
 * EVM deposit addresses free to lease again, per merchant, mode and chain (ADR 0038). A row is written when the
 * release job ends a lease whose address is empty and owes nothing, and deleted when createCharge leases the
 * address again (one DELETE … RETURNING, FOR UPDATE SKIP LOCKED) or the slow pass finds funds at it. A pooled
 * address is watched by nobody; a transfer to it is the last lease's late payment (`lastDepositAddressId`).
 */
export const depositAddressPool = pgTable(
  'deposit_address_pool',
  {
    chain: text('chain').notNull(),
    address: text('address').notNull(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    mode: apiKeyMode('mode').notNull(),
    derivationIndex: integer('derivation_index').notNull(),
    /** The lease that ended when the address came here (its charge is where a late payment goes). */
    lastDepositAddressId: text('last_deposit_address_id')
      .notNull()
      .references(() => depositAddresses.id),
    /** When the address was released: it is drawn only DEPOSIT_ADDRESS_REUSE_AFTER later. */
    freeSince: timestamp('free_since', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.chain, table.address] }),
    // createCharge's draw: the merchant's longest-free address of a chain and mode, one index range.
    index('deposit_address_pool_draw_idx').on(table.merchantId, table.mode, table.chain, table.freeSince),
  ],
);

/** The scanner's statuses of a transfer seen on chain (lib/scanner/state.ts): pending → confirmed | dropped. */
export { PAYMENT_STATUSES, type PaymentStatus };
export const paymentStatus = pgEnum('payment_status', PAYMENT_STATUSES);

/**
 * A transfer seen on chain into a charge's deposit address. (chain, tx hash, log index) is unique, so
 * a transfer is counted once however often the watcher sees it. Native transfers use log index -1, native
 * coin moved by a contract (internal call) -2 - its position among the transaction's value calls.
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
    /** When the block was made: lateness is judged by it (null on rows recorded before it was kept, and on a Solana transaction its node gives no block time). */
    blockTime: timestamp('block_time', { withTimezone: true, mode: 'date' }),
    status: paymentStatus('status').notNull().default('pending'),
    /** The head when the transfer was first found missing from the chain (re-organised out); dropped only after re-checks. */
    missingSinceBlock: bigint('missing_since_block', { mode: 'bigint' }),
    /** Arrived after the charge had expired, failed or been canceled: recorded and reported, not counted. */
    isLate: boolean('is_late').notNull().default(false),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('payments_chain_tx_log_idx').on(table.chain, table.txHash, table.logIndex),
    index('payments_charge_idx').on(table.chargeId),
    // The scanner re-checks only open (pending) payments each poll: its cost does not grow with history.
    index('payments_pending_idx')
      .on(table.chain)
      .where(sql`${table.status} = 'pending'`),
  ],
);

export type PaymentRow = typeof payments.$inferSelect;

export const transferPurpose = pgEnum('transfer_purpose', TRANSFER_PURPOSES);
export const transferStatus = pgEnum('transfer_status', TRANSFER_STATUSES);
export const transferAttemptKind = pgEnum('transfer_attempt_kind', ATTEMPT_KINDS);
export type { TransferPurpose, TransferStatus };

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
    /**
     * A relayed transfer (ADR 0035): the account that signs and sends the transaction (the gas tank), whose nonce
     * `nonce` is and who pays its gas; `from_address` is the smart account whose value moves. Null: the sender is
     * `from_address` itself.
     */
    relayerAddress: text('relayer_address'),
    /** Who receives the value (for an ERC-20 transfer the token contract is `callTo`). */
    toAddress: text('to_address').notNull(),
    tokenAddress: text('token_address').notNull(),
    amountBaseUnits: baseUnits('amount_base_units').notNull(),
    nonce: integer('nonce').notNull(),
    /** The current attempt's hash; once included, the hash that was mined. */
    txHash: text('tx_hash').notNull(),
    rawTransaction: text('raw_transaction').notNull(),
    status: transferStatus('status').notNull().default('signed'),
    error: text('error'),
    /** The call itself (EVM), kept so a stuck transaction can be signed again at its nonce with higher fees. */
    callTo: text('call_to'),
    callValue: baseUnits('call_value'),
    callData: text('call_data'),
    gasLimit: baseUnits('gas_limit'),
    /** Fees of the current attempt: gasLimit × maxFeePerGas is the most it can cost the sender. */
    maxFeePerGas: baseUnits('max_fee_per_gas'),
    maxPriorityFeePerGas: baseUnits('max_priority_fee_per_gas'),
    /** Broadcast only once these transfers are in a block: the gas top-up it needs, funds on their way to the sender. */
    dependsOnTransferIds: text('depends_on_transfer_ids')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** A user- or merchant-initiated send's idempotency id: a retried request finds this row. */
    idempotencyScope: text('idempotency_scope'),
    idempotencyKey: text('idempotency_key'),
    /** Gas top-ups: whose activity the gas tank paid for (daily caps). */
    sponsorMerchantId: text('sponsor_merchant_id'),
    sponsorUserId: text('sponsor_user_id'),
    /** Who authorised it, as the transfer gate saw it ('payer_pin:usr_…', 'api_key:key_…@mer_…', 'system:sweep'); null before the gate. */
    authority: text('authority'),
    includedBlockNumber: bigint('included_block_number', { mode: 'bigint' }),
    includedBlockHash: text('included_block_hash'),
    /** What the mined transaction cost the sender (gasUsed × effectiveGasPrice), from its receipt. */
    gasFeeBaseUnits: baseUnits('gas_fee_base_units'),
    /** Definite refusals by a node in a row (insufficient funds, invalid): TRANSFER_CANCEL_AFTER_FAILURES of them cancel. */
    broadcastFailures: integer('broadcast_failures').notNull().default(0),
    /**
     * Sends that got no answer from a node in a row (timeout, connection error, 429, 5xx, -32005/-32603):
     * never a reason to cancel; they set the back-off (reconcile-transfers.ts, N10).
     */
    transportFailures: integer('transport_failures').notNull().default(0),
    /** Since when sends have failed that way without a node accepting the transaction (the TRANSFER_SEND_BUDGET_MINUTES alert). */
    transportFailingSince: timestamp('transport_failing_since', { withTimezone: true, mode: 'date' }),
    feeBumps: integer('fee_bumps').notNull().default(0),
    lastBroadcastAt: timestamp('last_broadcast_at', { withTimezone: true, mode: 'date' }),
    /** When the reconciler first saw the nonce used at depth with no receipt of ours: failed only if a later pass agrees. */
    nonceTakenSeenAt: timestamp('nonce_taken_seen_at', { withTimezone: true, mode: 'date' }),
    /**
     * When a re-organisation re-opened it after it was confirmed (confirmed → included, docs/adr/0036): its
     * purpose's outcome hook already ran, so its end is not told again; ending `failed` now is a reversal.
     */
    reopenedAt: timestamp('reopened_at', { withTimezone: true, mode: 'date' }),
    /** The reconciler looks at open transfers due now, oldest first. */
    nextCheckAt: timestamp('next_check_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    ...timestamps,
  },
  (table) => [
    // One row per account a transaction moves value of: a batched relayed sweep (ADR 0035) is one transaction
    // (the relayer's, at one nonce) with a row per deposit address, all carrying its hash.
    uniqueIndex('outbound_transfers_tx_from_idx').on(table.chain, table.txHash, table.fromAddress),
    index('outbound_transfers_charge_idx').on(table.chargeId, table.purpose),
    // The wallet's Activity lists what a user's wallet sent, newest first.
    index('outbound_transfers_from_idx').on(table.fromAddress, table.createdAt.desc()),
    // The nonce allocator and the in-flight accounting read one sender's rows on one chain.
    index('outbound_transfers_sender_idx').on(table.chain, table.fromAddress, table.nonce),
    // The relayer's nonces and in-flight gas (relayed transfers).
    index('outbound_transfers_relayer_idx')
      .on(table.chain, table.relayerAddress, table.nonce)
      .where(sql`${table.relayerAddress} is not null`),
    // The reconciler's work list: open transfers, by when they are due. (Written as "not final": an enum
    // value added by a migration cannot be named before that migration commits.)
    index('outbound_transfers_due_idx')
      .on(table.nextCheckAt)
      .where(sql`${table.status} not in ('confirmed', 'failed')`),
    uniqueIndex('outbound_transfers_one_payment_idx')
      .on(table.chargeId)
      .where(sql`${table.purpose} = 'balance_payment' and ${table.status} <> 'failed'`),
    // The gas tank's daily caps count a sponsor's top-ups of the last 24 hours.
    index('outbound_transfers_sponsor_user_idx')
      .on(table.sponsorUserId, table.createdAt)
      .where(sql`${table.sponsorUserId} is not null`),
    index('outbound_transfers_sponsor_merchant_idx')
      .on(table.sponsorMerchantId, table.createdAt)
      .where(sql`${table.sponsorMerchantId} is not null`),
    uniqueIndex('outbound_transfers_idempotency_idx')
      .on(table.idempotencyScope, table.idempotencyKey)
      .where(sql`${table.idempotencyKey} is not null`),
  ],
);

/**
 * Every signed version of an EVM transfer at its nonce: the original, fee bumps, a cancel. Any of them
 * may be the one mined, so the reconciler looks for a receipt of each. A Solana transfer's versions: the
 * original and each `new_blockhash` re-sign after the previous one expired unlanded (fees 0: Solana's are fixed).
 */
export const outboundTransferAttempts = pgTable(
  'outbound_transfer_attempts',
  {
    id: text('id').primaryKey(),
    transferId: text('transfer_id')
      .notNull()
      .references(() => outboundTransfers.id),
    chain: text('chain').notNull(),
    kind: transferAttemptKind('kind').notNull(),
    txHash: text('tx_hash').notNull(),
    rawTransaction: text('raw_transaction').notNull(),
    maxFeePerGas: baseUnits('max_fee_per_gas').notNull(),
    maxPriorityFeePerGas: baseUnits('max_priority_fee_per_gas').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    // A batched relayed transaction's attempt is recorded once per transfer of the batch (ADR 0035).
    uniqueIndex('outbound_transfer_attempts_tx_transfer_idx').on(table.chain, table.txHash, table.transferId),
    index('outbound_transfer_attempts_transfer_idx').on(table.transferId, table.createdAt),
  ],
);

export type OutboundTransferRow = typeof outboundTransfers.$inferSelect;
export type OutboundTransferAttemptRow = typeof outboundTransferAttempts.$inferSelect;

/**
 * Which charges' deposit addresses may hold funds to sweep, and when to look next: the sweep job reads
 * only rows due now (an index range), never every succeeded charge ever. Rows are written by database
 * triggers (migration 0023's custom SQL) when a charge succeeds or a counted payment to a succeeded charge
 * is confirmed, whoever writes those rows; the job then clears, defers or backs off each row. A hint, not
 * the truth: what is owed is always recomputed from payments and transfers.
 */
export const sweepSchedule = pgTable(
  'sweep_schedule',
  {
    chargeId: text('charge_id')
      .primaryKey()
      .references(() => charges.id),
    /** When to look next; null: nothing to do (swept, or stuck: see stuckAt). */
    dueAt: timestamp('due_at', { withTimezone: true, mode: 'date' }),
    /** Passes that could not sign a sweep (gas caps, node errors); failed sweep transfers count too. */
    signErrors: integer('sign_errors').notNull().default(0),
    lastError: text('last_error'),
    /** Set when the attempts ran out: an operator looks (`npm run admin -- reconcile`), a new payment re-arms it. */
    stuckAt: timestamp('stuck_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [
    index('sweep_schedule_due_idx')
      .on(table.dueAt)
      .where(sql`${table.dueAt} is not null`),
  ],
);
