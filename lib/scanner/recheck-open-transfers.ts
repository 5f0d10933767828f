/**
 * Re-checks the chain's pending transfers (only those: a partial index, so the cost follows what is open,
 * not the history): confirms the deep enough, and follows the ones whose block left the chain — waiting
 * while their transaction is re-included ahead, dropping them only after re-checks (./state.ts).
 */
import { BlockNotFoundError, TransactionNotFoundError, TransactionReceiptNotFoundError, type Hex, type PublicClient } from 'viem';
import type { ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { decideRecheck, type OnChainSighting } from './state';
import type { TransferStore } from './types';

export interface RecheckResult {
  confirmed: number;
  dropped: number;
  owners: Set<string>;
}

export async function recheckOpenTransfers<Target>(
  tx: DbOrTx,
  client: PublicClient,
  {
    chain,
    store,
    latest,
    scannedThrough,
    confirmations,
    knownHashes,
  }: {
    chain: ChainName;
    store: TransferStore<Target>;
    latest: bigint;
    /** The last block scanned (the cursor after this poll): a re-inclusion at or below it was seen by the scan. */
    scannedThrough: bigint;
    confirmations: number;
    /** Canonical hashes already read this poll. */
    knownHashes: Map<bigint, string>;
  },
): Promise<RecheckResult> {
  const result: RecheckResult = { confirmed: 0, dropped: 0, owners: new Set() };
  const open = await store.open(tx, chain);
  const canonical = new Map<bigint, string | null>(knownHashes);
  for (const row of open) {
    if (!canonical.has(row.blockNumber))
      canonical.set(row.blockNumber, row.blockNumber <= latest ? await canonicalHash(client, row.blockNumber) : null);
    const sighting: OnChainSighting =
      canonical.get(row.blockNumber) === row.blockHash ? { kind: 'in_block' } : await locateTransaction(client, row.txHash, scannedThrough);
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
        await store.update(tx, [row.id], { status: 'confirmed', missingSinceBlock: null });
        result.confirmed++;
        result.owners.add(row.owner);
        break;
      case 'clear_missing':
        await store.update(tx, [row.id], { missingSinceBlock: null });
        break;
      case 'mark_missing':
        await store.update(tx, [row.id], { missingSinceBlock: decision.sinceBlock });
        break;
      case 'drop':
        await store.update(tx, [row.id], { status: 'dropped' });
        result.dropped++;
        result.owners.add(row.owner);
        break;
      default:
        decision satisfies never;
    }
  }
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
