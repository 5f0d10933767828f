/**
 * Records found transfers, following ones already recorded to where the chain now has them.
 *
 * A transfer is identified by (chain, tx hash, log index). A transaction re-organised out and re-included
 * keeps its hash but may land at another log index (log indexes count within the block): a recorded
 * transfer of the same transaction, token, recipient and amount whose block left the chain is the same
 * transfer, and moves there — never a second one. A dropped transfer found again comes back the same way.
 */
import type { ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { BALANCE_CHANGE_LOG_INDEX, type ObservedTransfer, type StoredTransfer, type TransferStore } from './types';

/** Log indexes rows are parked at while others move into theirs (the unique index holds at every row). */
const PARKING_LOG_INDEX = -1_000_000_000;
/** Rows per INSERT (PostgreSQL takes at most 65,535 parameters per statement; a row has about a dozen). */
const INSERT_BATCH = 1_000;

export async function recordTransfers<Target>(
  tx: DbOrTx,
  chain: ChainName,
  store: TransferStore<Target>,
  found: readonly { transfer: ObservedTransfer; target: Target }[],
): Promise<{ recorded: number; owners: Set<string> }> {
  const owners = new Set<string>();
  if (!found.length) return { recorded: 0, owners };
  const existing = await store.byTxHashes(tx, chain, [...new Set(found.map((f) => f.transfer.txHash))]);
  const byTx = new Map<string, StoredTransfer[]>();
  for (const row of [...existing].sort((a, b) => a.logIndex - b.logIndex)) {
    byTx.set(row.txHash.toLowerCase(), [...(byTx.get(row.txHash.toLowerCase()) ?? []), row]);
  }

  const paired = new Set<string>();
  const moves: { row: StoredTransfer; transfer: ObservedTransfer }[] = [];
  const inserts: { transfer: ObservedTransfer; target: Target }[] = [];
  const ordered = [...found].sort(
    (a, b) => a.transfer.txHash.localeCompare(b.transfer.txHash) || a.transfer.logIndex - b.transfer.logIndex,
  );
  for (const entry of ordered) {
    const { transfer } = entry;
    const rows = byTx.get(transfer.txHash.toLowerCase()) ?? [];
    const exact = rows.find((row) => !paired.has(row.id) && row.logIndex === transfer.logIndex && isSameTransfer(row, transfer));
    const stale = exact ?? rows.find((row) => !paired.has(row.id) && row.blockHash !== transfer.blockHash && isSameTransfer(row, transfer));
    if (!stale) {
      inserts.push(entry);
      continue;
    }
    paired.add(stale.id);
    if (stale.blockHash !== transfer.blockHash || stale.logIndex !== transfer.logIndex || stale.status === 'dropped') {
      moves.push({ row: stale, transfer });
    }
  }

  // Rows whose log index changes, and unpaired rows of these transactions sitting where a transfer goes,
  // step aside first.
  const targetIndexes = new Set([...moves.map((m) => m.transfer), ...inserts.map((i) => i.transfer)].map(keyOf));
  const parked = [
    ...moves.filter((m) => m.row.logIndex !== m.transfer.logIndex).map((m) => m.row),
    ...existing.filter((row) => !paired.has(row.id) && targetIndexes.has(keyOf(row))),
  ];
  let parking = Math.min(PARKING_LOG_INDEX, ...existing.map((row) => row.logIndex)) - 1;
  for (const row of parked) await store.relocate(tx, row.id, { logIndex: parking-- });
  for (const { row, transfer } of moves) {
    await store.relocate(tx, row.id, {
      logIndex: transfer.logIndex,
      blockNumber: transfer.blockNumber,
      blockHash: transfer.blockHash,
      blockTime: transfer.blockTime,
    });
    owners.add(row.owner);
  }
  // New ones in a few statements, not one per transfer (a busy block pays many charges at once).
  let inserted = 0;
  for (let i = 0; i < inserts.length; i += INSERT_BATCH) {
    const batch = inserts.slice(i, i + INSERT_BATCH);
    const added = await store.insert(tx, chain, batch);
    inserted += added.length;
    for (const owner of added) owners.add(owner);
  }
  return { recorded: inserted + moves.length, owners };
}

const keyOf = (t: { txHash: string; logIndex: number }) => `${t.txHash.toLowerCase()}:${t.logIndex}`;

/** Kinds of log index: token log (≥ 0), the transaction's own value (-1), an internal call, a balance credit. */
function kindOf(logIndex: number): string {
  if (logIndex >= 0) return 'log';
  if (logIndex === -1) return 'native';
  if (logIndex === BALANCE_CHANGE_LOG_INDEX) return 'balance';
  return 'internal';
}

function isSameTransfer(row: StoredTransfer, transfer: ObservedTransfer): boolean {
  return (
    (row.logIndex <= PARKING_LOG_INDEX || kindOf(row.logIndex) === kindOf(transfer.logIndex)) &&
    row.tokenAddress.toLowerCase() === transfer.tokenAddress.toLowerCase() &&
    row.toAddress.toLowerCase() === transfer.toAddress.toLowerCase() &&
    row.amountBaseUnits === transfer.amountBaseUnits
  );
}
