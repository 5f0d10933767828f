/**
 * The chain watcher of a Solana cluster (against its configured RPC, RPC_URL_SOLANA / _DEVNET): the interval
 * poll, the catch-up and the only path that proves an address's history complete (its cursors, expiry). Payments
 * are usually seen sooner by the block reader woken at each slot (read-solana-blocks.ts, ADR 0037), which
 * records them the same way and moves no cursor; either may find a transfer first, it counts once. Each
 * poll, for every watched Solana deposit address, lists two accounts' transactions and validates them
 * (lib/payments/solana/find-transfers.ts):
 *
 *  - the charge's Solana Pay reference key (what a Solana Pay wallet attaches), and
 *  - the account that receives — the deposit address for SOL, its associated token account for a token —
 *    so a plain transfer (no reference, as a copy-paste send from any wallet makes) is credited too;
 *
 * then:
 *  - a valid transfer at 'confirmed' commitment is recorded as a `pending` payment, and becomes
 *    `confirmed` once 'finalized' — (chain, signature, 0) is unique, so a transfer both searches find is
 *    counted once;
 *  - a pending payment the cluster no longer lists (a rolled-back fork) goes to `dropped`;
 *  - every charge whose payments changed is settled exactly as on EVM chains.
 *
 * Each search keeps its own cursor on the deposit address row (`reference_cursor`, `receive_cursor`):
 * the newest signature up to which everything is finalized and handled, so a poll lists only what is
 * newer. Each deposit address is searched first (RPC, no transaction open), then its findings are
 * written in a short transaction of its own, under a per-address advisory lock and only if its cursors are
 * still the ones searched from (else another poller got there first): an RPC error (or anything else) for
 * one charge is logged and skipped, and the others' payments and cursors still commit.
 *
 * Time, as the EVM scanner's `scanned_until` (issue 29, review N5 b): each pass first reads the cluster's
 * finalized slot S and its block time T. A search that starts after S was finalized lists every
 * transaction of slots up to S, so once an address's search is complete (not cut by the signature cap, no
 * listed transaction the node could not return yet) its `searched_until` moves to T − 1 s (block times
 * have one-second resolution: a later slot may carry T too) and `searched_slot` to S. The chain's cursor
 * row (scanner_cursors, consumer 'charges') then takes the oldest `searched_until` of the watched
 * addresses; charge expiry waits for it (lib/scanner/scanned-past.ts), so a payment made in time but found
 * late still counts. Payments keep their block time, by which settleCharge judges lateness.
 *
 * Load: a pass searches at most `maxDeposits` addresses, those tried longest ago first (`searched_at`); the
 * others keep their `searched_until`, so neither they nor the chain's cursor claim more than was searched.
 */
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { address, type GetBlockTimeApi, type GetSlotApi, type Rpc } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, depositAddresses, payments, scannerCursors } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { solanaRpcFor } from '@/lib/chains/solana-rpc';
import { settleCharge } from '@/lib/payments/settle-charge';
import { transitionPayments } from '@/lib/payments/transition-payments';
import { findReferencedTransfers, type ReferencedTransfersRpc } from './find-transfers';

export interface SolanaPollResult {
  chain: ChainName;
  watched: number;
  recorded: number;
  settled: number;
}

/** What the watcher asks of a cluster: signatures and transactions, and the finalized slot with its block time. */
export type SolanaWatcherRpc = ReferencedTransfersRpc & Rpc<GetSlotApi & GetBlockTimeApi>;

/** Deposit addresses searched per pass at most (two signature listings each, plus the transactions found). */
const DEPOSITS_PER_PASS = 200;

export async function pollSolana(
  chain: ChainName,
  options: { rpc?: SolanaWatcherRpc; now?: Date; maxDeposits?: number } = {},
): Promise<SolanaPollResult | null> {
  const rpc = options.rpc ?? solanaRpcFor(chain);
  if (!rpc) return null;
  const now = options.now ?? new Date();
  // Read before any search: everything up to this slot is listed by the searches that follow.
  const searchedFrom = await confirmedSlotAndTime(rpc, chain);
  const watched = await getDb()
    .select({
      id: depositAddresses.id,
      chargeId: depositAddresses.chargeId,
      address: depositAddresses.address,
      reference: depositAddresses.reference,
      referenceCursor: depositAddresses.referenceCursor,
      receiveCursor: depositAddresses.receiveCursor,
      tokenAddress: charges.tokenAddress,
    })
    .from(depositAddresses)
    .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
    .where(and(eq(depositAddresses.chain, chain), gt(depositAddresses.watchUntil, now)))
    // Tried longest ago first (never tried before all), so a pass cut by the budget reaches the others next time.
    .orderBy(sql`${depositAddresses.searchedAt} asc nulls first`, asc(depositAddresses.createdAt), asc(depositAddresses.id))
    .limit(options.maxDeposits ?? DEPOSITS_PER_PASS);
  const native = CHAINS[chain].tokens.find((t) => t.isNative)!;
  let recorded = 0;
  let settled = 0;

  for (const deposit of watched) {
    try {
      const splToken = deposit.tokenAddress === native.address ? undefined : deposit.tokenAddress;
      // Payments already there when the search began: only those can be found gone by it.
      const knownBefore = await getDb().select({ id: payments.id }).from(payments).where(eq(payments.chargeId, deposit.chargeId));
      const searches = await searchDeposit(rpc, { deposit, splToken });
      const outcome = await getDb().transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`chain-watcher:${chain}:${deposit.id}`}, 0))`);
        const [current] = await tx
          .select({ referenceCursor: depositAddresses.referenceCursor, receiveCursor: depositAddresses.receiveCursor })
          .from(depositAddresses)
          .where(eq(depositAddresses.id, deposit.id));
        // Another poller moved the cursors after this one read them: it searched later, its findings count.
        if (current?.referenceCursor !== deposit.referenceCursor || current.receiveCursor !== deposit.receiveCursor) {
          return { recorded: 0, isTouched: false };
        }
        const written = await recordDeposit(tx, {
          chain,
          deposit,
          searches,
          knownBefore: new Set(knownBefore.map((row) => row.id)),
          searchedFrom,
        });
        if (written.isTouched) await settleCharge(tx, deposit.chargeId);
        return written;
      });
      recorded += outcome.recorded;
      if (outcome.isTouched) settled++;
    } catch (error) {
      log.warn('solana watcher: skipped a deposit address this poll', { chain, chargeId: deposit.chargeId, error });
      // Tried: to the back of the queue, its time unclaimed.
      await getDb()
        .update(depositAddresses)
        .set({ searchedAt: new Date() })
        .where(eq(depositAddresses.id, deposit.id))
        .catch(() => undefined);
    }
  }
  if (searchedFrom) await moveChainCursor(chain, searchedFrom, now);
  return { chain, watched: watched.length, recorded, settled };
}

/** The cluster's finalized slot, and the time up to which every stamped transaction is in it or before; undefined when the node cannot tell. */
async function confirmedSlotAndTime(rpc: SolanaWatcherRpc, chain: ChainName): Promise<SearchedFrom | undefined> {
  try {
    // Finalized, not confirmed: every node has the block time of a rooted slot; the searches that follow (at
    // 'confirmed') list everything up to it all the same, expiry only waits the few seconds between the two.
    const slot = await rpc.getSlot({ commitment: 'finalized' }).send();
    const blockTime = await rpc.getBlockTime(slot).send();
    if (blockTime === null) return undefined;
    // One second less: block times are whole seconds, and a slot after `slot` may carry the same one.
    return { slot, until: new Date((Number(blockTime) - 1) * 1000) };
  } catch (error) {
    // Payments are still found; only time is not claimed, so expiry keeps waiting.
    log.warn('solana watcher: could not read the cluster slot and time; the cursor stays', { chain, error });
    return undefined;
  }
}

/**
 * The chain's cursor row: the oldest `searched_until` of the watched addresses (one never searched counts
 * from its creation: nothing was paid to it before it existed), or this pass's time when none is watched.
 */
async function moveChainCursor(chain: ChainName, searchedFrom: SearchedFrom, now: Date): Promise<void> {
  const [oldest] = await getDb()
    .select({
      untilEpoch: sql<
        string | null
      >`extract(epoch from min(coalesce(${depositAddresses.searchedUntil}, ${depositAddresses.createdAt})))::text`,
      slot: sql<string | null>`min(${depositAddresses.searchedSlot})::text`,
    })
    .from(depositAddresses)
    .where(and(eq(depositAddresses.chain, chain), gt(depositAddresses.watchUntil, now)));
  const until = oldest?.untilEpoch ? new Date(Math.floor(Number(oldest.untilEpoch) * 1000)) : undefined;
  const scannedUntil = until && until < searchedFrom.until ? until : searchedFrom.until;
  const lastBlock = oldest?.slot ? BigInt(oldest.slot) : searchedFrom.slot;
  const values = { lastBlock, lastBlockHash: '', scannedUntil, updatedAt: new Date() };
  await getDb()
    .insert(scannerCursors)
    .values({ chain, consumer: 'charges', ...values })
    .onConflictDoUpdate({ target: [scannerCursors.chain, scannerCursors.consumer], set: values });
}

interface SearchedFrom {
  slot: bigint;
  /** Every transaction stamped at or before this is in `slot` or before (block times never decrease). */
  until: Date;
}

interface WatchedDeposit {
  id: string;
  chargeId: string;
  address: string;
  reference: string | null;
  referenceCursor: string | null;
  receiveCursor: string | null;
  tokenAddress: string;
}

type Search = Awaited<ReturnType<typeof findReferencedTransfers>>;

/** One deposit address, before any transaction: both searches from their cursors (RPC only). */
async function searchDeposit(
  rpc: ReferencedTransfersRpc,
  { deposit, splToken }: { deposit: WatchedDeposit; splToken: string | undefined },
): Promise<{ byReference?: Search; byReceiver: Search }> {
  const receiving = splToken
    ? (await findAssociatedTokenPda({ owner: address(deposit.address), mint: address(splToken), tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0]
    : deposit.address;
  const common = { recipient: deposit.address, commitment: 'confirmed' as const, ...(splToken ? { splToken } : {}) };
  const byReference = deposit.reference
    ? await findReferencedTransfers(rpc, {
        ...common,
        reference: deposit.reference,
        ...(deposit.referenceCursor ? { untilSignature: deposit.referenceCursor } : {}),
      })
    : undefined;
  const byReceiver = await findReferencedTransfers(rpc, {
    ...common,
    listAddress: receiving,
    ...(deposit.receiveCursor ? { untilSignature: deposit.receiveCursor } : {}),
  });
  return { byReceiver, ...(byReference ? { byReference } : {}) };
}

/** One deposit address, in its transaction: payments recorded or dropped, cursors moved. */
async function recordDeposit(
  tx: DbOrTx,
  input: {
    chain: ChainName;
    deposit: WatchedDeposit;
    searches: { byReference?: Search; byReceiver: Search };
    knownBefore: ReadonlySet<string>;
    searchedFrom: SearchedFrom | undefined;
  },
): Promise<{ recorded: number; isTouched: boolean }> {
  const { chain, deposit } = input;
  const { byReference, byReceiver } = input.searches;
  const searches = byReference ? [byReference, byReceiver] : [byReceiver];

  const transfers = new Map(searches.flatMap((found) => found.transfers).map((transfer) => [transfer.signature, transfer]));
  const known = await tx.select().from(payments).where(eq(payments.chargeId, deposit.chargeId));
  let recorded = 0;
  let isTouched = false;
  for (const transfer of transfers.values()) {
    const status = transfer.confirmationStatus === 'finalized' ? ('confirmed' as const) : ('pending' as const);
    const existing = known.find((p) => p.txHash === transfer.signature);
    if (existing && (existing.status === status || existing.status === 'confirmed')) continue;
    if (existing) {
      await transitionPayments(tx, {
        ids: [existing.id],
        to: status,
        patch: { blockNumber: transfer.slot, blockTime: blockTimeOf(transfer) },
      });
      isTouched = true;
      continue;
    }
    await tx
      .insert(payments)
      .values({
        id: newId('payment'),
        chargeId: deposit.chargeId,
        chain,
        txHash: transfer.signature,
        logIndex: 0,
        fromAddress: transfer.payer,
        toAddress: deposit.address,
        tokenAddress: deposit.tokenAddress,
        amountBaseUnits: transfer.received,
        blockNumber: transfer.slot,
        blockHash: '',
        // Lateness is judged by it (settleCharge), not by when this poll saw the transfer.
        blockTime: blockTimeOf(transfer),
        status,
      })
      .onConflictDoNothing();
    recorded++;
    isTouched = true;
  }

  // Pending payments the cluster no longer lists were on a fork that lost. (A pending payment is never
  // behind a cursor: cursors only pass finalized signatures; one recorded after the search began is
  // not judged by it.)
  const listed = new Set([
    ...transfers.keys(),
    ...searches.flatMap((found) => found.rejected.filter((r) => r.reason === 'not_found').map((r) => r.signature)),
  ]);
  const gone = known.filter((p) => p.status === 'pending' && input.knownBefore.has(p.id) && !listed.has(p.txHash));
  if (gone.length && searches.every((found) => found.isComplete)) {
    await transitionPayments(tx, { ids: gone.map((p) => p.id), to: 'dropped' });
    isTouched = true;
  }

  const cursors = {
    ...(byReference?.finalizedThrough ? { referenceCursor: byReference.finalizedThrough } : {}),
    ...(byReceiver.finalizedThrough ? { receiveCursor: byReceiver.finalizedThrough } : {}),
  };
  // Searched through the pass's slot only if nothing listed is left unread (cut by the cap, or not returned yet).
  const isSearched = searches.every((found) => found.isComplete && !found.rejected.some((r) => r.reason === 'not_found'));
  const searched =
    isSearched && input.searchedFrom
      ? {
          searchedSlot: sql`greatest(${depositAddresses.searchedSlot}, ${input.searchedFrom.slot})`,
          searchedUntil: sql`greatest(${depositAddresses.searchedUntil}, ${input.searchedFrom.until.toISOString()}::timestamptz)`,
        }
      : {};
  await tx
    .update(depositAddresses)
    .set({ ...cursors, ...searched, searchedAt: new Date() })
    .where(eq(depositAddresses.id, deposit.id));
  return { recorded, isTouched };
}

function blockTimeOf(transfer: { blockTime: bigint | null }): Date | null {
  return transfer.blockTime === null ? null : new Date(Number(transfer.blockTime) * 1000);
}
