/** Background job: created orders nobody started in time expire (several instances: SKIP LOCKED). */
import { and, eq, inArray, lte } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { onrampOrderEvents, onrampOrders } from '@/lib/db/schema';
import { newId } from '@/lib/ids';

export async function expireDueOnrampOrders(now = new Date(), batch = 100): Promise<number> {
  return getDb().transaction(async (tx) => {
    const due = await tx
      .select({ id: onrampOrders.id })
      .from(onrampOrders)
      .where(and(eq(onrampOrders.status, 'created'), lte(onrampOrders.expiresAt, now)))
      .limit(batch)
      .for('update', { skipLocked: true });
    if (!due.length) return 0;
    const ids = due.map((row) => row.id);
    await tx.update(onrampOrders).set({ status: 'expired' }).where(inArray(onrampOrders.id, ids));
    await tx.insert(onrampOrderEvents).values(
      ids.map((orderId) => ({
        id: newId('onrampOrderEvent'),
        orderId,
        fromStatus: 'created' as const,
        toStatus: 'expired' as const,
        source: 'system:expiry',
      })),
    );
    return ids.length;
  });
}
