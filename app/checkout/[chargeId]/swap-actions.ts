'use server';
// Server actions of the checkout's swap on-ramp panel (components/checkout/swap-onramp-panel.tsx):
// each parses its input, takes identity and location from the session and request, calls one lib/swap verb.
import { headers } from 'next/headers';
import { getSessionUser } from '@/lib/auth/session';
import type { FormState } from '@/lib/auth/form-state';
import { parseOrThrow } from '@/lib/api/parse';
import { formField, publicCall, userAction, userCall } from '@/lib/api/server-actions';
import type { ErrorBody } from '@/lib/errors';
import { complianceCountryFrom } from '@/lib/geo/compliance-country';
import { requestCountry } from '@/lib/geo/request-country';
import { FIAT_METHODS, type FiatMethod } from '@/lib/onramp/fiat-methods';
import { consumeOnrampRateLimit } from '@/lib/rate-limit/onramp-rate-limit';
import {
  placeSwapFundingInputSchema,
  placeSwapFundingOrder,
  quoteSwapFunding,
  quoteSwapFundingInputSchema,
  swapChargeIdSchema,
} from '@/lib/swap/place-swap-funding-order';
import { quoteHeldFundsSwap, swapHeldFunds } from '@/lib/swap/swap-held-funds';
import { loadSwapProgress, type SwapProgress } from '@/lib/swap/swap-progress';

export type ActionError = ErrorBody;

/** Domain errors become their code and message; anything else is logged and answered generically. */
const FALLBACK = { log: 'swap on-ramp action failed', message: 'Something went wrong on our side. Try again in a moment.' };

/**
 * The location the checkout shows (cookie, edge headers, language: the same rule as the page), which
 * picks providers, and the server-side one the compliance rules use (never the buyer's selector).
 */
async function requestLocation(): Promise<{ country: string; complianceCountry: string | null }> {
  const requestHeaders = await headers();
  return {
    country: (await requestCountry()).country,
    complianceCountry: complianceCountryFrom(requestHeaders),
  };
}

const fiatMethod = (value: string | undefined): FiatMethod | undefined =>
  value !== undefined && (FIAT_METHODS as readonly string[]).includes(value) ? (value as FiatMethod) : undefined;

/** Branch A: the quote shown before the PIN. */
export const quoteHeldFundsAction = userCall(async ({ user }, chargeId: string) => {
  const parsed = parseOrThrow(swapChargeIdSchema, chargeId, 'chargeId');
  return quoteHeldFundsSwap({ userId: user.id, chargeId: parsed, ...(await requestLocation()) });
}, FALLBACK);

export interface SwapHeldFundsState extends FormState {
  txHash?: string;
}

/** Branch A: PIN-authorised swap of the payer's USDC up to the maximum they were shown. */
export const swapHeldFundsAction = userAction<SwapHeldFundsState>({ fallback: FALLBACK }, async ({ user }, { form }) => {
  const { txHash } = await swapHeldFunds({
    userId: user.id,
    chargeId: formField(form, 'chargeId'),
    pin: formField(form, 'pin'),
    maxAmountIn: formField(form, 'maxAmountIn'),
    ...(await requestLocation()),
  });
  return { txHash };
});

/** Branch B: how much USDC to buy, and the chosen provider's price for it. */
export const quoteSwapFundingAction = publicCall(async (_ctx, input: { chargeId: string; providerId: string; paymentMethod: string }) => {
  const { chargeId, providerId, paymentMethod } = parseOrThrow(quoteSwapFundingInputSchema, input);
  return quoteSwapFunding({
    chargeId,
    providerId,
    paymentMethod: fiatMethod(paymentMethod),
    country: (await requestLocation()).country,
  });
}, FALLBACK);

/** Branch B: places the USDC purchase, delivered to the charge's deposit address; the page opens the provider's screen. */
export const placeSwapFundingOrderAction = publicCall(
  async ({ ip }, input: { chargeId: string; providerId: string; paymentMethod: string; acceptMinimum: boolean }) => {
    const placing = parseOrThrow(placeSwapFundingInputSchema, input);
    await consumeOnrampRateLimit('orders', ip);
    const user = await getSessionUser().catch(() => undefined);
    const order = await placeSwapFundingOrder({
      ...placing,
      userId: user?.id ?? null,
      ...(await requestLocation()),
    });
    return { orderId: order.orderId, checkoutUrl: order.checkoutUrl, checkoutKind: order.checkoutKind, fundingAmount: order.fundingAmount };
  },
  FALLBACK,
);

/** Branch B: the conversion's progress, polled by the panel; null for what names no charge (or no swap). */
export async function swapProgressAction(chargeId: string): Promise<SwapProgress | null> {
  const parsed = swapChargeIdSchema.safeParse(chargeId);
  // A NUL character would reach PostgreSQL's text comparison and fail the query: no id carries one.
  if (!parsed.success || parsed.data.includes('\u0000')) return null;
  return (await loadSwapProgress(parsed.data)) ?? null;
}
