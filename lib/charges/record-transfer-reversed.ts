/**
 * A transfer of a charge (its sweep, a refund, a balance payment into it) that was confirmed, then reversed
 * by a re-organisation deeper than the confirmation depth (the engine re-opened it and it ended failed:
 * lib/transactions/reopen-confirmed-transfers.ts, docs/adr/0036). Written on the charge's timeline
 * (`charge.transfer_reversed`, not a webhook: the merchant's server hears of the cause, the payer's
 * `charge.payment_reversed`) and the charge is flagged for review, in the transaction that ends the transfer.
 */
import { eq, isNull, and } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { charges, type OutboundTransferRow } from '@/lib/db/schema';
import { recordChargeEvents } from './transition-charges';

export async function recordTransferReversed(tx: DbOrTx, transfer: OutboundTransferRow, reason: string): Promise<void> {
  if (!transfer.chargeId) return; // a withdrawal or wallet send: the engine's error log and the transfer's error say it
  const [charge] = await tx.select({ status: charges.status }).from(charges).where(eq(charges.id, transfer.chargeId));
  if (!charge) return;
  await tx
    .update(charges)
    .set({ needsReviewSince: new Date() })
    .where(and(eq(charges.id, transfer.chargeId), isNull(charges.needsReviewSince)));
  await recordChargeEvents(tx, [
    {
      chargeId: transfer.chargeId,
      fromStatus: charge.status,
      toStatus: charge.status,
      actor: 'system:transfer-engine',
      type: 'charge.transfer_reversed',
      data: {
        transferId: transfer.id,
        purpose: transfer.purpose,
        txHash: transfer.txHash,
        amountBaseUnits: transfer.amountBaseUnits.toString(),
        chain: transfer.chain,
        reason,
      },
    },
  ]);
}
