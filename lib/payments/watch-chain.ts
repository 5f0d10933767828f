/**
 * The chain watcher of one EVM chain. Each poll:
 *
 *  1. checks that the block it stopped at is still canonical (else rewinds: a re-organisation);
 *  2. scans the next blocks for native and ERC-20 transfers into watched deposit addresses and records
 *     them — (chain, tx hash, log index) is unique, so nothing is counted twice;
 *  3. re-checks unconfirmed payments: counts confirmations, and sends a payment whose block left the
 *     canonical chain back to `dropped` (unconfirmed);
 *  4. settles every charge whose payments changed;
 *  5. stores its cursor, so a restart resumes where it stopped.
 *
 * One poll runs in one transaction holding a per-chain advisory lock: with several app instances,
 * one watches each chain at a time.
 */
import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import { getAddress, parseAbiItem, type PublicClient } from 'viem';
import { EVM_NATIVE_TOKEN_ADDRESS, type ChainName } from '@/lib/chains/registry';
import { publicClientFor, requiredConfirmations } from '@/lib/chains/clients';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { chainCursors, charges, depositAddresses, outboundTransfers, payments } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { settleCharge } from './settle-charge';

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
/** Blocks scanned per poll at most, so one poll stays short. */
const MAX_BLOCKS_PER_POLL = 500n;
/** On a re-organisation, scan again from this many blocks back. */
const REORG_REWIND = 30n;
/** A chain without a cursor starts this many blocks back. */
const INITIAL_LOOKBACK = 100n;

export interface PollResult {
  chain: ChainName;
  scanned: { from: bigint; to: bigint } | null;
  recorded: number;
  settled: number;
  reorg: boolean;
}

export async function pollChain(chain: ChainName, options: { client?: PublicClient; now?: Date } = {}): Promise<PollResult | null> {
  const client = options.client ?? publicClientFor(chain);
  if (!client) return null;
  return getDb().transaction(async (tx) => {
    const [lock] = await tx.execute<{ locked: boolean }>(
      sql`select pg_try_advisory_xact_lock(hashtextextended(${`chain-watcher:${chain}`}, 0)) as locked`,
    );
    if (!lock?.locked) return null;
    return pollLocked(tx, chain, client, options.now ?? new Date());
  });
}

async function pollLocked(tx: DbOrTx, chain: ChainName, client: PublicClient, now: Date): Promise<PollResult> {
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const [cursor] = await tx.select().from(chainCursors).where(eq(chainCursors.chain, chain));
  let from = cursor ? cursor.lastBlock + 1n : latest > INITIAL_LOOKBACK ? latest - INITIAL_LOOKBACK : 0n;
  let reorg = false;
  if (cursor) {
    const block = await client.getBlock({ blockNumber: cursor.lastBlock }).catch(() => null);
    if (!block || block.hash !== cursor.lastBlockHash) {
      reorg = true;
      from = cursor.lastBlock > REORG_REWIND ? cursor.lastBlock - REORG_REWIND : 0n;
    }
  }
  const touched = new Set<string>();
  let recorded = 0;
  let scanned: PollResult['scanned'] = null;

  if (from <= latest) {
    const to = latest - from + 1n > MAX_BLOCKS_PER_POLL ? from + MAX_BLOCKS_PER_POLL - 1n : latest;
    scanned = { from, to };
    // Only the token contracts of watched charges are scanned; the watched addresses themselves are
    // looked up by the recipients found, never all loaded (tens of thousands at a busy merchant).
    const watchedTokens = await tx
      .selectDistinct({ tokenAddress: charges.tokenAddress })
      .from(depositAddresses)
      .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
      .where(and(eq(depositAddresses.chain, chain), gt(depositAddresses.watchUntil, now)));
    const tokens = new Set(watchedTokens.map((row) => row.tokenAddress.toLowerCase()));
    if (tokens.size > 0) {
      const found = await findTransfers(tx, client, { chain, from, to, tokens, now });
      // Our own gas top-ups into deposit addresses (before a sweep) are platform cost, not payments.
      const ours = found.length
        ? await tx
            .select({ txHash: outboundTransfers.txHash })
            .from(outboundTransfers)
            .where(
              and(
                eq(outboundTransfers.chain, chain),
                eq(outboundTransfers.purpose, 'gas_topup'),
                inArray(
                  outboundTransfers.txHash,
                  found.map((t) => t.txHash),
                ),
              ),
            )
        : [];
      const ownHashes = new Set(ours.map((row) => row.txHash.toLowerCase()));
      for (const transfer of found.filter((t) => !ownHashes.has(t.txHash.toLowerCase()))) {
        // New, or back from `dropped` after a re-organisation put it in another block: (re)count it.
        const inserted = await tx
          .insert(payments)
          .values({ id: newId('payment'), ...transfer, chain })
          .onConflictDoUpdate({
            target: [payments.chain, payments.txHash, payments.logIndex],
            set: { status: 'pending', blockNumber: transfer.blockNumber, blockHash: transfer.blockHash },
            setWhere: eq(payments.status, 'dropped'),
          })
          .returning({ chargeId: payments.chargeId });
        if (inserted[0]) {
          recorded++;
          touched.add(inserted[0].chargeId);
        }
      }
    }
    const toBlock = await client.getBlock({ blockNumber: to });
    await tx
      .insert(chainCursors)
      .values({ chain, lastBlock: to, lastBlockHash: toBlock.hash })
      .onConflictDoUpdate({ target: chainCursors.chain, set: { lastBlock: to, lastBlockHash: toBlock.hash, updatedAt: now } });
  }

  for (const chargeId of await updateConfirmations(tx, chain, client, latest)) touched.add(chargeId);
  for (const chargeId of touched) await settleCharge(tx, chargeId);
  return { chain, scanned, recorded, settled: touched.size, reorg };
}

type FoundTransfer = Omit<typeof payments.$inferInsert, 'id' | 'chain'>;

async function findTransfers(
  tx: DbOrTx,
  client: PublicClient,
  { chain, from, to, tokens, now }: { chain: ChainName; from: bigint; to: bigint; tokens: Set<string>; now: Date },
): Promise<FoundTransfer[]> {
  const found: FoundTransfer[] = [];
  // The token contracts watched charges are priced in (registry tokens and merchants' custom ERC-20s).
  const erc20s = [...tokens].filter((address) => address !== EVM_NATIVE_TOKEN_ADDRESS);
  if (erc20s.length) {
    const logs = (
      await client.getLogs({
        address: erc20s as `0x${string}`[],
        event: TRANSFER_EVENT,
        fromBlock: from,
        toBlock: to,
      })
    ).filter((log) => log.args.to && log.args.value && log.transactionHash !== null && log.blockHash !== null);
    // viem decodes `to` in EIP-55 form, as deposit addresses are stored.
    const watched = await watchedAddresses(
      tx,
      chain,
      now,
      logs.map((log) => log.args.to!),
    );
    for (const log of logs) {
      const charge = watched.get(log.args.to!.toLowerCase());
      // Only the charge's own token pays it: another token sent to the address is not counted as payment.
      if (!charge || charge.token !== log.address.toLowerCase()) continue;
      found.push({
        chargeId: charge.chargeId,
        txHash: log.transactionHash!,
        logIndex: log.logIndex ?? 0,
        fromAddress: log.args.from ?? '0x',
        toAddress: log.args.to!,
        tokenAddress: log.address,
        amountBaseUnits: log.args.value!,
        blockNumber: log.blockNumber ?? 0n,
        blockHash: log.blockHash!,
      });
    }
  }
  // Native coin: transfers are transactions, not logs — read each block's transactions (only when a
  // watched charge is priced in the native coin).
  for (let number = from; tokens.has(EVM_NATIVE_TOKEN_ADDRESS) && number <= to; number++) {
    const block = await client.getBlock({ blockNumber: number, includeTransactions: true });
    const transfers = block.transactions.filter((transaction) => transaction.to && transaction.value > 0n);
    // Nodes send addresses in lower case: the lookup wants them in EIP-55 form.
    const watched = await watchedAddresses(
      tx,
      chain,
      now,
      transfers.map((transaction) => getAddress(transaction.to!)),
    );
    for (const transaction of transfers) {
      const charge = watched.get(transaction.to!.toLowerCase());
      if (!charge || charge.token !== EVM_NATIVE_TOKEN_ADDRESS) continue;
      const receipt = await client.getTransactionReceipt({ hash: transaction.hash });
      if (receipt.status !== 'success') continue;
      found.push({
        chargeId: charge.chargeId,
        txHash: transaction.hash,
        logIndex: -1,
        fromAddress: transaction.from,
        toAddress: transaction.to!,
        tokenAddress: '0x0000000000000000000000000000000000000000',
        amountBaseUnits: transaction.value,
        blockNumber: block.number,
        blockHash: block.hash,
      });
    }
  }
  return found;
}

/** Parameters per lookup query (PostgreSQL takes at most 65,535 per statement). */
const LOOKUP_BATCH = 1_000;

/**
 * The watched deposit addresses among `recipients` (EIP-55 form, as stored), by lower-case address:
 * an index lookup on (chain, address) per batch, whatever the number of watched charges.
 */
export async function watchedAddresses(
  tx: DbOrTx,
  chain: ChainName,
  now: Date,
  recipients: string[],
): Promise<Map<string, { chargeId: string; token: string }>> {
  const unique = [...new Set(recipients)];
  const watched = new Map<string, { chargeId: string; token: string }>();
  for (let i = 0; i < unique.length; i += LOOKUP_BATCH) {
    const rows = await tx
      .select({ address: depositAddresses.address, chargeId: depositAddresses.chargeId, tokenAddress: charges.tokenAddress })
      .from(depositAddresses)
      .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
      .where(
        and(
          eq(depositAddresses.chain, chain),
          inArray(depositAddresses.address, unique.slice(i, i + LOOKUP_BATCH)),
          gt(depositAddresses.watchUntil, now),
        ),
      );
    for (const row of rows) watched.set(row.address.toLowerCase(), { chargeId: row.chargeId, token: row.tokenAddress.toLowerCase() });
  }
  return watched;
}

/** Confirms payments deep enough, drops those whose block is gone; returns the charges affected. */
async function updateConfirmations(tx: DbOrTx, chain: ChainName, client: PublicClient, latest: bigint): Promise<string[]> {
  const open = await tx
    .select()
    .from(payments)
    .where(and(eq(payments.chain, chain), inArray(payments.status, ['pending', 'confirmed']), gt(payments.blockNumber, latest - 64n)));
  const changed: string[] = [];
  const needed = BigInt(requiredConfirmations(chain));
  for (const payment of open) {
    const block = payment.blockNumber <= latest ? await client.getBlock({ blockNumber: payment.blockNumber }).catch(() => null) : null;
    if (!block || block.hash !== payment.blockHash) {
      await tx.update(payments).set({ status: 'dropped' }).where(eq(payments.id, payment.id));
      changed.push(payment.chargeId);
    } else if (payment.status === 'pending' && latest - payment.blockNumber + 1n >= needed) {
      await tx.update(payments).set({ status: 'confirmed' }).where(eq(payments.id, payment.id));
      changed.push(payment.chargeId);
    }
  }
  return changed;
}

/** The number of confirmations a payment has now (for the checkout's "confirmations so far / needed"). */
export function confirmationsOf(blockNumber: bigint, latest: bigint): number {
  return latest >= blockNumber ? Number(latest - blockNumber + 1n) : 0;
}
