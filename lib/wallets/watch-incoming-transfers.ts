/**
 * The incoming-transfer indexer of one EVM chain: transfers INTO users' service wallets, from anyone,
 * for the wallet's Activity tab. Each poll:
 *
 *  1. checks that the block it stopped at is still canonical; if not (a re-organisation), deletes the
 *     recent transfers whose block left the chain and scans again from before the fork;
 *  2. scans the next blocks: ERC-20 Transfer logs of the chain's registry tokens whose `to` topic is a
 *     service wallet (the address list goes to the node in chunks), and native transfers among the
 *     blocks' transactions. (chain, tx hash, log index) is unique, so a transfer
 *     is recorded once however often it is seen;
 *  3. marks transfers deep enough as confirmed, and stores its cursor (a restart resumes there).
 *
 * Not indexed: zero-value transfers (address-poisoning spam), tokens outside the registry, our own gas
 * top-ups (the platform's cost, spent at once on the transfer they pay for), and native coin moved by
 * contracts (internal transactions: they need a tracing node).
 *
 * One poll runs in one transaction holding a per-chain advisory lock (its own, not the charge
 * watcher's): with several app instances, one indexes each chain at a time.
 */
import { and, eq, gt, inArray, isNotNull, lte, ne, sql } from 'drizzle-orm';
import { getAddress, parseAbiItem, type Block, type Hex, type PublicClient } from 'viem';
import { CHAINS, EVM_NATIVE_TOKEN_ADDRESS, type ChainName } from '@/lib/chains/registry';
import { publicClientFor, requiredConfirmations } from '@/lib/chains/clients';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { outboundTransfers, walletIncomingTransfers, wallets, walletTransferCursors } from '@/lib/db/schema';
import { randomBase62 } from '@/lib/ids';
import { forgetBalances } from './wallet-balances';

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
/** Blocks scanned per poll at most: every block is read whole (native transfers), so a poll stays short. */
const MAX_BLOCKS_PER_POLL = 100n;
/** On a re-organisation, scan again from this many blocks back. */
const REORG_REWIND = 30n;
/** On a re-organisation, recorded transfers this deep are checked against the canonical chain. */
const REORG_CHECK_DEPTH = 64n;
/** A chain without a cursor starts this many blocks back. */
const INITIAL_LOOKBACK = 100n;
/** Addresses per getLogs request (an OR of `to` topics): nodes limit the size of a filter. */
const ADDRESS_CHUNK = 200;
/** Blocks fetched at once. */
const BLOCK_READS_AT_ONCE = 8;

export interface IncomingPollResult {
  chain: ChainName;
  scanned: { from: bigint; to: bigint } | null;
  /** Transfers recorded (or moved to another block after a re-organisation). */
  recorded: number;
  /** Transfers deleted because their block left the chain. */
  removed: number;
  reorg: boolean;
}

export interface IncomingPollOptions {
  client?: PublicClient;
  /** Addresses per getLogs request (default ADDRESS_CHUNK). */
  addressChunk?: number;
}

export async function pollIncomingTransfers(chain: ChainName, options: IncomingPollOptions = {}): Promise<IncomingPollResult | null> {
  const client = options.client ?? publicClientFor(chain);
  if (!client) return null;
  const outcome = await getDb().transaction(async (tx) => {
    const [lock] = await tx.execute<{ locked: boolean }>(
      sql`select pg_try_advisory_xact_lock(hashtextextended(${`wallet-incoming:${chain}`}, 0)) as locked`,
    );
    if (!lock?.locked) return null;
    return pollLocked(tx, chain, client, options.addressChunk ?? ADDRESS_CHUNK);
  });
  if (!outcome) return null;
  // After the commit: Home reads these wallets' balances afresh.
  for (const address of outcome.changedWallets) forgetBalances(chain, address);
  return outcome.result;
}

async function pollLocked(
  tx: DbOrTx,
  chain: ChainName,
  client: PublicClient,
  addressChunk: number,
): Promise<{ result: IncomingPollResult; changedWallets: Set<string> }> {
  // The head is read BEFORE the wallet list: a wallet created after the list is read had no address
  // anyone knew before, so nothing up to this head can have been sent to it.
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const [cursor] = await tx.select().from(walletTransferCursors).where(eq(walletTransferCursors.chain, chain));
  let from = cursor ? cursor.lastBlock + 1n : latest > INITIAL_LOOKBACK ? latest - INITIAL_LOOKBACK : 0n;
  const changedWallets = new Set<string>();
  let reorg = false;
  let removed = 0;
  if (cursor) {
    const block = await client.getBlock({ blockNumber: cursor.lastBlock }).catch(() => null);
    if (!block || block.hash !== cursor.lastBlockHash) {
      reorg = true;
      from = cursor.lastBlock > REORG_REWIND ? cursor.lastBlock - REORG_REWIND : 0n;
      for (const orphan of await removeOrphanedTransfers(tx, chain, client, cursor.lastBlock)) {
        removed++;
        changedWallets.add(orphan.toAddress);
        if (orphan.blockNumber < from) from = orphan.blockNumber;
      }
    }
  }

  let recorded = 0;
  let scanned: IncomingPollResult['scanned'] = null;
  if (from <= latest) {
    const to = latest - from + 1n > MAX_BLOCKS_PER_POLL ? from + MAX_BLOCKS_PER_POLL - 1n : latest;
    const watched = await tx
      .select({ address: wallets.address })
      .from(wallets)
      .where(and(eq(wallets.family, 'evm'), isNotNull(wallets.userId)));
    const scan = await scanBlocks(
      client,
      chain,
      { from, to, addressChunk },
      new Map(watched.map((w) => [w.address.toLowerCase(), w.address])),
    );
    if (!scan) {
      // The chain changed while we read it: nothing is written, the next poll starts over.
      return { result: { chain, scanned: null, recorded: 0, removed, reorg: true }, changedWallets };
    }
    scanned = { from, to };
    const found = await withoutOwnGasTopUps(tx, chain, scan.transfers);
    for (const transfer of found) {
      const written = await tx
        .insert(walletIncomingTransfers)
        .values({ id: `win_${randomBase62(22)}`, chain, ...transfer })
        .onConflictDoUpdate({
          target: [walletIncomingTransfers.chain, walletIncomingTransfers.txHash, walletIncomingTransfers.logIndex],
          // Seen again in another block (re-organised into it): follow it there.
          set: { blockNumber: transfer.blockNumber, blockHash: transfer.blockHash, blockTime: transfer.blockTime, status: 'pending' },
          setWhere: ne(walletIncomingTransfers.blockHash, transfer.blockHash),
        })
        .returning({ id: walletIncomingTransfers.id });
      if (written.length) {
        recorded++;
        changedWallets.add(transfer.toAddress);
      }
    }
    await tx
      .insert(walletTransferCursors)
      .values({ chain, lastBlock: to, lastBlockHash: scan.toBlockHash })
      .onConflictDoUpdate({
        target: walletTransferCursors.chain,
        set: { lastBlock: to, lastBlockHash: scan.toBlockHash, updatedAt: new Date() },
      });
  }

  const confirmedUpTo = latest - BigInt(requiredConfirmations(chain)) + 1n;
  await tx
    .update(walletIncomingTransfers)
    .set({ status: 'confirmed' })
    .where(
      and(
        eq(walletIncomingTransfers.chain, chain),
        eq(walletIncomingTransfers.status, 'pending'),
        lte(walletIncomingTransfers.blockNumber, confirmedUpTo),
      ),
    );
  return { result: { chain, scanned, recorded, removed, reorg }, changedWallets };
}

/** Deletes the recent transfers whose block is no longer on the canonical chain; returns them. */
async function removeOrphanedTransfers(tx: DbOrTx, chain: ChainName, client: PublicClient, lastBlock: bigint) {
  const recent = await tx
    .select({
      id: walletIncomingTransfers.id,
      blockNumber: walletIncomingTransfers.blockNumber,
      blockHash: walletIncomingTransfers.blockHash,
      toAddress: walletIncomingTransfers.toAddress,
    })
    .from(walletIncomingTransfers)
    .where(and(eq(walletIncomingTransfers.chain, chain), gt(walletIncomingTransfers.blockNumber, lastBlock - REORG_CHECK_DEPTH)));
  const canonical = new Map<bigint, string | null>();
  for (const number of new Set(recent.map((row) => row.blockNumber))) {
    canonical.set(number, (await client.getBlock({ blockNumber: number }).catch(() => null))?.hash ?? null);
  }
  const orphans = recent.filter((row) => canonical.get(row.blockNumber) !== row.blockHash);
  if (orphans.length)
    await tx.delete(walletIncomingTransfers).where(
      inArray(
        walletIncomingTransfers.id,
        orphans.map((row) => row.id),
      ),
    );
  return orphans;
}

type FoundTransfer = Omit<typeof walletIncomingTransfers.$inferInsert, 'id' | 'chain' | 'status' | 'createdAt'> & {
  toAddress: string;
  blockNumber: bigint;
  blockHash: string;
  blockTime: Date;
};

/**
 * Native and registry-token transfers into `watched` (lower-case address → stored address) in
 * [from, to]. Undefined when the logs and the blocks disagree (a re-organisation while reading).
 */
async function scanBlocks(
  client: PublicClient,
  chain: ChainName,
  { from, to, addressChunk }: { from: bigint; to: bigint; addressChunk: number },
  watched: Map<string, string>,
): Promise<{ transfers: FoundTransfer[]; toBlockHash: string } | undefined> {
  const numbers: bigint[] = [];
  for (let n = from; n <= to; n++) numbers.push(n);
  const blocks = new Map<bigint, Block<bigint, true>>();
  for (let i = 0; i < numbers.length; i += BLOCK_READS_AT_ONCE) {
    const batch = await Promise.all(
      numbers.slice(i, i + BLOCK_READS_AT_ONCE).map((blockNumber) => client.getBlock({ blockNumber, includeTransactions: true })),
    );
    for (const block of batch) blocks.set(block.number!, block);
  }
  const blockAt = (number: bigint) => blocks.get(number)!;
  const transfers: FoundTransfer[] = [];

  const tokens = CHAINS[chain].tokens.filter((token) => !token.isNative).map((token) => token.address as Hex);
  const addresses = [...watched.keys()] as Hex[];
  for (let i = 0; tokens.length && i < addresses.length; i += addressChunk) {
    const logs = await client.getLogs({
      address: tokens,
      event: TRANSFER_EVENT,
      args: { to: addresses.slice(i, i + addressChunk) },
      fromBlock: from,
      toBlock: to,
    });
    for (const log of logs) {
      const recipient = log.args.to ? watched.get(log.args.to.toLowerCase()) : undefined;
      if (!recipient || !log.args.value || log.blockNumber === null || log.transactionHash === null) continue;
      const block = blockAt(log.blockNumber);
      if (block.hash !== log.blockHash) return undefined;
      transfers.push({
        txHash: log.transactionHash,
        logIndex: log.logIndex ?? 0,
        fromAddress: log.args.from ?? '0x',
        toAddress: recipient,
        tokenAddress: getAddress(log.address),
        amountBaseUnits: log.args.value,
        blockNumber: log.blockNumber,
        blockHash: block.hash,
        blockTime: new Date(Number(block.timestamp) * 1000),
      });
    }
  }

  for (const block of blocks.values()) {
    for (const transaction of block.transactions) {
      const recipient = transaction.to ? watched.get(transaction.to.toLowerCase()) : undefined;
      // Service wallets are plain accounts (no code): a transaction paying one cannot revert.
      if (!recipient || transaction.value === 0n) continue;
      transfers.push({
        txHash: transaction.hash,
        logIndex: -1,
        fromAddress: getAddress(transaction.from),
        toAddress: recipient,
        tokenAddress: EVM_NATIVE_TOKEN_ADDRESS,
        amountBaseUnits: transaction.value,
        blockNumber: block.number!,
        blockHash: block.hash!,
        blockTime: new Date(Number(block.timestamp) * 1000),
      });
    }
  }
  return { transfers, toBlockHash: blockAt(to).hash! };
}

async function withoutOwnGasTopUps(tx: DbOrTx, chain: ChainName, found: FoundTransfer[]): Promise<FoundTransfer[]> {
  const native = found.filter((t) => t.logIndex === -1).map((t) => t.txHash);
  if (!native.length) return found;
  const ours = await tx
    .select({ txHash: outboundTransfers.txHash })
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chain, chain), eq(outboundTransfers.purpose, 'gas_topup'), inArray(outboundTransfers.txHash, native)));
  const ownHashes = new Set(ours.map((row) => row.txHash.toLowerCase()));
  return found.filter((t) => !ownHashes.has(t.txHash.toLowerCase()));
}
