/**
 * Marks on the charge whether its live balance payment was made under a spending allowance (the API's
 * `paidUnderAllowance`, and so the charge.succeeded webhook's): called in the transaction that records the
 * payment (null for a PIN payment), and with null when that payment fails (lib/jobs/transfer-outcome-hooks.ts).
 */
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { charges } from '@/lib/db/schema';

export async function recordAllowanceUse(tx: DbOrTx, input: { chargeId: string; allowanceId: string | null }): Promise<void> {
  await tx.update(charges).set({ allowanceId: input.allowanceId }).where(eq(charges.id, input.chargeId));
}
