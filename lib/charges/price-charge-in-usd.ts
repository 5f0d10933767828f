/**
 * priceChargeInUsd — a charge priced in US dollars (`chargeData.pricing`, never with `amount`), turned into
 * the token's base units at creation:
 *
 *  - the token's current USD rate (stablecoins at par; others from the price feed, at most 15 minutes old:
 *    lib/pricing/current-usd-rate.ts); none → price_unavailable;
 *  - USD amounts are cents: at most 2 fractional digits, greater than zero (invalid_amount);
 *  - with items, their amounts are USD unit prices adding up to pricing.amount (amount_mismatch); each unit
 *    price is converted on its own and rounded up, and the total is the sum of the lines, so the items always
 *    add up to the charge's total; without items the total is pricing.amount converted;
 *  - the converted total must reach the token's smallest charge, as a token-priced one must (charge-minimum.ts);
 *  - the rate is recorded with the charge (StoredChargePricing) and locked for its lifetime.
 */
import type { ChainInfo, TokenInfo } from '@/lib/chains/registry';
import type { ApiContext } from '@/lib/context';
import { getDb } from '@/lib/db/client';
import type { StoredChargeItem, StoredChargePricing } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { MAX_BASE_UNITS, formatAmount, parseAmount, sumLineTotals } from '@/lib/money';
import { currentUsdRate, usdCentsToBaseUnits, type UsdRate } from '@/lib/pricing/current-usd-rate';
import type { CreateChargeBody } from './schemas';
import { assertChargeAboveMinimum } from './charge-minimum';
import { storedChargeItems } from './stored-charge-items';

/** USD prices are in cents. */
const USD_DECIMALS = 2;

type ChargeData = CreateChargeBody['chargeData'];

export interface ChargePricedInUsd {
  items: StoredChargeItem[];
  totalBaseUnits: bigint;
  pricing: StoredChargePricing;
}

export async function priceChargeInUsd({
  ctx,
  input,
  chain,
  token,
  now,
}: {
  ctx: ApiContext;
  input: Pick<ChargeData, 'amount' | 'items'> & { pricing: NonNullable<ChargeData['pricing']> };
  chain: ChainInfo;
  token: TokenInfo;
  now: Date;
}): Promise<ChargePricedInUsd> {
  const rate = await resolveUsdRate(ctx, chain, token, input, now);
  const { items, totalBaseUnits } = resolveUsdAmounts(input, token, rate);
  return {
    items,
    totalBaseUnits,
    pricing: {
      currency: 'USD',
      amount: formatAmount(usdCents(input.pricing.amount, 'chargeData.pricing.amount'), USD_DECIMALS),
      rate: rate.rate,
      rateSource: rate.source,
      rateAt: rate.at.toISOString(),
    },
  };
}

async function resolveUsdRate(
  ctx: ApiContext,
  chain: ChainInfo,
  token: TokenInfo,
  chargeData: Pick<ChargeData, 'amount'>,
  now: Date,
): Promise<UsdRate> {
  if (chargeData.amount !== undefined) {
    throw new AppError('invalid_request', 'Give chargeData.amount (in tokens) or chargeData.pricing (in USD), not both.', {
      param: 'chargeData.amount',
    });
  }
  const rate = await currentUsdRate(token, { db: ctx.tx ?? getDb(), now });
  if (!rate) {
    throw new AppError(
      'price_unavailable',
      `No fresh USD rate for ${token.symbol} on ${chain.name} right now, so a USD price cannot be converted. Give the amount in ${token.symbol} instead (chargeData.amount or items), price in a USD stablecoin, or retry later.`,
      { param: 'chargeData.pricing' },
    );
  }
  return rate;
}

/** A USD amount in cents: a positive decimal with at most 2 fractional digits. */
function usdCents(text: string, param: string): bigint {
  const result = parseAmount(text, USD_DECIMALS);
  if (result.ok) return result.baseUnits;
  const messages: Record<typeof result.reason, string> = {
    format: `${param} "${text}" is not a decimal number of US dollars.`,
    too_many_decimals: `${param} ${text} has more than 2 fractional digits: give US dollars to the cent.`,
    not_positive: `${param} must be greater than zero.`,
    too_large: `${param} ${text} is too large.`,
  };
  throw new AppError('invalid_amount', messages[result.reason], { param });
}

/**
 * Amounts of a USD-priced charge. Each USD unit price is converted on its own (rounded up), and the total
 * is the sum of the lines, so the charge's items always add up to its total; without items the total is
 * pricing.amount converted.
 */
function resolveUsdAmounts(
  chargeData: Pick<ChargeData, 'items'> & { pricing: NonNullable<ChargeData['pricing']> },
  token: TokenInfo,
  rate: UsdRate,
): { items: StoredChargeItem[]; totalBaseUnits: bigint } {
  const priceCents = usdCents(chargeData.pricing.amount, 'chargeData.pricing.amount');
  const toBaseUnits = (cents: bigint) => usdCentsToBaseUnits(cents, rate.rate, token.decimals);
  const lines = (chargeData.items ?? []).map((item, index) => ({
    item,
    cents: usdCents(item.amount, `chargeData.items.${index}.amount`),
    quantity: item.quantity,
  }));
  if (lines.length) {
    const itemsCents = lines.reduce((total, line) => total + line.cents * BigInt(line.quantity), 0n);
    if (itemsCents !== priceCents) {
      throw new AppError(
        'amount_mismatch',
        `chargeData.pricing.amount ${formatAmount(priceCents, USD_DECIMALS)} USD does not equal the items' total ${formatAmount(itemsCents, USD_DECIMALS)} USD (with pricing, item amounts are US dollars).`,
        { param: 'chargeData.pricing.amount' },
      );
    }
  }
  const converted = lines.map((line) => ({ ...line, unitBaseUnits: toBaseUnits(line.cents) }));
  const totalBaseUnits = converted.length ? sumLineTotals(converted) : toBaseUnits(priceCents);
  if (totalBaseUnits > MAX_BASE_UNITS) {
    throw new AppError('invalid_amount', `The charge total is larger than any ${token.symbol} amount can be.`, {
      param: 'chargeData.pricing.amount',
    });
  }
  assertChargeAboveMinimum(
    totalBaseUnits,
    token,
    'chargeData.pricing.amount',
    `$${formatAmount(priceCents, USD_DECIMALS)} at ${rate.rate} USD per ${token.symbol}`,
  );
  return { items: storedChargeItems(converted, token), totalBaseUnits };
}
