/**
 * The block scanner of one EVM chain for one consumer (the charge watcher, the wallet-activity indexer).
 * Each poll reads the chain first (no database transaction is open during an RPC call: one would hold its
 * locks for as long as the node takes), then writes in one short transaction holding the (consumer,
 * chain) advisory lock, and only if the cursor is still the one it read from (else another poller did it):
 *
 *  1. checks that the cursor's block is still canonical; if not (a re-organisation), rewinds to the newest
 *     checkpoint still on the chain (the fork base, remembered if the poll then fails: one read to confirm it
 *     next time) and scans again from there; what was settled there
 *     (the consumer's transfers, and through `onReorg` our own outbound ones) is followed again (ADR 0036);
 *  2. reads the next window of blocks (./read-window.ts): token Transfer logs, top-level and internal
 *     native transfers; keeps those whose recipient the consumer watches (an index lookup of the
 *     recipients found, never a load of every watched address) and that it accepts;
 *  3. records them (./record-transfers.ts): new ones inserted, re-included ones moved to their new block;
 *     transfers the consumer only wants noted (ScanConsumer.notices) are handed to it (it dedupes: a re-scan sees them again);
 *  4. without traces, credits unexplained native balance at open deposits (./find-balance-rises.ts), net
 *     of our own top-ups into them and transfers out of them (N13);
 *  5. re-checks the pending transfers (./recheck-open-transfers.ts): confirmed at depth, re-included ones
 *     followed, missing ones dropped after re-checks;
 *  6. stores the cursor, with the time up to which every block is scanned (charge expiry waits for it);
 *  7. lets the consumer settle what changed (in the same transaction).
 *
 * Steps 1, 2, 4 and 5's reads happen before the transaction; 3, 5's decisions, 6 and 7 in it.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { BlockNotFoundError, type PublicClient } from 'viem';
import { requiredConfirmations } from '@/lib/chains/required-confirmations';
import type { ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { getDb } from '@/lib/db/client';
import { outboundTransfers } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { advanceScannedUntil, findForkBase, loadCursor, saveCursor, type ScannerCursor } from './cursor';
import { traceModeOf } from './internal-transfers';
import { balanceCredits, findBalanceRises, type BalanceRise } from './find-balance-rises';
import { headerOf, readWindow, type BlockHeader, type RawTransfer } from './read-window';
import { observeOpenTransfers, recheckOpenTransfers } from './recheck-open-transfers';
import { recordTransfers } from './record-transfers';
import { succeededTransactions } from './succeeded-transactions';
import type { NoticedTransfer, ObservedTransfer, ScanConsumer } from './types';

/** A chain without a cursor (or whose re-organisation is deeper than every checkpoint) starts this many blocks back. */
const INITIAL_LOOKBACK = 100n;
/**
 * Once the scan reached the head, blocks still to come are stamped no earlier than this before the poll
 * began: propagation and producers' clocks on a network; a local node stamps whole seconds from its own
 * clock, up to about 1.5 s behind ours.
 */
const HEAD_SLACK_MS = { local: 2_000, remote: 60_000 };

export interface ScanResult {
  chain: ChainName;
  scanned: { from: bigint; to: bigint } | null;
  /** Transfers recorded, or moved to the block that now holds them. */
  recorded: number;
  confirmed: number;
  dropped: number;
  reorg: boolean;
  /** Owners (charges, wallets) whose transfers changed. */
  owners: Set<string>;
}

export interface ScanOptions {
  client: PublicClient;
  now?: Date;
  /** Confirmation depth (default: the chain's, 1 on a local node). */
  confirmations?: number;
}

export async function scanChain<Target extends { address: string }>(
  consumer: ScanConsumer<Target>,
  chain: ChainName,
  options: ScanOptions,
): Promise<ScanResult | null> {
  const cursor = await loadCursor(getDb(), chain, consumer.name);
  const observation = await observeChain(consumer, chain, cursor, options);
  if (!observation) return { ...emptyResult(chain), reorg: true };
  return getDb().transaction(async (tx) => {
    const [lock] = await tx.execute<{ locked: boolean }>(
      sql`select pg_try_advisory_xact_lock(hashtextextended(${`${consumer.lockName}:${chain}`}, 0)) as locked`,
    );
    if (!lock?.locked) return null;
    // Another poller moved the cursor while this one read the chain: its poll counts, this one's reads are stale.
    if (!isSameCursor(cursor, await loadCursor(tx, chain, consumer.name))) return null;
    return writeObservation(tx, consumer, chain, cursor, observation);
  });
}

const emptyResult = (chain: ChainName): ScanResult => ({
  chain,
  scanned: null,
  recorded: 0,
  confirmed: 0,
  dropped: 0,
  reorg: false,
  owners: new Set(),
});

function isSameCursor(read: ScannerCursor | undefined, now: ScannerCursor | undefined): boolean {
  if (!read || !now) return read === now;
  return (
    read.lastBlock === now.lastBlock && read.lastBlockHash === now.lastBlockHash && read.updatedAt.getTime() === now.updatedAt.getTime()
  );
}

/** Everything a poll learns from the chain, read before its transaction opens. */
interface Observation<Target> {
  now: Date;
  latest: bigint;
  confirmations: number;
  reorg: boolean;
  /** After a re-organisation: the first block scanned again (the fork base + 1); settled transfers from it on are re-opened. */
  reorgFrom?: bigint;
  /** The window scanned and what it found; absent when nothing is above the cursor. */
  window?: {
    from: bigint;
    to: bigint;
    toHash: string;
    scannedUntil: Date;
    found: { transfer: ObservedTransfer; target: Target }[];
    /** Transfers the consumer only wants noted (ScanConsumer.notices). */
    noticed: NoticedTransfer<Target>[];
    /** Native balances above what was recorded (no traces): credited in the transaction for what is still unexplained. */
    rises: BalanceRise<Target>[];
  };
  /** Nothing above the cursor, which is the head: every block stamped before this is scanned. */
  atHead: Date;
  knownHashes: Map<bigint, string>;
  sightings: Awaited<ReturnType<typeof observeOpenTransfers>>;
}

/**
 * Steps 1–5's chain reads (database reads through the pool, no transaction). Undefined when the chain
 * changed while it was read: nothing is written, the next poll starts over.
 */
async function observeChain<Target extends { address: string }>(
  consumer: ScanConsumer<Target>,
  chain: ChainName,
  cursor: ScannerCursor | undefined,
  { client, now = new Date(), confirmations = requiredConfirmations(chain) }: ScanOptions,
): Promise<Observation<Target> | undefined> {
  const db = getDb();
  const pollStartedAt = now;
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  let reorg = false;

  let from = cursor ? cursor.lastBlock + 1n : latest > INITIAL_LOOKBACK ? latest - INITIAL_LOOKBACK : 0n;
  const knownHashes = new Map<bigint, string>();
  if (cursor) {
    const block = await client.getBlock({ blockNumber: cursor.lastBlock }).catch((error: unknown) => {
      if (error instanceof BlockNotFoundError) return null; // the chain now ends below it
      throw error;
    });
    if (block?.hash === cursor.lastBlockHash) {
      knownHashes.set(cursor.lastBlock, block.hash);
    } else {
      reorg = true;
      const base = await findForkBase(client, cursor.checkpoints, `${chain}:${consumer.name}`);
      if (base === undefined) {
        // Deeper than every checkpoint (or another chain behind the RPC): start again as a new cursor would.
        from = latest > INITIAL_LOOKBACK ? latest - INITIAL_LOOKBACK : 0n;
        log.warn('re-organisation deeper than the scanner checkpoints', { chain, consumer: consumer.name, from });
      } else {
        from = base + 1n;
      }
    }
  }

  const headSlack = env().LOCAL_CHAINS.includes(chain) ? HEAD_SLACK_MS.local : HEAD_SLACK_MS.remote;
  const atHead = new Date(pollStartedAt.getTime() - headSlack);
  let scannedThrough = from - 1n;
  let window: Observation<Target>['window'];
  if (from <= latest) {
    const assets = await consumer.watchedAssets(db, chain, now);
    const span = assets.native ? consumer.blocksPerPoll : consumer.blocksPerPoll * 5n;
    const to = latest - from + 1n > span ? from + span - 1n : latest;
    const toHeader = headerOf(await client.getBlock({ blockNumber: to }));
    const traceMode = assets.native ? await traceModeOf(client) : 'none';
    const read = await readWindow(client, { from, to, toHash: toHeader.hash, erc20s: assets.erc20s, native: assets.native, traceMode });
    if (!read) return undefined;
    const headers = read.headers;
    headers.set(to, toHeader);
    const headerAt = async (number: bigint): Promise<BlockHeader> => {
      const known = headers.get(number);
      if (known) return known;
      const header = headerOf(await client.getBlock({ blockNumber: number }));
      headers.set(number, header);
      return header;
    };

    const matched = await matchTransfers(db, client, consumer, chain, now, read.transfers, headerAt);
    if (!matched) return undefined;
    const { found, noticed } = matched;
    const rises =
      assets.native && traceMode === 'none' && consumer.balanceWatches
        ? await findBalanceRises(client, { watches: await consumer.balanceWatches(db, chain, now, to), from, to, headerAt })
        : [];
    for (const header of headers.values()) knownHashes.set(header.number, header.hash);
    window = {
      from,
      to,
      toHash: toHeader.hash,
      scannedUntil: to === latest && atHead > toHeader.time ? atHead : toHeader.time,
      found,
      noticed,
      rises,
    };
    scannedThrough = to;
  }

  const sightings = await observeOpenTransfers(client, await consumer.store.open(db, chain), { latest, scannedThrough, knownHashes });
  return {
    now,
    latest,
    confirmations,
    reorg,
    ...(reorg ? { reorgFrom: from } : {}),
    ...(window ? { window } : {}),
    atHead,
    knownHashes,
    sightings,
  };
}

/** Steps 3–7: the poll's writes, in one short transaction holding the lock, the cursor unchanged since it was read. */
async function writeObservation<Target extends { address: string }>(
  tx: DbOrTx,
  consumer: ScanConsumer<Target>,
  chain: ChainName,
  cursor: ScannerCursor | undefined,
  observation: Observation<Target>,
): Promise<ScanResult> {
  const result: ScanResult = { ...emptyResult(chain), reorg: observation.reorg };
  const { window } = observation;
  // A re-organisation may be deeper than the confirmation depth: what was settled in the blocks scanned
  // again is followed again like any open transfer (still there: confirmed again; re-included: moved;
  // gone, e.g. double-spent: dropped after re-checks, and its owner told, docs/adr/0036).
  if (observation.reorgFrom !== undefined && consumer.store.reopenSettled) {
    for (const owner of await consumer.store.reopenSettled(tx, chain, observation.reorgFrom)) result.owners.add(owner);
  }
  // Our own transfers confirmed there are checked again by the transfer engine, as payments are here.
  if (observation.reorgFrom !== undefined && consumer.onReorg) await consumer.onReorg(tx, chain, observation.reorgFrom);
  if (window) {
    const recorded = await recordTransfers(tx, chain, consumer.store, window.found);
    if (window.noticed.length && consumer.notices) await consumer.notices.record(tx, chain, window.noticed);
    result.recorded += recorded.recorded;
    for (const owner of recorded.owners) result.owners.add(owner);
    if (window.rises.length && consumer.balanceWatches) {
      const credits = balanceCredits(window.rises, await consumer.balanceWatches(tx, chain, observation.now, window.to));
      const credited = await recordTransfers(tx, chain, consumer.store, credits);
      result.recorded += credited.recorded;
      for (const owner of credited.owners) result.owners.add(owner);
    }
    await saveCursor(tx, {
      chain,
      consumer: consumer.name,
      previous: cursor,
      from: window.from,
      to: window.to,
      toHash: window.toHash,
      scannedUntil: window.scannedUntil,
    });
    result.scanned = { from: window.from, to: window.to };
  } else if (cursor && !observation.reorg) {
    await advanceScannedUntil(tx, cursor, observation.atHead);
  }

  const rechecked = await recheckOpenTransfers(tx, {
    chain,
    store: consumer.store,
    latest: observation.latest,
    confirmations: observation.confirmations,
    knownHashes: observation.knownHashes,
    sightings: observation.sightings,
  });
  result.confirmed = rechecked.confirmed;
  result.dropped = rechecked.dropped;
  for (const owner of rechecked.owners) result.owners.add(owner);
  if (result.owners.size && consumer.onChanged) await consumer.onChanged(tx, result.owners);
  return result;
}

/**
 * The window's transfers into watched targets that count: recipients looked up by index, the consumer's
 * token rule, successful top-level native transfers only, our own gas top-ups left out; and the ERC-20
 * transfers it only wants noted (same lookup, no further read). Undefined when a block read for its time
 * no longer has the hash its logs carry (the chain moved).
 */
async function matchTransfers<Target extends { address: string }>(
  tx: DbOrTx,
  client: PublicClient,
  consumer: ScanConsumer<Target>,
  chain: ChainName,
  now: Date,
  transfers: RawTransfer[],
  headerAt: (number: bigint) => Promise<BlockHeader>,
): Promise<{ found: { transfer: ObservedTransfer; target: Target }[]; noticed: NoticedTransfer<Target>[] } | undefined> {
  const candidates = transfers.filter((t) => t.value > 0n);
  if (!candidates.length) return { found: [], noticed: [] };
  const targets = await consumer.matchRecipients(tx, chain, [...new Set(candidates.map((t) => t.to))], now);
  const wanted: RawTransfer[] = [];
  const noticed: NoticedTransfer<Target>[] = [];
  for (const t of candidates) {
    const target = targets.get(t.to.toLowerCase());
    if (target === undefined) continue;
    if (consumer.accepts(target, t.token.toLowerCase())) wanted.push(t);
    else if (t.kind === 'erc20' && consumer.notices?.wants(target, t.token.toLowerCase())) {
      noticed.push({
        target,
        txHash: t.txHash,
        logIndex: t.logIndex,
        tokenAddress: t.token,
        amountBaseUnits: t.value,
        blockNumber: t.blockNumber,
        blockHash: t.blockHash,
      });
    }
  }
  if (!wanted.length) return { found: [], noticed };

  const topLevel = wanted.filter((t) => t.kind === 'native').map((t) => t.txHash);
  const ours = topLevel.length
    ? await tx
        .select({ txHash: outboundTransfers.txHash })
        .from(outboundTransfers)
        .where(
          and(eq(outboundTransfers.chain, chain), eq(outboundTransfers.purpose, 'gas_topup'), inArray(outboundTransfers.txHash, topLevel)),
        )
    : [];
  // Our own gas top-ups (before a sweep) are the platform's cost, not money received.
  const ownHashes = new Set(ours.map((row) => row.txHash.toLowerCase()));

  // Top-level native transfers count only when they took effect (./succeeded-transactions.ts).
  const succeeded = await succeededTransactions(
    client,
    wanted.filter((t) => t.kind === 'native' && !ownHashes.has(t.txHash.toLowerCase())),
  );

  const found: { transfer: ObservedTransfer; target: Target }[] = [];
  for (const t of wanted) {
    if (t.kind === 'native' && !succeeded.has(t.txHash.toLowerCase())) continue;
    const header = await headerAt(t.blockNumber);
    if (header.hash !== t.blockHash) return undefined;
    const target = targets.get(t.to.toLowerCase())!;
    found.push({
      target,
      transfer: {
        txHash: t.txHash,
        logIndex: t.logIndex,
        fromAddress: t.from,
        toAddress: target.address,
        tokenAddress: t.token,
        amountBaseUnits: t.value,
        blockNumber: t.blockNumber,
        blockHash: t.blockHash,
        blockTime: header.time,
      },
    });
  }
  return { found, noticed };
}
