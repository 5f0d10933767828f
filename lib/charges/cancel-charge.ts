import { and, eq } from 'drizzle-orm';
import type { ApiContext } from '@/lib/api/context';
import { getDb } from '@/lib/db/client';
import { charges, type ChargeRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { IllegalTransitionError } from './state';
import { transitionCharge } from './transition-charge';

/** Cancel a pending charge of the key's merchant. Only `pending` charges can be canceled. */
export async function cancelCharge({ ctx, chargeId }: { ctx: ApiContext; chargeId: string }): Promise<ChargeRow> {
  return getDb().transaction(async (tx) => {
    const [owned] = await tx
      .select({ id: charges.id })
      .from(charges)
      .where(and(eq(charges.id, chargeId), eq(charges.merchantId, ctx.merchant.id), eq(charges.mode, ctx.apiKey.mode)));
    if (!owned) throw new AppError('not_found', `No charge ${chargeId} for this ${ctx.apiKey.mode} key.`, { param: 'chargeId' });
    return cancelChargeById(tx, { chargeId, actor: ctx.actor });
  });
}

/** Also used by the hosted checkout's Cancel link (actor "consumer"). */
async function cancelChargeById(
  tx: Parameters<typeof transitionCharge>[0],
  { chargeId, actor }: { chargeId: string; actor: string },
): Promise<ChargeRow> {
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
 * a charge already past pending is left as it is. Returns where to send the consumer.
 */
export async function cancelChargeByConsumer(chargeId: string): Promise<{ cancelUrl: string | null }> {
  return getDb().transaction(async (tx) => {
    const [charge] = await tx
      .select({ status: charges.status, cancelUrl: charges.cancelUrl })
      .from(charges)
      .where(eq(charges.id, chargeId));
    if (!charge) throw new AppError('not_found', `No charge ${chargeId}.`);
    if (charge.status === 'pending') await cancelChargeById(tx, { chargeId, actor: 'consumer' });
    return { cancelUrl: charge.cancelUrl };
  });
}
