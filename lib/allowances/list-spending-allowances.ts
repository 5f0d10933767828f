/** The wallet's Allowances page: the user's live spending allowances, with what each paid in the last 24 hours. */
import 'server-only';
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { merchants, spendingAllowances } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';
import { allowanceSpent } from '@/lib/transactions/allowance-spent';
import type { SpendingAllowanceView } from './schemas';

export async function listSpendingAllowances(userId: string, now = new Date()): Promise<SpendingAllowanceView[]> {
  const rows = await getDb()
    .select({ allowance: spendingAllowances, merchantName: merchants.name })
    .from(spendingAllowances)
    .innerJoin(merchants, eq(merchants.id, spendingAllowances.merchantId))
    .where(and(eq(spendingAllowances.userId, userId), isNull(spendingAllowances.revokedAt), gt(spendingAllowances.expiresAt, now)))
    .orderBy(desc(spendingAllowances.createdAt));
  return Promise.all(
    rows.map(async ({ allowance, merchantName }) => ({
      id: allowance.id,
      merchantName,
      chainName: CHAINS[allowance.chain as ChainName]?.displayName ?? allowance.chain,
      tokenSymbol: allowance.tokenSymbol,
      amountPerDay: formatAmount(allowance.amountPerDayBaseUnits, allowance.tokenDecimals),
      spentToday: formatAmount(await allowanceSpent(getDb(), { allowanceId: allowance.id, userId, now }), allowance.tokenDecimals),
      expiresAt: allowance.expiresAt.toISOString(),
    })),
  );
}
