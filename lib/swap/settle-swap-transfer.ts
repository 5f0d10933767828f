/**
 * The transfer engine's hook for the `swap` purpose (registered in lib/jobs/transfer-outcome-hooks.ts, so
 * the engine imports no domain): when the swap transfer ends at the chain's depth, its execution ends too,
 * once, in the engine's transaction — `confirmed` with the input actually taken (the receipt's Transfer
 * logs from the sender), or `failed` with why nothing was swapped — with an event on the charge's timeline.
 * A failed conversion at a deposit address leaves its USDC there: the conversion job is signalled to try
 * again after its back-off (./convert-swap-funding.ts).
 */
import { and, eq, inArray } from 'drizzle-orm';
import { erc20Abi, parseEventLogs } from 'viem';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import type { DbOrTx } from '@/lib/db/client';
import { charges, swapExecutions, swapFundingSignals, type OutboundTransferRow } from '@/lib/db/schema';
import type { TransferOutcome } from '@/lib/transactions/transfer-outcome';
import { swapExecutionMachine } from './state';
import { RETRY_AFTER_MS } from './convert-swap-funding';

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
  if (outcome.status === 'failed' && row.branch === 'onramp_conversion') {
    await tx
      .insert(swapFundingSignals)
      .values({ chargeId: row.chargeId, source: `retry:${row.id}`, dueAt: new Date(Date.now() + RETRY_AFTER_MS) })
      .onConflictDoNothing();
  }
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
