/**
 * The live allowance, if any, that would let this user pay this charge without the PIN now: theirs, for the
 * charge's merchant, chain and token, unrevoked and unexpired, with at least the charge's total left of the
 * last 24 hours. A preview without locks (the checkout shows "one tap"); the transfer gate decides again
 * under the allowance's lock when the payment is recorded.
 */
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { spendingAllowances, type ChargeRow, type SpendingAllowanceRow } from '@/lib/db/schema';
import { allowanceSpent } from '@/lib/transactions/allowance-spent';

interface UsableAllowance {
  allowance: SpendingAllowanceRow;
  /** What is left of the last 24 hours before this charge. */
  remaining: bigint;
}

export async function findUsableAllowance(
  db: DbOrTx,
  input: { userId: string; charge: Pick<ChargeRow, 'merchantId' | 'chain' | 'tokenAddress' | 'totalBaseUnits'>; now?: Date },
): Promise<UsableAllowance | undefined> {
  const now = input.now ?? new Date();
  const live = await liveAllowancesFor(db, { ...input, now });
  for (const allowance of live) {
    const remaining =
      allowance.amountPerDayBaseUnits - (await allowanceSpent(db, { allowanceId: allowance.id, userId: input.userId, now }));
    if (remaining >= input.charge.totalBaseUnits) return { allowance, remaining };
  }
  return undefined;
}

/** The user's unrevoked, unexpired allowances for the charge's merchant, chain and token, newest first. */
export async function liveAllowancesFor(
  db: DbOrTx,
  input: { userId: string; charge: Pick<ChargeRow, 'merchantId' | 'chain' | 'tokenAddress'>; now: Date },
): Promise<SpendingAllowanceRow[]> {
  const rows = await db
    .select()
    .from(spendingAllowances)
    .where(
      and(
        eq(spendingAllowances.userId, input.userId),
        eq(spendingAllowances.merchantId, input.charge.merchantId),
        eq(spendingAllowances.chain, input.charge.chain),
        isNull(spendingAllowances.revokedAt),
        gt(spendingAllowances.expiresAt, input.now),
      ),
    )
    .orderBy(desc(spendingAllowances.createdAt));
  return rows.filter((row) => row.tokenAddress.toLowerCase() === input.charge.tokenAddress.toLowerCase());
}
