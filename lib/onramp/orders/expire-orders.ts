/** Background job: created orders nobody started in time expire (several instances: SKIP LOCKED). */
import { and, inArray, lte } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { onrampOrderEvents, onrampOrders } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { onrampOrderMachine } from './state';

export async function expireDueOnrampOrders(now = new Date(), batch = 100): Promise<number> {
  return getDb().transaction(async (tx) => {
    const due = await tx
      .select({ id: onrampOrders.id, status: onrampOrders.status })
      .from(onrampOrders)
      .where(and(inArray(onrampOrders.status, onrampOrderMachine.leadingTo('expired')), lte(onrampOrders.expiresAt, now)))
      .limit(batch)
      .for('update', { skipLocked: true });
    if (!due.length) return 0;
    const ids = due.map((row) => row.id);
    await tx
      .update(onrampOrders)
      .set({ status: 'expired' })
      .where(and(inArray(onrampOrders.id, ids), inArray(onrampOrders.status, onrampOrderMachine.leadingTo('expired'))));
    await tx.insert(onrampOrderEvents).values(
      due.map(({ id: orderId, status: fromStatus }) => ({
        id: newId('onrampOrderEvent'),
        orderId,
        fromStatus,
        toStatus: 'expired' as const,
        source: 'system:expiry',
      })),
    );
    return ids.length;
  });
}
