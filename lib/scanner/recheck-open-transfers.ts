/**
 * Re-checks the chain's pending transfers (only those: a partial index, so the cost follows what is open,
 * not the history): confirms the deep enough, and follows the ones whose block left the chain — waiting
 * while their transaction is re-included ahead, dropping them only after re-checks (./state.ts). The chain
 * is read before the poll's transaction (observeOpenTransfers), the decisions written in it.
 */
import { BlockNotFoundError, TransactionNotFoundError, TransactionReceiptNotFoundError, type Hex, type PublicClient } from 'viem';
import type { ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { decideRecheck, type OnChainSighting } from './state';
import type { StoredTransfer, TransferStore } from './types';

export interface RecheckResult {
  confirmed: number;
  dropped: number;
  owners: Set<string>;
}

/** What the chain said about one open transfer, read before the poll's transaction. */
interface Sighting {
  blockNumber: bigint;
  blockHash: string;
  sighting: OnChainSighting;
}

/**
 * Step 1, before the poll's transaction: where the chain has each open transfer (by row id). Only rows
 * whose block is not among `knownHashes` cost RPC calls.
 */
export async function observeOpenTransfers(
  client: PublicClient,
  open: readonly StoredTransfer[],
  {
    latest,
    scannedThrough,
    knownHashes,
  }: {
    latest: bigint;
    /** The last block scanned (the cursor after this poll): a re-inclusion at or below it was seen by the scan. */
    scannedThrough: bigint;
    /** Canonical hashes already read this poll. */
    knownHashes: ReadonlyMap<bigint, string>;
  },
): Promise<Map<string, Sighting>> {
  const sightings = new Map<string, Sighting>();
  const canonical = new Map<bigint, string | null>(knownHashes);
  for (const row of open) {
    if (!canonical.has(row.blockNumber))
      canonical.set(row.blockNumber, row.blockNumber <= latest ? await canonicalHash(client, row.blockNumber) : null);
    const sighting: OnChainSighting =
      canonical.get(row.blockNumber) === row.blockHash ? { kind: 'in_block' } : await locateTransaction(client, row.txHash, scannedThrough);
    sightings.set(row.id, { blockNumber: row.blockNumber, blockHash: row.blockHash, sighting });
  }
  return sightings;
}

/**
 * Step 2, in the poll's transaction after the window's writes: decides each open transfer from what was
 * seen. A row in a block read this poll is in its block; a row that moved or appeared since step 1 (and is
 * not in such a block) waits for the next poll.
 */
export async function recheckOpenTransfers<Target>(
  tx: DbOrTx,
  {
    chain,
    store,
    latest,
    confirmations,
    knownHashes,
    sightings,
  }: {
    chain: ChainName;
    store: TransferStore<Target>;
    latest: bigint;
    confirmations: number;
    knownHashes: ReadonlyMap<bigint, string>;
    sightings: ReadonlyMap<string, Sighting>;
  },
): Promise<RecheckResult> {
  const result: RecheckResult = { confirmed: 0, dropped: 0, owners: new Set() };
  // Decisions are collected, then written one UPDATE per kind: a block confirming many payments costs
  // the same few statements as one.
  const confirm: string[] = [];
  const clearMissing: string[] = [];
  const drop: string[] = [];
  const markMissing = new Map<bigint, string[]>();
  const open = await store.open(tx, chain);
  for (const row of open) {
    const seen = sightings.get(row.id);
    const sighting: OnChainSighting | undefined =
      knownHashes.get(row.blockNumber) === row.blockHash
        ? { kind: 'in_block' }
        : seen && seen.blockNumber === row.blockNumber && seen.blockHash === row.blockHash
          ? seen.sighting
          : undefined;
    if (!sighting) continue;
    const decision = decideRecheck({
      blockNumber: row.blockNumber,
      missingSinceBlock: row.missingSinceBlock,
      sighting,
      latest,
      confirmations,
    });
    switch (decision.action) {
      case 'keep':
        break;
      case 'confirm':
        confirm.push(row.id);
        result.owners.add(row.owner);
        break;
      case 'clear_missing':
        clearMissing.push(row.id);
        break;
      case 'mark_missing':
        markMissing.set(decision.sinceBlock, [...(markMissing.get(decision.sinceBlock) ?? []), row.id]);
        break;
      case 'drop':
        drop.push(row.id);
        result.owners.add(row.owner);
        break;
      default:
        decision satisfies never;
    }
  }
  if (confirm.length) await store.update(tx, confirm, { status: 'confirmed', missingSinceBlock: null });
  if (clearMissing.length) await store.update(tx, clearMissing, { missingSinceBlock: null });
  for (const [sinceBlock, ids] of markMissing) await store.update(tx, ids, { missingSinceBlock: sinceBlock });
  if (drop.length) await store.update(tx, drop, { status: 'dropped' });
  result.confirmed = confirm.length;
  result.dropped = drop.length;
  return result;
}

/** The hash of the canonical block at `number`, or null when the chain (now) ends below it. */
async function canonicalHash(client: PublicClient, number: bigint): Promise<string | null> {
  try {
    return (await client.getBlock({ blockNumber: number })).hash;
  } catch (error) {
    if (error instanceof BlockNotFoundError) return null;
    throw error;
  }
}

/**
 * Where a transaction whose recorded block left the chain is now. Only a definite "not found" counts as
 * missing: any other RPC error aborts the poll (it is retried), never drops anything.
 */
async function locateTransaction(client: PublicClient, txHash: string, scannedThrough: bigint): Promise<OnChainSighting> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(txHash)) return { kind: 'missing', inMempool: false }; // a balance credit: tied to its block only
  const hash = txHash as Hex;
  const receipt = await client.getTransactionReceipt({ hash }).catch((error: unknown) => {
    if (error instanceof TransactionReceiptNotFoundError) return null;
    throw error;
  });
  // Re-included ahead of the scan: the scan will meet it and move the transfer there.
  if (receipt && receipt.status === 'success' && receipt.blockNumber > scannedThrough) return { kind: 'reincluded_ahead' };
  // Mined at or below what was scanned, yet not found there (reverted, or no longer this transfer): missing.
  if (receipt) return { kind: 'missing', inMempool: false };
  const pending = await client.getTransaction({ hash }).catch((error: unknown) => {
    if (error instanceof TransactionNotFoundError) return null;
    throw error;
  });
  return { kind: 'missing', inMempool: pending !== null && pending.blockNumber === null };
}
