import { sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { depositAddresses, scannerCursors } from '@/lib/db/schema';
import type { ScannerConsumerName } from './types';

/**
 * A condition true once the consumer's watcher of `chain` has seen every transaction stamped up to `time`
 * (or the chain has no watcher: nothing to wait for). Charge expiry waits on it, so a payment made before
 * expiresAt is seen before the charge can expire, however late the watcher runs.
 *
 *  - EVM: the block scanner's `scanned_until` (lib/scanner/scan-chain.ts).
 *  - Solana: the watcher's cursor row (lib/payments/solana/poll-solana.ts) holds the oldest `searched_until`
 *    of the watched deposit addresses; `chargeId` given, a charge whose own deposit address has been searched
 *    past `time` passes too, so one address the watcher cannot search (an RPC error, a spammed reference)
 *    holds only its own charge.
 */
export function scannedPast(
  consumer: ScannerConsumerName,
  chain: AnyPgColumn | SQL,
  time: AnyPgColumn | SQL,
  chargeId?: AnyPgColumn | SQL,
): SQL {
  const chainPassed = sql`not exists (select 1 from ${scannerCursors} where ${scannerCursors.chain} = ${chain} and ${scannerCursors.consumer} = ${consumer} and ${scannerCursors.scannedUntil} < ${time})`;
  if (chargeId === undefined) return chainPassed;
  return sql`(${chainPassed} or exists (select 1 from ${depositAddresses} where ${depositAddresses.chargeId} = ${chargeId} and ${depositAddresses.searchedUntil} >= ${time}))`;
}
