/**
 * Whether a rule may fire on a charge whose price the payer chose (finding N4). A charge created with a
 * publishable key carries the amount, items and metadata the browser sent, so `mint(recipient,
 * metadata.itemId, quantity)` would deliver 1000 legendary items for the token minimum. Such a charge
 * fires a rule only when the rule has a price list (schemas.ts priceListInputSchema) and the charge meets
 * it: paid in the list's token, every item id it names is listed, and its total is at least the sum of
 * minimum × quantity. Charges of secret keys were priced by the merchant's server and are not checked.
 *
 * `priceListRefusal` is pure (tested without a database); the job calls it before every call
 * (start-fulfilments.ts), so the rules armed by the database, "Fulfil now" and Retry all pass here.
 */
import type { ApiKeyKind, ChargeRow, StoredPriceList } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';

type PricedCharge = Pick<ChargeRow, 'tokenAddress' | 'tokenSymbol' | 'totalBaseUnits' | 'items' | 'metadata'>;

/** Why the rule must not fire on the charge, or null when it may. */
export function priceListRefusal(input: { keyKind: ApiKeyKind; priceList: StoredPriceList | null; charge: PricedCharge }): string | null {
  if (input.keyKind !== 'publishable') return null;
  const list = input.priceList;
  if (!list) {
    return 'Not fulfilled: this charge was created with a publishable key, so the payer chose its price, and the rule has no price list. Add a price list to the rule (item id → minimum price) to fulfil such charges.';
  }
  const { charge } = input;
  if (charge.tokenAddress.toLowerCase() !== list.tokenAddress.toLowerCase()) {
    return `Not fulfilled: the charge was paid in ${charge.tokenSymbol} and the rule’s price list is in ${list.tokenSymbol}.`;
  }
  const lines: { itemId: string; quantity: bigint }[] =
    list.itemId.source === 'metadata'
      ? [{ itemId: charge.metadata[list.itemId.key] ?? '', quantity: chargeQuantity(charge) }]
      : charge.items.map((item) => ({ itemId: item.name, quantity: BigInt(item.quantity) }));
  if (!lines.length) return 'Not fulfilled: the charge has no items, and the rule’s price list reads the item id from item.name.';
  let required = 0n;
  for (const line of lines) {
    const min = Object.hasOwn(list.minUnitBaseUnits, line.itemId) ? list.minUnitBaseUnits[line.itemId] : undefined;
    if (min === undefined) {
      const where = list.itemId.source === 'metadata' ? `metadata.${list.itemId.key}` : 'item.name';
      return `Not fulfilled: the item “${line.itemId.slice(0, 80)}” (${where}) is not in the rule’s price list.`;
    }
    required += BigInt(min) * line.quantity;
  }
  if (charge.totalBaseUnits < required) {
    return `Not fulfilled: the charge’s total ${formatAmount(charge.totalBaseUnits, list.tokenDecimals)} ${list.tokenSymbol} is below the price list’s ${formatAmount(required, list.tokenDecimals)} ${list.tokenSymbol} for what it names.`;
  }
  return null;
}

/** The charge's quantity as the `quantity` binding reads it: the items' total, 1 without items. */
function chargeQuantity(charge: PricedCharge): bigint {
  return charge.items.length ? charge.items.reduce((sum, item) => sum + BigInt(item.quantity), 0n) : 1n;
}

/** The price list as the Contracts tab shows it: "Price list in USDC, item id from metadata.itemId: 7 ≥ 2.5, 8 ≥ 10". */
export function describePriceList(list: StoredPriceList): string {
  const from = list.itemId.source === 'metadata' ? `metadata.${list.itemId.key}` : 'item.name';
  const prices = Object.entries(list.minUnitBaseUnits).map(([item, min]) => `${item} ≥ ${formatAmount(BigInt(min), list.tokenDecimals)}`);
  return `Price list in ${list.tokenSymbol}, item id from ${from}: ${prices.join(', ')}`;
}
