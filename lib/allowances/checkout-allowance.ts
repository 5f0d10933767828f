/**
 * What the checkout shows of the buyer's spending allowance for a charge: whether it pays this charge with
 * one tap now, and what is left of the last 24 hours (exact decimal texts). A preview without locks; the
 * payment itself is decided by the transfer gate.
 */
import 'server-only';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { charges } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';
import { findUsableAllowance } from './find-usable-allowance';

export interface CheckoutAllowance {
  /** Left of the last 24 hours before this charge. */
  left: string;
  perDay: string;
}

export async function checkoutAllowance(input: { userId: string; chargeId: string }): Promise<CheckoutAllowance | null> {
  const [charge] = await getDb().select().from(charges).where(eq(charges.id, input.chargeId));
  if (!charge) return null;
  const usable = await findUsableAllowance(getDb(), { userId: input.userId, charge });
  if (!usable) return null;
  return {
    left: formatAmount(usable.remaining, charge.tokenDecimals),
    perDay: formatAmount(usable.allowance.amountPerDayBaseUnits, charge.tokenDecimals),
  };
}
