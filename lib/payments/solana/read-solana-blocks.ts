/**
 * The Solana watcher's fast path (ADR 0037): woken at each new slot (lib/jobs/new-slots.ts), it reads the
 * cluster's new confirmed blocks once each and records the payments into watched deposit addresses found in
 * them, so a payment is seen a slot or two after its block, at a cost that does not grow with open charges:
 *
 *  - `getBlocks` from this process's slot cursor lists the new confirmed blocks (at most MAX_BLOCKS_PER_PASS
 *    a pass); each is read with `getBlock` (transactionDetails 'accounts': every account key with its
 *    writable flag, the balances and token balances, no instructions or logs);
 *  - the writable account keys of its successful transactions, and the owners of its token balances (a
 *    deposit address's associated token account, or one opened by hand, is owned by the deposit address), are
 *    looked up against the watched deposit addresses in one query (the unique (chain, address) index);
 *    a Solana Pay reference is not looked up: a transfer counts only if it credits the deposit address, whose
 *    key or token balance is then in the block anyway;
 *  - each matched transaction goes through the same validation as the poll (validateSolanaPayTransfer) and
 *    is recorded as the poll records it — (chain, signature, 0) unique, so either path may find it first —
 *    `confirmed` when its slot is already finalized, else `pending`; the charge is settled at once;
 *  - pending Solana payments whose slot the cluster has finalized are promoted with one
 *    getSignatureStatuses call (up to 256 a pass), so a charge succeeds without waiting for the poll.
 *
 * RPC calls a pass: getBlocks, one getBlock per new block, getSlot when there was no new block or 16 of them
 * (behind), and getSlot + getSignatureStatuses only when a payment was matched or one waits to be finalized —
 * independent of the number of open charges.
 *
 * What it never does: move a deposit address's cursors (`reference_cursor`, `receive_cursor`,
 * `searched_until`, `searched_slot`) or drop a payment. Only the interval poll (poll-solana.ts) proves that
 * an address's history is complete up to a time, so charge expiry still waits for it; a block this path
 * missed (process start, a lost subscription, an RPC error, a lag of more than MAX_LAG_SLOTS) is found by
 * the poll's catch-up search. The slot cursor is per process and in memory: each worker reads the blocks
 * once per slot (one subscription, one getBlock per slot per worker), and a restarted one starts at the tip.
 */
import { and, eq, inArray, gt, lte, sql } from 'drizzle-orm';
import {
  signature as toSignature,
  type GetBlockApi,
  type GetBlocksApi,
  type GetSignatureStatusesApi,
  type GetSlotApi,
  type Rpc,
} from '@solana/kit';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { solanaRpcFor } from '@/lib/chains/solana-rpc';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, payments } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { settleCharges } from '@/lib/payments/settle-charge';
import { transitionPayments } from '@/lib/payments/transition-payments';
import { validateSolanaPayTransfer, type ConfirmedTransactionView } from './validate-transfer';

/** What the fast path asks of a cluster. */
export type SolanaBlocksRpc = Rpc<GetBlocksApi & GetBlockApi & GetSlotApi & GetSignatureStatusesApi>;

export interface SolanaBlocksResult {
  chain: ChainName;
  /** Blocks read this pass. */
  blocks: number;
  recorded: number;
  /** Pending payments promoted to confirmed. */
  promoted: number;
}

/** Blocks read in one pass at most (the next slot's wake reads on). */
const MAX_BLOCKS_PER_PASS = 16;
/** Further behind the tip than this (about a minute), the cursor jumps to the tip: the poll catches up. */
const MAX_LAG_SLOTS = 150n;
/** getSignatureStatuses takes at most 256 signatures. */
const STATUSES_PER_CALL = 256;
const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';

/** The next slot to read, per chain, in this process. */
const nextSlots = new Map<ChainName, bigint>();

/** A transaction of a getBlock answer with transactionDetails 'accounts' (encoding 'json'). */
interface BlockTransaction {
  transaction: { accountKeys: readonly { pubkey: string; signer: boolean; writable: boolean }[]; signatures: readonly string[] };
  meta: ConfirmedTransactionView['meta'];
}

export async function readSolanaBlocks(
  chain: ChainName,
  options: {
    rpc?: SolanaBlocksRpc;
    now?: Date;
    /** Where this pass keeps its slot cursor (tests: their own); default this process's. */
    cursor?: Map<ChainName, bigint>;
  } = {},
): Promise<SolanaBlocksResult | null> {
  const rpc = options.rpc ?? solanaRpcFor(chain);
  if (!rpc) return null;
  const cursor = options.cursor ?? nextSlots;
  const result: SolanaBlocksResult = { chain, blocks: 0, recorded: 0, promoted: 0 };

  let next = cursor.get(chain);
  if (next === undefined) {
    // A new process starts at the tip: what came before is the poll's.
    next = await rpc.getSlot({ commitment: 'confirmed' }).send();
    cursor.set(chain, next);
  }
  const last = next + BigInt(MAX_BLOCKS_PER_PASS - 1);
  let slots = await rpc.getBlocks(next, last, { commitment: 'confirmed' }).send();
  if (slots.length === MAX_BLOCKS_PER_PASS || slots.length === 0) {
    const tip = await rpc.getSlot({ commitment: 'confirmed' }).send();
    if (tip - next > MAX_LAG_SLOTS) {
      log.warn('solana blocks: too far behind the tip; the poll catches up on the skipped slots', { chain, from: next, tip });
      cursor.set(chain, tip);
      slots = [];
    } else if (!slots.length && tip >= last) {
      // The whole range is confirmed and had no block (skipped slots): past it.
      cursor.set(chain, last + 1n);
    }
  }

  const found: { slot: bigint; blockTime: bigint | null; transaction: BlockTransaction }[] = [];
  for (const slot of slots) {
    let block;
    try {
      block = await rpc
        .getBlock(slot, {
          commitment: 'confirmed',
          encoding: 'json',
          transactionDetails: 'accounts',
          rewards: false,
          maxSupportedTransactionVersion: 0,
        })
        .send();
    } catch (error) {
      // Read again next pass (the cursor stays on this slot).
      log.warn('solana blocks: could not read a block; trying again next slot', { chain, slot, error });
      break;
    }
    cursor.set(chain, slot + 1n);
    result.blocks++;
    if (!block) continue;
    const transactions = (block as unknown as { transactions?: readonly BlockTransaction[] }).transactions ?? [];
    for (const transaction of transactions) found.push({ slot, blockTime: block.blockTime, transaction });
  }

  const candidates = found.filter(({ transaction }) => isCandidate(transaction));
  const keys = new Set(candidates.flatMap(({ transaction }) => creditedKeys(transaction)));
  const watched = keys.size ? await watchedAmong(chain, [...keys], options.now ?? new Date()) : [];
  const pendingCount = await pendingPaymentCount(chain);
  if (!watched.length && pendingCount === 0) return result;

  const finalizedSlot = await rpc.getSlot({ commitment: 'finalized' }).send();
  const native = CHAINS[chain].tokens.find((t) => t.isNative)!;
  const byAddress = new Map(watched.map((deposit) => [deposit.address, deposit]));
  const matches = candidates.flatMap(({ slot, blockTime, transaction }) =>
    creditedKeys(transaction).flatMap((key) => {
      const deposit = byAddress.get(key);
      if (!deposit) return [];
      const splToken = deposit.tokenAddress === native.address ? undefined : deposit.tokenAddress;
      const view: ConfirmedTransactionView = {
        slot,
        blockTime,
        transaction: { signatures: transaction.transaction.signatures, message: { accountKeys: transaction.transaction.accountKeys } },
        meta: transaction.meta,
      };
      const validated = validateSolanaPayTransfer(view, { recipient: deposit.address, references: [], ...(splToken ? { splToken } : {}) });
      return validated.ok ? [{ deposit, validated }] : [];
    }),
  );

  if (matches.length) {
    await getDb().transaction(async (tx) => {
      // The poll's per-address locks, in one order: its search and these records do not interleave.
      for (const id of [...new Set(matches.map((match) => match.deposit.id))].sort()) {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`chain-watcher:${chain}:${id}`}, 0))`);
      }
      const touched = new Set<string>();
      for (const { deposit, validated } of matches) {
        const inserted = await tx
          .insert(payments)
          .values({
            id: newId('payment'),
            chargeId: deposit.chargeId,
            chain,
            txHash: validated.signature,
            logIndex: 0,
            fromAddress: validated.payer,
            toAddress: deposit.address,
            tokenAddress: deposit.tokenAddress,
            amountBaseUnits: validated.received,
            blockNumber: validated.slot,
            blockHash: '',
            // Lateness is judged by it (settleCharge), as the poll records it.
            blockTime: validated.blockTime === null ? null : new Date(Number(validated.blockTime) * 1000),
            status: validated.slot <= finalizedSlot ? 'confirmed' : 'pending',
          })
          .onConflictDoNothing()
          .returning({ id: payments.id });
        if (inserted.length) {
          result.recorded++;
          touched.add(deposit.chargeId);
        }
      }
      if (touched.size) await settleCharges(tx, touched);
    });
  }

  if (pendingCount > 0) result.promoted = await promoteFinalized(rpc, chain, finalizedSlot);
  return result;
}

/** A successful transaction that is not a vote (most of a mainnet block). */
function isCandidate(transaction: BlockTransaction): boolean {
  if (!transaction.meta || (transaction.meta.err !== null && transaction.meta.err !== undefined)) return false;
  return !transaction.transaction.accountKeys.some((key) => key.pubkey === VOTE_PROGRAM);
}

/** Who can have received value: writable keys (a SOL recipient), and owners of token accounts in the balances. */
function creditedKeys(transaction: BlockTransaction): string[] {
  const keys = transaction.transaction.accountKeys.filter((key) => key.writable).map((key) => key.pubkey);
  const owners = [...(transaction.meta?.preTokenBalances ?? []), ...(transaction.meta?.postTokenBalances ?? [])].flatMap((balance) =>
    balance.owner ? [balance.owner] : [],
  );
  return [...new Set([...keys, ...owners])];
}

/** The watched deposit addresses among `keys`: one query, by the (chain, address) index. */
function watchedAmong(chain: ChainName, keys: string[], now: Date) {
  return getDb()
    .select({
      id: depositAddresses.id,
      chargeId: depositAddresses.chargeId,
      address: depositAddresses.address,
      tokenAddress: charges.tokenAddress,
    })
    .from(depositAddresses)
    .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
    .where(and(eq(depositAddresses.chain, chain), inArray(depositAddresses.address, keys), gt(depositAddresses.watchUntil, now)));
}

async function pendingPaymentCount(chain: ChainName): Promise<number> {
  const [row] = await getDb()
    .select({ count: sql<number>`count(*)::int` })
    .from(payments)
    .where(and(eq(payments.chain, chain), eq(payments.status, 'pending')));
  return row?.count ?? 0;
}

/** Pending payments whose slot is finalized, confirmed by their signature status (the poll decides the rest). */
async function promoteFinalized(rpc: SolanaBlocksRpc, chain: ChainName, finalizedSlot: bigint): Promise<number> {
  const due = await getDb()
    .select({ id: payments.id, chargeId: payments.chargeId, txHash: payments.txHash })
    .from(payments)
    .where(and(eq(payments.chain, chain), eq(payments.status, 'pending'), lte(payments.blockNumber, finalizedSlot)))
    .limit(STATUSES_PER_CALL);
  if (!due.length) return 0;
  const { value: statuses } = await rpc.getSignatureStatuses(due.map((payment) => toSignature(payment.txHash))).send();
  const final = due.filter((_, i) => statuses[i]?.confirmationStatus === 'finalized' && statuses[i]?.err === null);
  if (!final.length) return 0;
  return getDb().transaction(async (tx) => {
    const moved = await transitionPayments(tx, { ids: final.map((payment) => payment.id), to: 'confirmed' });
    const movedIds = new Set(moved);
    await settleCharges(
      tx,
      final.filter((payment) => movedIds.has(payment.id)).map((payment) => payment.chargeId),
    );
    return moved.length;
  });
}
