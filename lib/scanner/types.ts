import type { Hex } from 'viem';
import type { ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import type { ObservedTransferStatus } from './state';

/** The scanner's consumers: each has its own cursor, lock and table. */
export type ScannerConsumerName = 'charges' | 'wallet-activity';

/** Log index of a top-level native transfer (the transaction's own value). */
export const NATIVE_LOG_INDEX = -1;
/** Internal native transfers use -2 - their position among the transaction's value calls. */
export const internalLogIndex = (position: number) => -2 - position;
/** Native coin credited from a deposit's balance (no traces): not tied to one transaction. */
export const BALANCE_CHANGE_LOG_INDEX = -1_000;

/** A transfer found on chain, ready to be recorded for a watched target. */
export interface ObservedTransfer {
  txHash: string;
  logIndex: number;
  fromAddress: string;
  /** The recipient in the form its consumer stores it (EIP-55). */
  toAddress: string;
  /** EIP-55 token contract; the zero address for the native coin. */
  tokenAddress: string;
  amountBaseUnits: bigint;
  blockNumber: bigint;
  blockHash: string;
  blockTime: Date;
}

/** A token transfer into a watched target that does not pay it but that its consumer wants to hear of. */
export interface NoticedTransfer<Target> {
  target: Target;
  txHash: string;
  logIndex: number;
  /** EIP-55 token contract. */
  tokenAddress: string;
  amountBaseUnits: bigint;
  blockNumber: bigint;
  blockHash: string;
}

/** A recorded transfer, as the scanner needs to see it. */
export interface StoredTransfer {
  id: string;
  /** What a change to it touches: the charge (charge watcher) or the receiving wallet (wallet activity). */
  owner: string;
  txHash: string;
  logIndex: number;
  toAddress: string;
  tokenAddress: string;
  amountBaseUnits: bigint;
  blockNumber: bigint;
  blockHash: string;
  status: ObservedTransferStatus;
  missingSinceBlock: bigint | null;
}

type TransferLocation = Pick<ObservedTransfer, 'logIndex' | 'blockNumber' | 'blockHash' | 'blockTime'>;

/** Where a consumer keeps its transfers (payments, wallet_incoming_transfers). */
export interface TransferStore<Target> {
  /** Recorded transfers of these transactions, any status. */
  byTxHashes(tx: DbOrTx, chain: ChainName, txHashes: string[]): Promise<StoredTransfer[]>;
  /**
   * Records new transfers in one statement (at most a few thousand); returns the owner of each one inserted
   * (those already there are skipped).
   */
  insert(tx: DbOrTx, chain: ChainName, found: readonly { transfer: ObservedTransfer; target: Target }[]): Promise<string[]>;
  /**
   * Moves a transfer: with a block (re-included in another block, or found again), back to `pending` there
   * and no longer missing; with a log index only, it steps aside for another row.
   */
  relocate(tx: DbOrTx, id: string, location: Partial<TransferLocation>): Promise<void>;
  /** The chain's pending transfers, through a partial index: what each poll re-checks. */
  open(tx: DbOrTx, chain: ChainName): Promise<StoredTransfer[]>;
  update(tx: DbOrTx, ids: string[], patch: { status?: ObservedTransferStatus; missingSinceBlock?: bigint | null }): Promise<void>;
  /**
   * After a re-organisation: the confirmed transfers in blocks from `fromBlock` on, back to `pending`, so the
   * re-checks follow them again (a re-organisation deeper than the confirmation depth). Returns their owners.
   */
  reopenSettled?(tx: DbOrTx, chain: ChainName, fromBlock: bigint): Promise<string[]>;
}

/** A native-coin address whose balance must match what was recorded for it (the no-traces fallback). */
export interface BalanceWatch<Target> {
  address: string;
  target: Target;
  /**
   * Native coin the records explain there at the window's end, in base units: received (not dropped), plus
   * our gas top-ups into it (any not failed: one may be in the window before the engine marks it included),
   * minus what our transfers out of it moved and cost up to that block. An upper bound, so our own
   * transfers are never credited as a payment; a payment arriving beside a top-up still on its way is
   * credited once that top-up is counted on chain too.
   */
  recorded: bigint;
}

/**
 * What a consumer tells the scanner: which assets and addresses it watches, whether a transfer counts,
 * where it is kept, and what to do once something changed.
 */
export interface ScanConsumer<Target extends { address: string }> {
  name: ScannerConsumerName;
  /** Advisory-lock name prefix: one poller per chain and consumer across instances. */
  lockName: string;
  /** Blocks per poll at most when whole blocks are read (native coin watched); 5× that for logs only. */
  blocksPerPoll: bigint;
  /** The ERC-20 contracts whose Transfer logs to read, and whether native coin is watched, this poll. */
  watchedAssets(tx: DbOrTx, chain: ChainName, now: Date): Promise<{ erc20s: Hex[]; native: boolean }>;
  /** The watched targets among these recipients (EIP-55), by lower-case address; an index lookup, never a full load. */
  matchRecipients(tx: DbOrTx, chain: ChainName, recipients: string[], now: Date): Promise<Map<string, Target>>;
  /** Whether a transfer of this token (lower-case address) into the target counts. */
  accepts(target: Target, tokenAddress: string): boolean;
  store: TransferStore<Target>;
  /**
   * For the no-traces fallback: open addresses whose native balance at `atBlock` (the window's end) should
   * equal what was recorded, our own top-ups in and transfers out included (N13).
   */
  balanceWatches?(tx: DbOrTx, chain: ChainName, now: Date, atBlock: bigint): Promise<BalanceWatch<Target>[]>;
  /**
   * ERC-20 transfers into a watched target that `accepts` refuses but the consumer wants noted (the swap
   * on-ramp's funding token at a charge's deposit address): which ones, and how to note them, in the poll's
   * transaction. Their tokens must be among `watchedAssets` to be read at all.
   */
  notices?: {
    wants(target: Target, tokenAddress: string): boolean;
    record(tx: DbOrTx, chain: ChainName, noticed: readonly NoticedTransfer<Target>[]): Promise<void>;
  };
  /** In the poll's transaction, after its writes: settle what changed. */
  onChanged?(tx: DbOrTx, owners: ReadonlySet<string>): Promise<void>;
  /**
   * In the poll's transaction, when it found a re-organisation: `fromBlock` is the first block scanned again.
   * The charge watcher and the wallet indexer hand the transfer engine its outbound transfers confirmed
   * there (lib/transactions/reopen-confirmed-transfers.ts, docs/adr/0036).
   */
  onReorg?(tx: DbOrTx, chain: ChainName, fromBlock: bigint): Promise<void>;
}
