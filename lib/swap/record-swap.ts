/**
 * Executing a swap, shared by both branches (held funds, on-ramp conversion). The approve (when the
 * router's allowance is short) and swapTokensForExactTokens are transfers of the one transaction engine
 * (lib/transactions/): recorded under the sender's lock with what it has in flight, the gas tank paying
 * their fee if the sender is short, broadcast after commit, and followed by the engine's reconciler —
 * re-broadcast when dropped, fee-bumped when stuck, settled at the chain's depth. When the swap transfer
 * ends, `settleSwapTransfer` (its purpose hook) records the outcome on the execution and the charge's
 * timeline: `confirmed` with the input actually taken, or `failed`.
 *
 * The output always goes to the charge's deposit address, so the chain watcher counts it like any other
 * payment and the sweep delivers it to the payee.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { erc20Abi, parseEventLogs } from 'viem';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import type { DbOrTx } from '@/lib/db/client';
import { charges, swapExecutions, type OutboundTransferRow, type SwapExecutionRow } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import type { GasSponsor } from '@/lib/transactions/gas-sponsorship';
import type { PreparedTransfer } from '@/lib/transactions/prepare-transfer';
import type { TransferOutcome } from '@/lib/transactions/transfer-outcome';
import { recordTransfer, type RecordedTransfer } from '@/lib/transactions/record-transfer';
import type { PreparedSwap } from './prepare-swap';
import { swapExecutionMachine, type SwapBranch } from './state';

export function newSwapExecutionId(): string {
  return newId('swapExecution');
}

export interface SignedSwap {
  execution: SwapExecutionRow;
  /** The engine's records, sent in order by submitSwap (approve first, each after its gas top-up). */
  transfers: RecordedTransfer[];
}

/** Step 2, in the caller's transaction (which should hold the charge's row lock): signs and records, no RPC. */
export async function recordSwap(
  tx: DbOrTx,
  prepared: PreparedSwap,
  input: {
    chargeId: string;
    branch: SwapBranch;
    userId: string | null;
    /** Whose daily gas cap pays the fees when the sender is short (the payer, or the charge's merchant). */
    gasSponsor: GasSponsor;
  },
): Promise<SignedSwap> {
  const { pair, account, quote } = prepared;
  const transfers: RecordedTransfer[] = [];
  const record = async (purpose: 'swap_approve' | 'swap', transfer: PreparedTransfer) => {
    const recorded = await recordTransfer(tx, {
      prepared: transfer,
      signer: account,
      purpose,
      authorization: { authority: { kind: 'system', job: 'swap' }, destination: { class: 'swap_router' } },
      chargeId: input.chargeId,
      gasSponsor: input.gasSponsor,
      senderLabel: input.branch === 'held_funds' ? 'Your wallet' : 'The deposit address',
    });
    transfers.push(recorded);
    return recorded.transfer;
  };
  const approve = prepared.approve ? await record('swap_approve', prepared.approve) : undefined;
  const swap = await record('swap', prepared.swap);

  const [execution] = await tx
    .insert(swapExecutions)
    .values({
      id: newSwapExecutionId(),
      chargeId: input.chargeId,
      branch: input.branch,
      userId: input.userId,
      chain: pair.chain,
      router: pair.router,
      fromAddress: account.address,
      recipient: prepared.recipient,
      tokenIn: pair.funding.address,
      tokenOut: pair.target.address,
      amountOut: quote.amountOut,
      quotedAmountIn: quote.amountIn,
      amountInMax: prepared.amountInMax,
      slippageBps: quote.slippageBps,
      deadline: new Date(Number(prepared.deadline) * 1000),
      approveTransferId: approve?.id ?? null,
      swapTransferId: swap.id,
      swapTxHash: swap.txHash,
      status: 'signed',
    })
    .returning();
  return { execution: execution!, transfers };
}

/**
 * The engine's hook for the `swap` purpose: the swap transfer ended (at the chain's depth), so its
 * execution does too, once, with a charge timeline event — in the engine's transaction.
 */
export async function settleSwapTransfer(tx: DbOrTx, transfer: OutboundTransferRow, outcome: TransferOutcome): Promise<void> {
  const [row] = await tx.select().from(swapExecutions).where(eq(swapExecutions.swapTransferId, transfer.id));
  if (!row) return;
  const amountIn =
    outcome.status === 'confirmed' && outcome.receipt
      ? parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: outcome.receipt.logs })
          .filter(
            (event) =>
              event.address.toLowerCase() === row.tokenIn.toLowerCase() && event.args.from.toLowerCase() === row.fromAddress.toLowerCase(),
          )
          .reduce((sum, event) => sum + event.args.value, 0n)
      : undefined;
  const error =
    outcome.status === 'failed'
      ? outcome.reason?.startsWith('reverted')
        ? 'reverted: the price moved past the limit or the deadline passed; nothing was swapped'
        : `${outcome.reason ?? 'failed'}; nothing was swapped`
      : null;
  const changed = await tx
    .update(swapExecutions)
    .set(
      outcome.status === 'confirmed'
        ? { status: 'confirmed', amountIn: amountIn ?? null, error: null, swapTxHash: transfer.txHash }
        : { status: 'failed', error, swapTxHash: transfer.txHash },
    )
    .where(and(eq(swapExecutions.id, row.id), inArray(swapExecutions.status, swapExecutionMachine.leadingTo(outcome.status))))
    .returning({ id: swapExecutions.id });
  if (!changed.length) return;
  const [charge] = await tx.select({ status: charges.status }).from(charges).where(eq(charges.id, row.chargeId));
  await recordChargeEvent(tx, {
    chargeId: row.chargeId,
    fromStatus: charge!.status,
    toStatus: charge!.status,
    actor: 'system:swap-reconciler',
    type: outcome.status === 'confirmed' ? 'charge.swap_confirmed' : 'charge.swap_failed',
    data: {
      swapExecutionId: row.id,
      txHash: transfer.txHash,
      amountOutBaseUnits: row.amountOut.toString(),
      ...(outcome.status === 'confirmed' ? { amountInBaseUnits: (amountIn ?? 0n).toString() } : { reason: error }),
    },
  });
}
