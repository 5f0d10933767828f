/**
 * Branch B, first half: the payer buys USDC through the one provider that sells it on the charge's
 * chain in their country, delivered to the charge's deposit address; convert-swap-funding.ts then
 * swaps it into the PZP due.
 *
 * How much USDC: what the pool asks now for the PZP due, plus the slippage limit (the price may move
 * while the purchase runs), rounded up to the cent. Below the provider's minimum the on-ramp refuses
 * (`below_minimum`, with the minimum); the payer may then buy the minimum instead (acceptMinimum). USDC
 * the swap does not use stays at the deposit address, on the charge's record, for support to refund.
 */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges } from '@/lib/db/schema';
import { checkoutBaseUrl } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { FIAT_METHODS, type FiatMethod } from '@/lib/onramp/fiat-methods';
import { placeOnrampOrder, type PlacedOrder, type PlaceOrderInput } from '@/lib/onramp/orders/place-order';
import { quoteOnramp, type OnrampQuoteView } from '@/lib/onramp/quote-onramp';
import { assertSwapProvider, swapAvailability } from './swap-availability';
import { liveSwapOf, payableSwapCharge, type SwapCharge } from './swap-charge';
import { swapQuoteView, type SwapQuoteView } from './quote-view';
import { quoteSwapCharge } from './quote-swap-charge';

export interface SwapFundingQuote {
  swap: SwapQuoteView;
  /** USDC to buy: the swap's maximum input, rounded up to the cent. */
  fundingAmount: string;
  /** The provider's price for it, when a provider and method were given and it can quote. */
  onramp?: OnrampQuoteView;
  /** Why the provider could not quote it (below minimum is flagged in `onramp` instead). */
  onrampError?: string;
}

/** The USDC to buy for a charge: quote of the PZP due + slippage, rounded up to 0.01. */
export async function quoteSwapFunding(input: {
  chargeId: string;
  providerId?: string;
  paymentMethod?: FiatMethod;
  country?: string;
}): Promise<SwapFundingQuote> {
  const { swapCharge } = await loadPayable(input.chargeId);
  const { pair, due } = swapCharge;
  const client = publicClientFor(pair.chain);
  if (!client) throw new AppError('chain_unavailable', `${CHAINS[pair.chain].displayName} is not reachable right now. Try again shortly.`);
  const quote = await quoteSwapCharge(client, { pair, due });
  const fundingAmount = formatAmount(roundUpToCents(quote.amountInMax, pair.funding.decimals), pair.funding.decimals);
  const result: SwapFundingQuote = { swap: swapQuoteView(pair, quote), fundingAmount };
  if (input.providerId && input.paymentMethod && input.country) {
    try {
      result.onramp = await quoteOnramp({
        providerId: input.providerId,
        country: input.country,
        chain: pair.chain,
        tokenSymbol: pair.funding.symbol,
        paymentMethod: input.paymentMethod,
        amount: { kind: 'crypto', value: fundingAmount },
      });
    } catch (error) {
      result.onrampError = error instanceof Error ? error.message : 'The provider cannot quote this right now.';
    }
  }
  return result;
}

/** A charge id as the checkout's swap panel sends it. */
export const swapChargeIdSchema = z.string().min(1).max(64);

export const placeSwapFundingOrderSchema = z.object({
  chargeId: swapChargeIdSchema,
  userId: z.string().nullish(),
  providerId: z.string().min(1).max(40),
  paymentMethod: z.enum(FIAT_METHODS),
  country: z.string().regex(/^[A-Z]{2}$/),
  /** The server-side location (lib/geo/compliance-country.ts); null: unknown. */
  complianceCountry: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .nullable(),
  acceptMinimum: z.boolean().default(false),
});

/** What the checkout's panel sends to place the order (the buyer and location come from the request). */
export const placeSwapFundingInputSchema = placeSwapFundingOrderSchema.pick({
  chargeId: true,
  providerId: true,
  paymentMethod: true,
  acceptMinimum: true,
});

/** What the panel sends for a quote: the provider and method are optional (no provider chosen yet). */
export const quoteSwapFundingInputSchema = z.object({
  chargeId: swapChargeIdSchema,
  providerId: z.string().max(40).optional(),
  paymentMethod: z.string().max(40).optional(),
});

export async function placeSwapFundingOrder(
  raw: z.input<typeof placeSwapFundingOrderSchema>,
  deps: { placeOnrampOrder?: (input: PlaceOrderInput) => Promise<PlacedOrder> } = {},
): Promise<PlacedOrder & { fundingAmount: string }> {
  const parsed = placeSwapFundingOrderSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_request', `${issue.path.join('.')}: ${issue.message}`, { param: issue.path.join('.') });
  }
  const input = parsed.data;
  const { charge, swapCharge } = await loadPayable(input.chargeId);
  const pair = assertSwapProvider(
    await swapAvailability({
      country: input.country,
      complianceCountry: input.complianceCountry,
      chain: charge.chain,
      tokenAddress: charge.tokenAddress,
    }),
    input.providerId,
  );
  if (await liveSwapOf(getDb(), charge.id)) throw new AppError('charge_not_payable', 'This charge is already being paid by a swap.');
  const { fundingAmount } = await quoteSwapFunding({ chargeId: charge.id });
  const order = await (deps.placeOnrampOrder ?? placeOnrampOrder)({
    purpose: 'swap_funding',
    userId: input.userId ?? null,
    chargeId: charge.id,
    providerId: input.providerId,
    paymentMethod: input.paymentMethod,
    country: input.country,
    chain: pair.chain,
    tokenSymbol: pair.funding.symbol,
    walletAddress: swapCharge.depositAddress,
    cryptoAmount: fundingAmount,
    acceptMinimum: input.acceptMinimum,
    // Back to the checkout, which follows the conversion.
    redirectUrl: `${checkoutBaseUrl()}/checkout/${charge.id}`,
  });
  return { ...order, fundingAmount };
}

async function loadPayable(chargeId: string): Promise<{ charge: typeof charges.$inferSelect; swapCharge: SwapCharge }> {
  const [charge] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  if (!charge) throw new AppError('not_found', `No charge ${chargeId}.`);
  return { charge, swapCharge: await payableSwapCharge(getDb(), charge) };
}

/** Rounds base units up to a whole cent of a dollar stablecoin (10^(decimals − 2) base units). */
export function roundUpToCents(baseUnits: bigint, decimals: number): bigint {
  if (decimals <= 2) return baseUnits;
  const cent = 10n ** BigInt(decimals - 2);
  return ((baseUnits + cent - 1n) / cent) * cent;
}
