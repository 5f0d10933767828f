/**
 * Spending allowances (ADR 0034): what the checkout's "Approve a spending allowance" sends, and what the
 * wallet lists. Amounts are exact decimal texts in the token's units; the verbs turn them into base units.
 */
import { z } from 'zod';

/** The longest an allowance may run: a forgotten one ends on its own. */
const MAX_ALLOWANCE_DAYS = 90;

export const approveAllowanceSchema = z
  .object({
    amountPerDay: z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, 'must be a decimal amount like 20 or 4.99'),
    days: z.coerce
      .number()
      .int('must be a whole number of days')
      .min(1, 'must be at least 1 day')
      .max(MAX_ALLOWANCE_DAYS, `must be at most ${MAX_ALLOWANCE_DAYS} days`),
  })
  .strict();

export type ApproveAllowanceInput = z.infer<typeof approveAllowanceSchema>;

/** One allowance as the wallet lists it (exact decimal texts). */
export interface SpendingAllowanceView {
  id: string;
  merchantName: string;
  chainName: string;
  tokenSymbol: string;
  amountPerDay: string;
  /** Paid under it in the last 24 hours. */
  spentToday: string;
  expiresAt: string;
}
