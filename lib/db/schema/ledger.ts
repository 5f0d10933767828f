import { bigint, index, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { baseUnits } from './columns';

/**
 * Where the books of an address funded from outside begin (the gas tank): its balance on chain and its
 * ledger sum at `block_number`, taken when reconciliation first met it. Its expected balance at a later
 * block B is `balance + ledger(B) − ledger` (lib/ledger/reconcile-chains.ts): funding that reached it
 * before the wallet indexer watched it is no difference, value moved after the opening without a record is.
 */
export const ledgerOpenings = pgTable(
  'ledger_openings',
  {
    chain: text('chain').notNull(),
    /** Lower-case address (Solana: base58, as it is). */
    address: text('address').notNull(),
    /** Lower-case token address, the zero address for the native coin (Solana: the mint, base58). */
    token: text('token').notNull(),
    blockNumber: bigint('block_number', { mode: 'bigint' }).notNull(),
    /** The balance on chain at the block. */
    balanceBaseUnits: baseUnits('balance_base_units').notNull(),
    /** The ledger's sum of the address's entries up to the block (lib/ledger/expected-balances.ts). */
    ledgerBaseUnits: baseUnits('ledger_base_units').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.chain, table.address, table.token] })],
);

/**
 * A token a deposit address received that its charge is not in (USDT sent to a USDC charge, USDC left after
 * a swap, any ERC-20), found by the slow pass over every deposit address (lib/ledger/audit-deposit-addresses.ts)
 * as balance the ledger does not explain. A ledger entry (received) like a payment, never counted toward the
 * charge; returned by the two-operator recovery command (deposit_recoveries).
 */
export const strayDeposits = pgTable(
  'stray_deposits',
  {
    id: text('id').primaryKey(),
    chain: text('chain').notNull(),
    chargeId: text('charge_id').notNull(),
    /** The deposit address, EIP-55 (Solana: base58). */
    address: text('address').notNull(),
    /** Lower-case token address (Solana: the mint, base58). */
    tokenAddress: text('token_address').notNull(),
    amountBaseUnits: baseUnits('amount_base_units').notNull(),
    /** The block (Solana: the finalized slot) at which the balance was read: the entry's place in the ledger. */
    blockNumber: bigint('block_number', { mode: 'bigint' }).notNull(),
    blockHash: text('block_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('stray_deposits_block_idx').on(table.chain, table.address, table.tokenAddress, table.blockNumber),
    index('stray_deposits_charge_idx').on(table.chargeId),
  ],
);

export const DEPOSIT_RECOVERY_STATUSES = ['requested', 'sent'] as const;
export type DepositRecoveryStatus = (typeof DEPOSIT_RECOVERY_STATUSES)[number];
export const depositRecoveryStatus = pgEnum('deposit_recovery_status', DEPOSIT_RECOVERY_STATUSES);

/**
 * An operator's request to move a token out of a deposit address to a named address
 * (`npm run admin -- recover-deposit`), and its approval by a second operator: only then is the transfer
 * recorded (purpose `recovery`, through the transfer gate, which checks this row). Both steps are audited.
 */
export const depositRecoveries = pgTable(
  'deposit_recoveries',
  {
    id: text('id').primaryKey(),
    chain: text('chain').notNull(),
    chargeId: text('charge_id').notNull(),
    /** The deposit address, EIP-55. */
    fromAddress: text('from_address').notNull(),
    /** Lower-case token address (the zero address for the native coin). */
    tokenAddress: text('token_address').notNull(),
    amountBaseUnits: baseUnits('amount_base_units').notNull(),
    toAddress: text('to_address').notNull(),
    reason: text('reason').notNull(),
    requestedBy: text('requested_by').notNull(),
    approvedBy: text('approved_by'),
    approvedAt: timestamp('approved_at', { withTimezone: true, mode: 'date' }),
    transferId: text('transfer_id'),
    status: depositRecoveryStatus('status').notNull().default('requested'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('deposit_recoveries_charge_idx').on(table.chargeId)],
);
