import type { TokenInfo } from '@/lib/chains/registry';
import type { StoredChargeItem } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';
import type { CreateChargeBody } from './schemas';

type ChargeItemInput = NonNullable<CreateChargeBody['chargeData']['items']>[number];

/**
 * A charge's items as stored, from each line's unit price in the token's base units: the same shape whether
 * the price was given in tokens or converted from US dollars (price-charge-in-usd.ts).
 */
export function storedChargeItems(
  lines: readonly { item: ChargeItemInput; unitBaseUnits: bigint; quantity: number }[],
  token: TokenInfo,
): StoredChargeItem[] {
  return lines.map(({ item, unitBaseUnits, quantity }) => ({
    name: item.name,
    ...(item.image ? { image: item.image } : {}),
    amount: formatAmount(unitBaseUnits, token.decimals),
    quantity,
    unitBaseUnits: unitBaseUnits.toString(),
    lineTotalBaseUnits: (unitBaseUnits * BigInt(quantity)).toString(),
  }));
}
