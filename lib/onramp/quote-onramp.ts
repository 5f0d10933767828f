/**
 * On-ramp quotes: what a purchase costs at a provider, from the registry's reviewed fee facts and the
 * token's USD price (stablecoins 1:1, other tokens the price feed). Exact: cents and base units.
 *
 * The provider's own screen shows its final price (rates move); the quote is what the buyer sees before
 * choosing, and what the order records. A requested amount whose value is below the method's minimum
 * is flagged, with the minimum in USD and in tokens (spec, on-ramp rule 5).
 */
import { CHAINS, tokenHasSymbol, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { formatAmount, parseAmount } from '@/lib/money';
import type { FiatMethod } from '@/lib/onramp/fiat-methods';
import { usdRate } from '@/lib/pricing/approximate-usd';
import { AppError } from '@/lib/errors';
import type { z } from 'zod';
import type { onrampQuoteSchema } from './schemas';
import { baseUnitsForCents, centsToText, parseFiat, percentOfCents, toCents, valueInCents } from './fiat-math';
import { methodFact, orderCurrency } from './registry/facts';
import { providerWithAdapter } from './registry/provider-with-adapter';
import { unavailableReason } from './registry/offered-providers';

/** How long a quote is shown as valid before the page asks for a fresh one. */
const QUOTE_LIFETIME_MS = 60_000;

export interface OnrampQuoteInput {
  providerId: string;
  country: string;
  chain: ChainName;
  tokenSymbol: string;
  paymentMethod: FiatMethod;
  amount: { kind: 'crypto' | 'usd'; value: string };
}

/** The quote's wire format (lib/onramp/schemas.ts). */
export type OnrampQuoteView = z.infer<typeof onrampQuoteSchema>;

export function tokenOn(chain: ChainName, symbol: string): TokenInfo | undefined {
  return CHAINS[chain].tokens.find((token) => tokenHasSymbol(token, symbol));
}

export async function quoteOnramp(input: OnrampQuoteInput, now = new Date()): Promise<OnrampQuoteView> {
  const provider = await providerWithAdapter(input.providerId);
  if (!provider) throw new AppError('provider_unavailable', 'This provider is not offered here.');
  const { facts, adapter } = provider;
  const reason = unavailableReason(facts, adapter, input);
  if (reason) throw new AppError('provider_unavailable', `${reason}. Choose another provider.`);
  const method = methodFact(facts, input.paymentMethod, input.country);
  if (!method || !adapter.supportsPaymentMethod(input.paymentMethod, orderCurrency(facts))) {
    throw new AppError('provider_unavailable', `${facts.displayName} does not offer this payment method here. Choose another method.`);
  }
  const token = tokenOn(input.chain, input.tokenSymbol)!;
  const rate = await usdRate(token, now);
  if (!rate) throw new AppError('quote_unavailable', `No current USD price for ${token.symbol}; try again in a few minutes.`);

  const baseUnits = requestedBaseUnits(input.amount, token, rate);
  if (baseUnits <= 0n) throw new AppError('invalid_amount', 'Enter an amount greater than zero.');
  const minimumCents = toCents(method.minimumUsd);
  const minimumBaseUnits = baseUnitsForCents(minimumCents, token.decimals, rate, 'up');
  return priceOf(baseUnits, {
    providerId: facts.id,
    token,
    rate,
    feePercent: method.fee.percent,
    minimumFeeCents: toCents(method.fee.minimumUsd),
    networkFeeCents: toCents(facts.networkFeeUsd[input.chain] ?? '0'),
    fiatCurrency: orderCurrency(facts),
    minimum: { fiat: centsToText(minimumCents), crypto: formatAmount(minimumBaseUnits, token.decimals), cents: minimumCents },
    now,
  });
}

function requestedBaseUnits(amount: OnrampQuoteInput['amount'], token: TokenInfo, rate: string): bigint {
  if (amount.kind === 'crypto') {
    const parsed = parseAmount(amount.value.trim(), token.decimals);
    if (!parsed.ok) throw new AppError('invalid_amount', `Enter a ${token.symbol} amount with at most ${token.decimals} decimals.`);
    return parsed.baseUnits;
  }
  const cents = parseFiat(amount.value);
  if (cents === undefined) throw new AppError('invalid_amount', 'Enter a USD amount such as 25 or 25.50.');
  return baseUnitsForCents(cents, token.decimals, rate);
}

/** The quote for an exact token amount (also used to re-price an order raised to the minimum). */
export function priceOf(
  baseUnits: bigint,
  p: {
    providerId: string;
    token: TokenInfo;
    rate: string;
    feePercent: string;
    minimumFeeCents: bigint;
    networkFeeCents: bigint;
    fiatCurrency: string;
    minimum: { fiat: string; crypto: string; cents: bigint };
    now: Date;
  },
): OnrampQuoteView {
  const subtotal = valueInCents(baseUnits, p.token.decimals, p.rate);
  const percentFee = percentOfCents(subtotal, p.feePercent);
  const providerFee = percentFee > p.minimumFeeCents ? percentFee : p.minimumFeeCents;
  return {
    providerId: p.providerId,
    tokenSymbol: p.token.symbol,
    cryptoAmount: formatAmount(baseUnits, p.token.decimals),
    cryptoBaseUnits: baseUnits.toString(),
    fiatCurrency: p.fiatCurrency,
    rate: p.rate,
    subtotal: centsToText(subtotal),
    providerFee: centsToText(providerFee),
    networkFee: centsToText(p.networkFeeCents),
    total: centsToText(subtotal + providerFee + p.networkFeeCents),
    minimum: { fiat: p.minimum.fiat, crypto: p.minimum.crypto },
    belowMinimum: subtotal < p.minimum.cents,
    expiresAt: new Date(p.now.getTime() + QUOTE_LIFETIME_MS).toISOString(),
  };
}
