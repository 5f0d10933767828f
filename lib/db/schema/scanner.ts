import { bigint, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** A scanned block the scanner can fall back to: where a re-organisation forked from. */
export interface ScannerCheckpoint {
  /** Block number, as decimal text (JSON has no bigint). */
  n: string;
  /** Its hash when it was scanned. */
  h: string;
}

/**
 * Where the block scanner (lib/scanner) stopped, per chain and consumer: the charge watcher and the
 * wallet-activity indexer each keep their own (they watch other addresses and may lag differently).
 */
export const scannerCursors = pgTable(
  'scanner_cursors',
  {
    chain: text('chain').notNull(),
    /** Which consumer: 'charges' or 'wallet-activity'. */
    consumer: text('consumer').notNull(),
    lastBlock: bigint('last_block', { mode: 'bigint' }).notNull(),
    lastBlockHash: text('last_block_hash').notNull(),
    /** The last scanned windows' ends (newest last): on a re-organisation the newest still canonical one is the fork base. */
    checkpoints: jsonb('checkpoints').$type<ScannerCheckpoint[]>().notNull().default([]),
    /**
     * Every block stamped at or before this time has been scanned: charge expiry waits for it, so a payment
     * mined before expiresAt but not yet seen is never late. Null until the first poll after a migration.
     */
    scannedUntil: timestamp('scanned_until', { withTimezone: true, mode: 'date' }),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.chain, table.consumer] })],
);
