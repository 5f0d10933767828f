/**
 * A user-authorised Solana spend (balance payment, withdrawal, refund, wallet send, recovery) whose transaction
 * expired unlanded is signed again — the SAME movement (source, destination, mint, amount, row and idempotency
 * key, authority) with a fresh blockhash — instead of failing and making the player or merchant act again. This
 * is the Solana twin of an EVM fee bump, which re-signs the same authorised transfer at its nonce: the transfer
 * gate already allowed this movement when it was recorded, so it is not asked again (as on EVM).
 *
 * Never two live transactions for one row:
 *  - only after the reconciler's proof that the previous one can never land on any fork (not found, and its
 *    blockhash invalid at 'finalized': ./sweep-solana.ts, solanaTransactionOutcome);
 *  - then, outside every lock and just before recording, its signature is looked up once more in the history
 *    (a node that lagged may have it now): found → nothing is signed, the next pass follows it;
 *  - the new signature replaces the old one on the row (and its fee record) only where the row still carries the
 *    old one and is still on its way, so of two processes at most one re-signs.
 * The money rules hold again at re-sign, under the sender's lock (./solana-spend-rules.ts): the sender still holds
 * the amount beyond its other transfers on their way (this one's own value left out, it is what is being re-signed),
 * the tank can pay the fee. The gas sponsor's daily caps need no second look: the row and its fee record stay the
 * ones already counted, and an expired transaction cost the tank nothing.
 * Every signature is kept as an attempt (outbound_transfer_attempts: the `original`, then one `new_blockhash` per
 * re-sign), as EVM fee bumps are, so the record shows what was replaced and settle-charge knows all of a balance
 * payment's hashes as ours.
 * The key comes as the recording path got it (./solana-signer-for-address.ts): sealed service wallets open with
 * the master key, not the PIN, and deposit keys re-derive from the seed.
 */
import { and, count, eq, inArray } from 'drizzle-orm';
import type { Address } from 'viem';
import { CHAINS, SOLANA_NATIVE_MINT, findToken, nativeToken, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import type { SolanaRpc } from '@/lib/chains/solana-rpc';
import { getDb } from '@/lib/db/client';
import { outboundTransferAttempts, outboundTransfers, type OutboundTransferRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { lockSender } from '@/lib/transactions/lock-sender';
import { IN_FLIGHT_STATUSES } from '@/lib/transactions/state';
import { prepareSolanaTransfer, signSolanaTransfer, type PreparedSolanaTransfer } from './prepare-solana-transfer';
import { SOLANA_FEE_RECORD_SUFFIX, assertSolanaSenderHolds, assertSolanaTankCanPay } from './solana-spend-rules';
import { solanaSignerForAddress } from './solana-signer-for-address';
import { decodeWireTransaction } from './sweep-solana';

/**
 * How many times one transfer is signed again before it fails as it did before re-signing existed (its outcome
 * hook runs: `payment.failed` for a balance payment). A mainnet blockhash lives 150 slots (~60 s) and expiry is
 * proven only at 'finalized' (~13 s later), so 5 re-signs keep it going for ~6–8 minutes: far past a transient
 * drop (a leader skipping its slot, a node restarting, a congested forwarder), well inside the 6 h a charge
 * waits for a payment in flight (lib/charges/payment-in-flight.ts). Six expiries in a row are something
 * systemic (the cluster refusing it, our RPC down): the user is then told rather than held.
 */
export const MAX_SOLANA_RESIGNS = 5;

type ResignOutcome =
  /** Signed again and recorded: send `transfer.rawTransaction` now. */
  | { kind: 'resigned'; transfer: OutboundTransferRow }
  /** The previous transaction was found after all, or the row moved on meanwhile: nothing signed. */
  | { kind: 'unchanged' }
  /** It cannot be signed again (the bound, the balance, no key): fail it as expired. */
  | { kind: 'give_up'; reason: string };

const SPEND_ERRORS = new Set(['insufficient_balance', 'invalid_amount', 'gas_tank_empty']);

export async function resignSolanaTransfer(rpc: SolanaRpc, transfer: OutboundTransferRow): Promise<ResignOutcome> {
  const chain = transfer.chain as ChainName;
  if (transfer.purpose === 'sweep' || transfer.purpose === 'gas_topup')
    return { kind: 'give_up', reason: 'sweeps are signed anew by the sweep job' };
  const [{ resigns } = { resigns: 0 }] = await getDb()
    .select({ resigns: count() })
    .from(outboundTransferAttempts)
    .where(and(eq(outboundTransferAttempts.transferId, transfer.id), eq(outboundTransferAttempts.kind, 'new_blockhash')));
  if (resigns >= MAX_SOLANA_RESIGNS) return { kind: 'give_up', reason: `signed ${resigns + 1} times, none landed` };
  const token = tokenOf(chain, transfer.tokenAddress);
  if (!token) return { kind: 'give_up', reason: `unknown token ${transfer.tokenAddress}` };
  const signer = await solanaSignerForAddress(chain, transfer.fromAddress);
  if (!signer) return { kind: 'give_up', reason: 'no key to sign it again' };

  let prepared: PreparedSolanaTransfer;
  try {
    prepared = await prepareSolanaTransfer(
      { chain, from: transfer.fromAddress, spend: { token, amount: transfer.amountBaseUnits, recipient: transfer.toAddress } },
      { solanaRpcFor: () => rpc },
    );
  } catch (error) {
    if (error instanceof AppError && SPEND_ERRORS.has(error.code)) return { kind: 'give_up', reason: error.message };
    throw error; // the cluster unreachable: the next pass tries again (it stays expired, nothing is live)
  }
  // The last look, outside every lock: a lagging node may have the old transaction after all.
  const { signature: previous } = decodeWireTransaction(transfer.rawTransaction);
  const { value } = await rpc.getSignatureStatuses([previous], { searchTransactionHistory: true }).send();
  if (value[0]) {
    log.warn('solana transfer looked expired but its transaction was found; not signed again', { transferId: transfer.id });
    return { kind: 'unchanged' };
  }

  try {
    const replaced = await getDb().transaction(async (tx) => {
      await lockSender(tx, chain, transfer.fromAddress as Address);
      const open = inArray(outboundTransfers.status, [...IN_FLIGHT_STATUSES]);
      const [current] = await tx
        .select()
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.id, transfer.id), eq(outboundTransfers.txHash, transfer.txHash), open));
      if (!current) return undefined;
      const [fee] = await tx
        .select()
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.chain, chain), eq(outboundTransfers.txHash, `${current.txHash}${SOLANA_FEE_RECORD_SUFFIX}`), open));
      const own = { amount: current.amountBaseUnits, fee: fee?.amountBaseUnits ?? 0n };
      await assertSolanaSenderHolds(tx, prepared, { own });
      await assertSolanaTankCanPay(tx, prepared, own);

      const signed = await signSolanaTransfer(prepared, signer);
      const [row] = await tx
        .update(outboundTransfers)
        .set({ txHash: signed.signature, rawTransaction: signed.wireTransaction, error: null })
        .where(eq(outboundTransfers.id, current.id))
        .returning();
      if (fee) {
        await tx
          .update(outboundTransfers)
          .set({
            txHash: `${signed.signature}${SOLANA_FEE_RECORD_SUFFIX}`,
            rawTransaction: signed.wireTransaction,
            amountBaseUnits: prepared.feePayerCost,
            error: null,
          })
          .where(eq(outboundTransfers.id, fee.id));
      }
      // Solana's fee is fixed: the attempts' EVM fee columns are 0.
      const attempt = (kind: 'original' | 'new_blockhash', txHash: string, rawTransaction: string) => ({
        id: newId('transferAttempt'),
        transferId: current.id,
        chain,
        kind,
        txHash,
        rawTransaction,
        maxFeePerGas: 0n,
        maxPriorityFeePerGas: 0n,
      });
      await tx
        .insert(outboundTransferAttempts)
        .values([
          ...(resigns === 0 ? [attempt('original', current.txHash, current.rawTransaction)] : []),
          attempt('new_blockhash', signed.signature, signed.wireTransaction),
        ]);
      return row;
    });
    if (!replaced) return { kind: 'unchanged' };
    log.warn('solana transfer expired unlanded; signed again with a new blockhash', {
      transferId: transfer.id,
      chain,
      replaced: transfer.txHash,
      signature: replaced.txHash,
      resign: resigns + 1,
    });
    return { kind: 'resigned', transfer: replaced };
  } catch (error) {
    if (error instanceof AppError && SPEND_ERRORS.has(error.code)) return { kind: 'give_up', reason: error.message };
    throw error;
  }
}

function tokenOf(chain: ChainName, tokenAddress: string): TokenInfo | undefined {
  const info = CHAINS[chain];
  return findToken(info, tokenAddress) ?? (tokenAddress === SOLANA_NATIVE_MINT ? nativeToken(info) : undefined);
}
