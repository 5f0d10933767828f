/**
 * `fulfilment.succeeded` / `fulfilment.failed`, recorded in the transaction of the change like every
 * event (lib/charges/charge-events.ts): data.fulfilment as it is after the change, data.charge the charge.
 */
import { eq } from 'drizzle-orm';
import { listChargePayments } from '@/lib/charges/get-charge';
import { serializeCharge } from '@/lib/charges/serialize';
import type { DbOrTx } from '@/lib/db/client';
import { charges, fulfilments, webhookEvents } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { nextEventSequence } from '@/lib/webhooks/next-event-sequence';
import type { WebhookEventType } from '@/lib/webhooks/event-types';
import type { WebhookEventPayload } from '@/lib/webhooks/schemas';
import { loadFulfilment } from './load-fulfilment';

export async function emitFulfilmentEvent(
  tx: DbOrTx,
  input: { fulfilmentId: string; type: Extract<WebhookEventType, `fulfilment.${string}`> },
): Promise<void> {
  const fulfilment = await loadFulfilment(tx, input.fulfilmentId);
  if (!fulfilment) throw new Error(`fulfilment ${input.fulfilmentId} does not exist`);
  const [row] = await tx
    .select({ charge: charges })
    .from(fulfilments)
    .innerJoin(charges, eq(charges.id, fulfilments.chargeId))
    .where(eq(fulfilments.id, input.fulfilmentId));
  const charge = row!.charge;
  const id = newId('webhookEvent');
  const createdAt = new Date();
  // Numbered with the charge's own events: a fulfilment's event reaches an endpoint after the charge's.
  const sequence = await nextEventSequence(tx, charge.id);
  const payload: WebhookEventPayload = {
    id,
    object: 'event',
    type: input.type,
    mode: charge.mode,
    sequence,
    createdAt: createdAt.toISOString(),
    data: { charge: serializeCharge(charge, undefined, await listChargePayments(tx, charge.id)), fulfilment },
  };
  await tx
    .insert(webhookEvents)
    .values({ id, merchantId: charge.merchantId, mode: charge.mode, type: input.type, chargeId: charge.id, sequence, payload, createdAt });
}
