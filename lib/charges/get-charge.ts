import { and, asc, eq } from 'drizzle-orm';
import type { ApiContext } from '@/lib/context';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { chargeEvents, charges, merchants, payments, type ChargeEventRow, type ChargeRow, type PaymentRow } from '@/lib/db/schema';
import { AppError, inputExcerpt } from '@/lib/errors';

/**
 * A charge of the key's merchant and mode. Another merchant's charge, or one of the other mode, is
 * "not found" (404, never 403): a key learns nothing about charges it does not own.
 */
export async function getCharge({ ctx, chargeId }: { ctx: ApiContext; chargeId: string }): Promise<{
  charge: ChargeRow;
  events: ChargeEventRow[];
  payments: PaymentRow[];
}> {
  const db = ctx.tx ?? getDb();
  const [charge] = await db
    .select()
    .from(charges)
    .where(and(eq(charges.id, chargeId), eq(charges.merchantId, ctx.merchant.id), eq(charges.mode, ctx.apiKey.mode)));
  if (!charge)
    throw new AppError('not_found', `No charge ${inputExcerpt(chargeId)} for this ${ctx.apiKey.mode} key.`, { param: 'chargeId' });
  const events = await db
    .select()
    .from(chargeEvents)
    .where(eq(chargeEvents.chargeId, chargeId))
    .orderBy(asc(chargeEvents.createdAt), asc(chargeEvents.id));
  return { charge, events, payments: await listChargePayments(db, chargeId) };
}

/** The transfers seen into a charge, oldest first: the `payments` of the charge resource. */
export async function listChargePayments(db: DbOrTx, chargeId: string): Promise<PaymentRow[]> {
  return db.select().from(payments).where(eq(payments.chargeId, chargeId)).orderBy(asc(payments.createdAt), asc(payments.id));
}

/** Public lookup by id for the hosted checkout: the id is an unguessable capability, like the paymentUrl. */
export async function findChargeForCheckout(
  chargeId: string,
): Promise<{ charge: ChargeRow; merchantName: string; merchantLogoUrl: string | null } | undefined> {
  const [row] = await getDb()
    .select({ charge: charges, merchantName: merchants.name, merchantLogoUrl: merchants.logoUrl })
    .from(charges)
    .innerJoin(merchants, eq(charges.merchantId, merchants.id))
    .where(eq(charges.id, chargeId));
  return row;
}
