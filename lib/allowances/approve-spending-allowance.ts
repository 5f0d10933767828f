/**
 * Approve a spending allowance (ADR 0034): with the PIN, the user lets the merchant of `chargeId` be paid
 * from their balance in that charge's token and chain without the PIN, up to `amountPerDay` in any 24 hours,
 * for `days` days (at most MAX_ALLOWANCE_DAYS). It replaces the user's live allowance for the same merchant,
 * chain and token (revoked in the same transaction), and is e-mailed to the account once committed, so a
 * session used by someone else cannot approve one without the owner hearing of it — and cannot at all
 * without the PIN.
 */
import 'server-only';
import { and, eq, isNull } from 'drizzle-orm';
import { notifySecurityChange } from '@/lib/accounts/notify-security-change';
import { verifyPinStepUp } from '@/lib/accounts/step-up';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, merchants, spendingAllowances, type SpendingAllowanceRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { formatAmount, parseAmount } from '@/lib/money';
import { liveAllowancesFor } from './find-usable-allowance';
import { approveAllowanceSchema, type ApproveAllowanceInput } from './schemas';

const DAY_MS = 24 * 60 * 60 * 1000;

export async function approveSpendingAllowance(
  input: { userId: string; chargeId: string; pin: string; allowance: ApproveAllowanceInput | Record<string, unknown> },
  now = new Date(),
): Promise<SpendingAllowanceRow> {
  const parsed = approveAllowanceSchema.safeParse(input.allowance);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_request', `${String(issue.path[0] ?? 'allowance')} ${issue.message}.`, {
      param: String(issue.path[0] ?? 'amountPerDay'),
    });
  }
  const [charge] = await getDb()
    .select({ charge: charges, merchantName: merchants.name })
    .from(charges)
    .innerJoin(merchants, eq(merchants.id, charges.merchantId))
    .where(eq(charges.id, input.chargeId));
  if (!charge) throw new AppError('not_found', `No charge ${input.chargeId}.`);
  const { tokenDecimals: decimals, tokenSymbol: symbol } = charge.charge;
  const amount = parseAmount(parsed.data.amountPerDay, decimals);
  if (!amount.ok) {
    throw new AppError(
      'invalid_amount',
      amount.reason === 'too_many_decimals'
        ? `${symbol} has ${decimals} decimals: the amount per day cannot have more.`
        : 'Enter an amount per day above 0.',
      { param: 'amountPerDay' },
    );
  }
  await verifyPinStepUp({ userId: input.userId, pin: input.pin, attempt: { action: 'spending_allowance' } });

  const created = await getDb().transaction(async (tx) => {
    const replaced = await liveAllowancesFor(tx, { userId: input.userId, charge: charge.charge, now });
    for (const old of replaced) {
      await tx
        .update(spendingAllowances)
        .set({ revokedAt: now })
        .where(and(eq(spendingAllowances.id, old.id), isNull(spendingAllowances.revokedAt)));
    }
    const [row] = await tx
      .insert(spendingAllowances)
      .values({
        id: newId('spendingAllowance'),
        userId: input.userId,
        merchantId: charge.charge.merchantId,
        chain: charge.charge.chain,
        tokenAddress: charge.charge.tokenAddress,
        tokenSymbol: symbol,
        tokenDecimals: decimals,
        amountPerDayBaseUnits: amount.baseUnits,
        expiresAt: new Date(now.getTime() + parsed.data.days * DAY_MS),
      })
      .returning();
    return row!;
  });
  await notifySecurityChange({
    userId: input.userId,
    change: {
      kind: 'allowance_approved',
      merchantName: charge.merchantName,
      perDay: `${formatAmount(created.amountPerDayBaseUnits, decimals)} ${symbol} on ${CHAINS[created.chain as ChainName].displayName}`,
      until: created.expiresAt.toISOString().slice(0, 10),
    },
    at: now,
  });
  return created;
}
