/**
 * The life of a transfer the block scanner saw on chain (a charge payment, a wallet's incoming transfer):
 *
 *   pending ──► confirmed   (its block is `confirmations` deep on the canonical chain)
 *      │  ▲
 *      ▼  │  (found again: the transaction was re-included in another block, or mined after all)
 *   dropped                 (its block left the chain and the transaction stayed out of it after re-checks)
 *
 * A block leaving the chain is not a drop: a valid transaction re-organised out normally lands again in a
 * later block, and the transfer follows it there (still `pending`, counting its confirmations afresh).
 * `confirmed` is final in practice (the depth is the chain's promise); a re-organisation deeper than that
 * sends it back to `pending` to be confirmed again.
 */
import { defineStateMachine } from '@/lib/state-machine';

export const OBSERVED_TRANSFER_STATUSES = ['pending', 'confirmed', 'dropped'] as const;
export type ObservedTransferStatus = (typeof OBSERVED_TRANSFER_STATUSES)[number];

/** The scanner's own moves (the diagram above). A consumer may allow more: payments add Solana's dropped → confirmed. */
export const observedTransferMachine = defineStateMachine({
  name: 'observed transfer',
  statuses: OBSERVED_TRANSFER_STATUSES,
  transitions: {
    pending: ['confirmed', 'dropped'],
    confirmed: ['pending'],
    dropped: ['pending'],
  },
});

/** Blocks a transaction may stay off the chain (unknown to the node) before its transfer is dropped, at least. */
const MIN_DROP_AFTER_BLOCKS = 2n;
/** More blocks it may wait while the node still holds it in its mempool (it may be mined late). */
export const MEMPOOL_GRACE_BLOCKS = 64n;

/** What a re-check of a pending transfer found on chain. */
export type OnChainSighting =
  /** Its block is still canonical. */
  | { kind: 'in_block' }
  /** Its block left the chain, and its transaction is in a later block the scanner has not reached yet. */
  | { kind: 'reincluded_ahead' }
  /** Its block left the chain and the transaction is nowhere on it (or no longer makes this transfer). */
  | { kind: 'missing'; inMempool: boolean };

export type RecheckDecision =
  | { action: 'keep' }
  | { action: 'confirm' }
  /** Found present again: forget an earlier miss. */
  | { action: 'clear_missing' }
  /** First miss: remember since when, never drop on it. */
  | { action: 'mark_missing'; sinceBlock: bigint }
  | { action: 'drop' };

/**
 * The next step for a pending transfer after a re-check. Pure: the scanner reads the chain, this decides.
 * `latest` is the head; `confirmations` the chain's depth.
 */
export function decideRecheck(input: {
  blockNumber: bigint;
  missingSinceBlock: bigint | null;
  sighting: OnChainSighting;
  latest: bigint;
  confirmations: number;
}): RecheckDecision {
  const { sighting, latest, missingSinceBlock } = input;
  if (sighting.kind === 'in_block') {
    if (latest >= input.blockNumber && latest - input.blockNumber + 1n >= BigInt(input.confirmations)) return { action: 'confirm' };
    return missingSinceBlock === null ? { action: 'keep' } : { action: 'clear_missing' };
  }
  if (sighting.kind === 'reincluded_ahead') return missingSinceBlock === null ? { action: 'keep' } : { action: 'clear_missing' };
  if (missingSinceBlock === null) return { action: 'mark_missing', sinceBlock: latest };
  return latest - missingSinceBlock >= dropAfterBlocks(input.confirmations, sighting.inMempool) ? { action: 'drop' } : { action: 'keep' };
}

/** Blocks a transfer stays missing before it is dropped: the chain's depth (a re-inclusion has that long), more while in a mempool. */
export function dropAfterBlocks(confirmations: number, inMempool: boolean): bigint {
  const base = BigInt(confirmations) > MIN_DROP_AFTER_BLOCKS ? BigInt(confirmations) : MIN_DROP_AFTER_BLOCKS;
  return inMempool ? base + MEMPOOL_GRACE_BLOCKS : base;
}
