import { and, eq } from 'drizzle-orm';
import type { ApiContext } from '@/lib/context';
import { getDb } from '@/lib/db/client';
import { charges, type ChargeRow } from '@/lib/db/schema';
import { AppError, inputExcerpt } from '@/lib/errors';
import { IllegalTransitionError } from '@/lib/state-machine';
import { describePaymentInFlight, findPaymentsInFlight } from './payment-in-flight';
import { transitionCharge } from './transition-charge';

/**
 * Cancel a pending charge of the key's merchant. Only `pending` charges can be canceled, and not while a
 * payment of it is in flight (payment-in-flight.ts): 409 payment_in_progress, since that payment would
 * otherwise land on a canceled charge.
 */
export async function cancelCharge({ ctx, chargeId }: { ctx: ApiContext; chargeId: string }): Promise<ChargeRow> {
  return getDb().transaction(async (tx) => {
    const [owned] = await tx
      .select({ id: charges.id })
      .from(charges)
      .where(and(eq(charges.id, chargeId), eq(charges.merchantId, ctx.merchant.id), eq(charges.mode, ctx.apiKey.mode)));
    if (!owned)
      throw new AppError('not_found', `No charge ${inputExcerpt(chargeId)} for this ${ctx.apiKey.mode} key.`, { param: 'chargeId' });
    return cancelChargeById(tx, { chargeId, actor: ctx.actor });
  });
}

/** Also used by the hosted checkout's Cancel link (actor "consumer"). */
async function cancelChargeById(
  tx: Parameters<typeof transitionCharge>[0],
  { chargeId, actor }: { chargeId: string; actor: string },
): Promise<ChargeRow> {
  const [charge] = await tx.select({ status: charges.status }).from(charges).where(eq(charges.id, chargeId)).for('update');
  if (charge?.status === 'pending') {
    // After the row lock: a payment method that committed just before is seen here.
    const [inFlight] = await findPaymentsInFlight(tx, chargeId);
    if (inFlight) {
      throw new AppError(
        'payment_in_progress',
        `${describePaymentInFlight(inFlight)}, so it cannot be canceled now. It completes when that payment arrives; if the payment fails, cancel again.`,
        { param: 'chargeId' },
      );
    }
  }
  try {
    return await transitionCharge(tx, { chargeId, to: 'canceled', actor });
  } catch (error) {
    if (error instanceof IllegalTransitionError) {
      throw new AppError('charge_not_cancelable', `Charge ${chargeId} is ${error.from}; only pending charges can be canceled.`, {
        param: 'chargeId',
      });
    }
    throw error;
  }
}

/**
 * The consumer's Cancel on the hosted checkout: a pending charge becomes canceled (actor "consumer");
 * a charge already past pending is left as it is. Returns where to send the consumer. A charge with a
 * payment in flight throws payment_in_progress (the checkout then shows that payment's progress).
 */
export async function cancelChargeByConsumer(chargeId: string): Promise<{ cancelUrl: string | null }> {
  return getDb().transaction(async (tx) => {
    const [charge] = await tx
      .select({ status: charges.status, cancelUrl: charges.cancelUrl })
      .from(charges)
      .where(eq(charges.id, chargeId));
    if (!charge) throw new AppError('not_found', `No charge ${inputExcerpt(chargeId)}.`);
    if (charge.status === 'pending') await cancelChargeById(tx, { chargeId, actor: 'consumer' });
    return { cancelUrl: charge.cancelUrl };
  });
}
