/**
 * The transaction engine's hook for fulfilments: when a fulfilment's contract call ends at the chain's
 * depth, the fulfilment becomes `succeeded` or `failed` (a reverted call minted nothing: the merchant may
 * retry), with its timeline entry and webhook — once, in the engine's transaction.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { fulfilments, type OutboundTransferRow } from '@/lib/db/schema';
import type { TransferOutcome } from '@/lib/transactions/transfer-outcome';
import { recordFulfilmentEnd } from './start-fulfilments';
import { fulfilmentMachine } from './state';

export async function settleFulfilmentTransfer(tx: DbOrTx, transfer: OutboundTransferRow, outcome: TransferOutcome): Promise<void> {
  const status = outcome.status === 'confirmed' ? 'succeeded' : 'failed';
  const reason = outcome.status === 'failed' ? `The contract call failed: ${outcome.reason ?? 'failed'}.` : null;
  const [row] = await tx
    .update(fulfilments)
    .set({ status, failureReason: reason })
    .where(and(eq(fulfilments.transferId, transfer.id), inArray(fulfilments.status, fulfilmentMachine.from(['submitted'], status))))
    .returning();
  if (!row) return;
  await recordFulfilmentEnd(tx, row, { status, txHash: transfer.txHash, ...(reason ? { reason } : {}) });
}
