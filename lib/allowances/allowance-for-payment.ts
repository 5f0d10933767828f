/**
 * A balance payment without the PIN (ADR 0034): the allowance it is made under, or 403 step_up_required
 * ("enter your PIN") when no live allowance of this user covers this charge now — none for its merchant,
 * chain and token, expired, revoked, or less left of the last 24 hours than the charge's total. The
 * transfer gate checks the allowance again under its lock (`payer_allowance`); `pinNeededWhenRefused`
 * turns its refusal (a concurrent purchase took the rest, a revocation in between) into the same answer.
 */
import 'server-only';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { charges } from '@/lib/db/schema';
import { AppError, isAppError } from '@/lib/errors';
import { findUsableAllowance, liveAllowancesFor } from './find-usable-allowance';

export async function allowanceForPayment(input: { userId: string; chargeId: string }, now = new Date()): Promise<string> {
  const [charge] = await getDb().select().from(charges).where(eq(charges.id, input.chargeId));
  if (!charge) throw new AppError('not_found', `No charge ${input.chargeId}.`);
  const usable = await findUsableAllowance(getDb(), { userId: input.userId, charge, now });
  if (usable) return usable.allowance.id;
  const hasOne = (await liveAllowancesFor(getDb(), { userId: input.userId, charge, now })).length > 0;
  throw new AppError(
    'step_up_required',
    hasOne
      ? 'This purchase is above what is left of your spending allowance today: enter your PIN to pay.'
      : 'Enter your PIN to pay (no spending allowance covers this purchase).',
    { param: 'pin' },
  );
}

/** The gate refused the allowance under its lock: the buyer can still pay with the PIN. */
export function pinNeededWhenRefused(error: unknown): unknown {
  if (isAppError(error) && error.code === 'transfer_not_authorized')
    return new AppError('step_up_required', `${error.message} Enter your PIN to pay.`, { param: 'pin' });
  return error;
}
