/**
 * The transaction engine's hook for refunds: when a refund's transfer ends (at the chain's depth), the
 * merchant hears of it (`refund.succeeded` / `refund.failed`) and the charge's timeline records it —
 * once, in the engine's transaction. A failed refund moved nothing: its amount is refundable again.
 */
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { charges, refunds, type OutboundTransferRow } from '@/lib/db/schema';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import type { TransferOutcome } from '@/lib/transactions/transfer-outcome';
import { emitRefundEvent } from './emit-refund-event';

export async function settleRefundTransfer(tx: DbOrTx, transfer: OutboundTransferRow, outcome: TransferOutcome): Promise<void> {
  const [refund] = await tx.select().from(refunds).where(eq(refunds.transferId, transfer.id));
  if (!refund) return;
  const [charge] = await tx.select({ status: charges.status }).from(charges).where(eq(charges.id, refund.chargeId));
  await recordChargeEvent(tx, {
    chargeId: refund.chargeId,
    fromStatus: charge!.status,
    toStatus: charge!.status,
    actor: 'system:transfer-reconciler',
    type: outcome.status === 'confirmed' ? 'charge.refunded' : 'charge.refund_failed',
    data: {
      refundId: refund.id,
      txHash: transfer.txHash,
      amountBaseUnits: refund.amountBaseUnits.toString(),
      ...(outcome.reason ? { reason: outcome.reason } : {}),
    },
  });
  await emitRefundEvent(tx, { refundId: refund.id, type: outcome.status === 'confirmed' ? 'refund.succeeded' : 'refund.failed' });
}
