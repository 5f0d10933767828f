/**
 * The chain watcher of a Solana cluster (against its configured RPC, RPC_URL_SOLANA / _DEVNET). Each
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
 */
import { and, eq, gt, sql } from 'drizzle-orm';
import { address } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, depositAddresses, payments } from '@/lib/db/schema';
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

export async function pollSolana(
  chain: ChainName,
  options: { rpc?: ReferencedTransfersRpc; now?: Date } = {},
): Promise<SolanaPollResult | null> {
  const rpc = options.rpc ?? solanaRpcFor(chain);
  if (!rpc) return null;
  const now = options.now ?? new Date();
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
    .where(and(eq(depositAddresses.chain, chain), gt(depositAddresses.watchUntil, now)));
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
        });
        if (written.isTouched) await settleCharge(tx, deposit.chargeId);
        return written;
      });
      recorded += outcome.recorded;
      if (outcome.isTouched) settled++;
    } catch (error) {
      log.warn('solana watcher: skipped a deposit address this poll', { chain, chargeId: deposit.chargeId, error });
    }
  }
  return { chain, watched: watched.length, recorded, settled };
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
      await transitionPayments(tx, { ids: [existing.id], to: status, patch: { blockNumber: transfer.slot } });
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
  if (Object.keys(cursors).length) await tx.update(depositAddresses).set(cursors).where(eq(depositAddresses.id, deposit.id));
  return { recorded, isTouched };
}
