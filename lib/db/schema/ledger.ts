import { bigint, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
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
    /** Lower-case address. */
    address: text('address').notNull(),
    /** Lower-case token address (the zero address for the native coin). */
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
