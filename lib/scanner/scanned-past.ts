import { sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { scannerCursors } from '@/lib/db/schema';
import type { ScannerConsumerName } from './types';

/**
 * A condition true once the consumer's scanner of `chain` has scanned every block stamped up to `time`
 * (or the chain has no scanner: nothing to wait for). Charge expiry waits on it, so a payment mined before
 * expiresAt is seen before the charge can expire, however late the watcher runs.
 */
export function scannedPast(consumer: ScannerConsumerName, chain: AnyPgColumn | SQL, time: AnyPgColumn | SQL): SQL {
  return sql`not exists (select 1 from ${scannerCursors} where ${scannerCursors.chain} = ${chain} and ${scannerCursors.consumer} = ${consumer} and ${scannerCursors.scannedUntil} < ${time})`;
}
