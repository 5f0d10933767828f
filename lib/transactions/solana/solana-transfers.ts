/**
 * Recorded Solana transfers: the Solana half of the transaction engine (lib/transactions/), with the same three
 * steps — recorded in the caller's transaction before anything is sent, broadcast after commit, and
 * reconciled in the background.
 *
 * A row is `nonce` 0 (Solana accounts have no nonce: a transaction's lifetime is its blockhash),
 * `tx_hash` the signature, `raw_transaction` the base64 wire transaction.
 *
 * The fee record: the gas tank pays the sweep's fee (and the rent of a token account it creates) as the
 * transaction's fee payer, not by a transfer of its own. That cost gets its own row, purpose `gas_topup`
 * as on EVM chains (the gas tank paying a transfer's gas, a platform cost queryable per charge):
 * from the tank, to the deposit address whose sweep it paid for, in SOL, `tx_hash` = signature + "-fee"
 * ((chain, tx_hash) is unique), the same raw bytes. Its amount is the expected cost when signed and
 * becomes what the tank really spent (its balance change in the transaction) once finalized. Both rows
 * change status together (one UPDATE keyed by the signature): `failed` together when the transaction
 * expired unlanded (the tank paid nothing); once finalized the fee record is `confirmed` even when the
 * sweep failed on chain, since a landed transaction pays its fee either way.
 *
 * Reconciling: finalized → `confirmed` (or `failed` with the runtime's error); never seen and its
 * blockhash expired → `failed`, so the next sweep pass signs a new transaction — the old one can no
 * longer land, so two sweeps are never live at once; otherwise the same bytes are sent again.
 *
 * Every status write follows the transfer table (lib/transactions/state.ts) through `leadingTo`. A transaction
 * in a block that is not yet finalized stays `broadcast` here (the reconciler looks again); once finalized it
 * was in a block, so its rows pass `included` on their way to `confirmed` / `failed`, in one transaction —
 * the table's promise (only an included transfer reaches a final status at depth) holds on both chains.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { SOLANA_NATIVE_MINT, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { outboundTransfers, type TransferStatus } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { transferMachine } from '@/lib/transactions/state';
import {
  decodeWireTransaction,
  feePayerSpent,
  sendSolanaTransaction,
  solanaTransactionOutcome,
  type SolanaTransferRpc,
} from './sweep-solana';

type OutboundTransferRow = typeof outboundTransfers.$inferSelect;

const FEE_RECORD_SUFFIX = '-fee';
export const EXPIRED_ERROR = 'blockhash expired before the transaction landed; the next pass signs a new one';

/** The row recording what the gas tank paid for a transaction (see the header), not a transfer of its own. */
export function isSolanaFeeRecord(transfer: { txHash: string }): boolean {
  return transfer.txHash.endsWith(FEE_RECORD_SUFFIX);
}

/** Records a signed sweep (status `signed`) and the gas tank's cost for it, in the caller's transaction. */
export async function recordSolanaSweep(
  tx: DbOrTx,
  input: {
    chargeId: string;
    chain: ChainName;
    from: string;
    payee: string;
    token: TokenInfo;
    amount: bigint;
    feePayer: string;
    signature: string;
    wireTransaction: string;
    feePayerCost: bigint;
  },
): Promise<OutboundTransferRow> {
  const common = {
    chargeId: input.chargeId,
    chain: input.chain,
    nonce: 0,
    rawTransaction: input.wireTransaction,
    status: 'signed' as const,
  };
  const [sweep] = await tx
    .insert(outboundTransfers)
    .values([
      {
        ...common,
        id: newId('outboundTransfer'),
        purpose: 'sweep',
        authority: 'system:sweep',
        fromAddress: input.from,
        toAddress: input.payee,
        tokenAddress: input.token.address,
        amountBaseUnits: input.amount,
        txHash: input.signature,
      },
      {
        ...common,
        id: newId('outboundTransfer'),
        purpose: 'gas_topup',
        authority: 'system:gas_topup',
        fromAddress: input.feePayer,
        toAddress: input.from,
        tokenAddress: SOLANA_NATIVE_MINT,
        amountBaseUnits: input.feePayerCost,
        txHash: `${input.signature}${FEE_RECORD_SUFFIX}`,
      },
    ])
    .returning();
  return sweep!;
}

/** Step 2: send the recorded bytes. Safe to repeat. Returns whether the cluster accepted (or already has) them. */
export async function broadcastSolanaTransfer(rpc: SolanaTransferRpc, transfer: OutboundTransferRow): Promise<boolean> {
  if (transfer.status !== 'signed') return transfer.status !== 'failed';
  try {
    await sendSolanaTransaction(rpc, transfer.rawTransaction);
  } catch (error) {
    // Already processed: the node's preflight refuses it, but the cluster has it, which is what we wanted.
    const outcome = await solanaTransactionOutcome(rpc, transfer.rawTransaction).catch(() => undefined);
    if (outcome?.kind !== 'finalized' && outcome?.kind !== 'landing') {
      const message = error instanceof Error ? error.message : String(error);
      log.warn('solana broadcast failed; the reconciler will retry', { transferId: transfer.id, error: message });
      // Kept on the rows for support (why a sweep is stuck until its blockhash expires), status unchanged.
      await noteOnSigned(transfer, `broadcast refused: ${message}`.slice(0, 500));
      return false;
    }
  }
  await setStatus(transfer, { status: 'broadcast', error: null });
  return true;
}

/** Brings a Solana transfer (either of its two rows) up to date with the cluster. */
export async function reconcileSolanaTransfer(rpc: SolanaTransferRpc, transfer: OutboundTransferRow): Promise<TransferStatus> {
  if (transfer.status !== 'signed' && transfer.status !== 'broadcast') return transfer.status;
  const wasAccepted = transfer.status === 'broadcast' || (await broadcastSolanaTransfer(rpc, transfer));
  const outcome = await solanaTransactionOutcome(rpc, transfer.rawTransaction);
  switch (outcome.kind) {
    case 'finalized': {
      const status = outcome.err === null ? ('confirmed' as const) : ('failed' as const);
      const { signature } = decodeWireTransaction(transfer.rawTransaction);
      const spent = await feePayerSpent(rpc, signature).catch(() => undefined);
      const row = (txHash: string, to: TransferStatus) =>
        and(
          eq(outboundTransfers.chain, transfer.chain),
          eq(outboundTransfers.txHash, txHash),
          inArray(outboundTransfers.status, transferMachine.leadingTo(to)),
        );
      await getDb().transaction(async (tx) => {
        // Finalized means it was in a block: both rows still open pass `included` (see the header).
        await tx
          .update(outboundTransfers)
          .set({ status: 'included' })
          .where(and(bothRows(transfer), inArray(outboundTransfers.status, transferMachine.leadingTo('included'))));
        await tx
          .update(outboundTransfers)
          .set({ status, error: outcome.err === null ? null : `failed on chain: ${stringify(outcome.err)}` })
          .where(row(signature, status));
        // A landed transaction charged the tank even if it failed (its fee; the rent only if it succeeded):
        // the fee record is confirmed either way, at what the tank really spent.
        await tx
          .update(outboundTransfers)
          .set({ status: 'confirmed', error: null, ...(spent === undefined ? {} : { amountBaseUnits: spent }) })
          .where(row(`${signature}${FEE_RECORD_SUFFIX}`, 'confirmed'));
      });
      return isSolanaFeeRecord(transfer) ? 'confirmed' : status;
    }
    case 'landing':
      if (!wasAccepted) await setStatus(transfer, { status: 'broadcast', error: null });
      return 'broadcast';
    case 'not_seen':
      // Dropped by the leader or still on its way: same bytes again (they cannot land twice).
      if (transfer.status === 'broadcast') {
        await sendSolanaTransaction(rpc, transfer.rawTransaction).catch((error: unknown) => {
          log.warn('solana re-broadcast failed; will retry', {
            transferId: transfer.id,
            error: error instanceof Error ? error.message : String(error),
          });
        });
      }
      return wasAccepted ? 'broadcast' : 'signed';
    case 'expired':
      await setStatus(transfer, { status: 'failed', error: EXPIRED_ERROR });
      return 'failed';
  }
}

/** One UPDATE over both rows of a transaction (the transfer and its fee record), from the statuses the table allows. */
async function setStatus(transfer: OutboundTransferRow, change: { status: TransferStatus; error: string | null }): Promise<void> {
  await getDb()
    .update(outboundTransfers)
    .set({ status: change.status, error: change.error })
    .where(and(bothRows(transfer), inArray(outboundTransfers.status, transferMachine.leadingTo(change.status))));
}

/** Keeps why a broadcast was refused on both rows while they are still `signed` (no status change). */
async function noteOnSigned(transfer: OutboundTransferRow, error: string): Promise<void> {
  await getDb()
    .update(outboundTransfers)
    .set({ error })
    .where(and(bothRows(transfer), eq(outboundTransfers.status, 'signed')));
}

/** The transfer and its fee record: the rows of one Solana transaction. */
function bothRows(transfer: OutboundTransferRow) {
  const signature = transfer.txHash.replace(new RegExp(`${FEE_RECORD_SUFFIX}$`), '');
  return and(
    eq(outboundTransfers.chain, transfer.chain),
    inArray(outboundTransfers.txHash, [signature, `${signature}${FEE_RECORD_SUFFIX}`]),
  );
}

function stringify(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner));
}
