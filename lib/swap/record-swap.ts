/**
 * Step 2 of executing a swap, shared by both branches (held funds, on-ramp conversion), in the caller's
 * transaction: after `prepareSwap` (prepare-swap.ts) read the chain, the approve (when the router's
 * allowance is short) and swapTokensForExactTokens are signed and recorded as transfers of the one
 * transaction engine (lib/transactions/) — under the sender's lock with what it has in flight, the gas tank
 * paying their fee if the sender is short — with the swap_executions row. `submitSwap` (submit-swap.ts)
 * broadcasts them after the commit; the engine's reconciler follows them (re-broadcast when dropped,
 * fee-bumped when stuck, settled at the chain's depth) and `settleSwapTransfer` (settle-swap-transfer.ts)
 * records how the swap ended.
 *
 * The output always goes to the charge's deposit address, so the chain watcher counts it like any other
 * payment and the sweep delivers it to the payee.
 */
import type { DbOrTx } from '@/lib/db/client';
import { swapExecutions, type SwapExecutionRow } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import type { GasSponsor } from '@/lib/transactions/gas-sponsorship';
import type { PreparedTransfer } from '@/lib/transactions/prepare-transfer';
import { recordTransfer, type RecordedTransfer } from '@/lib/transactions/record-transfer';
import type { PreparedSwap } from './prepare-swap';
import type { SwapBranch } from './state';

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
