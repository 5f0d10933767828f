/**
 * Refund webhooks (`refund.created`, `refund.claimed`, `refund.expired`, `refund.succeeded`,
 * `refund.failed`), recorded in the transaction
 * of the change like every event (lib/charges/charge-events.ts): data.refund is the refund as it is after the
 * change, data.charge the charge it belongs to. A claim link's URL is a bearer secret: never in an event.
 */
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { charges, outboundTransfers, refunds, webhookEvents } from '@/lib/db/schema';
import { listChargePayments } from '@/lib/charges/get-charge';
import { serializeCharge } from '@/lib/charges/serialize';
import { newId } from '@/lib/ids';
import { nextEventSequence } from '@/lib/webhooks/next-event-sequence';
import type { WebhookEventType } from '@/lib/webhooks/event-types';
import { serializeRefund } from './list-refunds';

export async function emitRefundEvent(
  tx: DbOrTx,
  input: { refundId: string; type: Extract<WebhookEventType, `refund.${string}`> },
): Promise<void> {
  const [row] = await tx
    .select({ refund: refunds, transfer: outboundTransfers, charge: charges })
    .from(refunds)
    .leftJoin(outboundTransfers, eq(outboundTransfers.id, refunds.transferId))
    .innerJoin(charges, eq(charges.id, refunds.chargeId))
    .where(eq(refunds.id, input.refundId));
  if (!row) throw new Error(`refund ${input.refundId} does not exist`);
  const id = newId('webhookEvent');
  const createdAt = new Date();
  // Numbered with the charge's own events: a refund's events reach an endpoint in order with them.
  const sequence = await nextEventSequence(tx, row.charge.id);
  const payload = {
    id,
    object: 'event' as const,
    type: input.type,
    mode: row.charge.mode,
    sequence,
    createdAt: createdAt.toISOString(),
    data: {
      charge: serializeCharge(row.charge, undefined, await listChargePayments(tx, row.charge.id)),
      refund: serializeRefund(row.refund, row.transfer),
    },
  };
  await tx.insert(webhookEvents).values({
    id,
    merchantId: row.charge.merchantId,
    mode: row.charge.mode,
    type: input.type,
    chargeId: row.charge.id,
    sequence,
    payload,
    createdAt,
  });
}
