import { minimumChargeOf, type TokenInfo } from '@/lib/chains/registry';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';

/**
 * A charge's total must reach its token's smallest charge, however it was priced (token amounts or US dollars):
 * dust charges cost more to sweep than they bring, and would drain the gas tank that pays those fees.
 */
export function assertChargeAboveMinimum(totalBaseUnits: bigint, token: TokenInfo, param: string, priced?: string): void {
  const minimum = minimumChargeOf(token);
  if (minimum === undefined || totalBaseUnits >= minimum) return;
  throw new AppError(
    'amount_below_minimum',
    `The smallest charge in ${token.symbol} is ${formatAmount(minimum, token.decimals)} ${token.symbol} (this one totals ${formatAmount(totalBaseUnits, token.decimals)}${priced ? `, ${priced}` : ''}): moving less would cost more in network fees than it is worth.`,
    { param },
  );
}
