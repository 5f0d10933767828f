'use server';
// Server actions of the checkout's swap on-ramp panel (components/checkout/swap-onramp-panel.tsx):
// each parses its input, takes identity and location from the session and request, calls one lib/swap verb.
import { headers } from 'next/headers';
import { getSessionUser, requireUserForAction } from '@/lib/auth/session';
import { actionError as toActionError } from '@/lib/action-error';
import { complianceCountryFrom } from '@/lib/geo/compliance-country';
import { requestCountry } from '@/lib/geo/request-country';
import { FIAT_METHODS, type FiatMethod } from '@/lib/onramp/fiat-methods';
import { consumeOnrampRateLimit } from '@/lib/rate-limit/onramp-rate-limit';
import { clientIpFrom } from '@/lib/http/client-ip';
import { placeSwapFundingOrder, quoteSwapFunding, type SwapFundingQuote } from '@/lib/swap/place-swap-funding-order';
import { quoteHeldFundsSwap, swapHeldFunds, type HeldFundsQuote } from '@/lib/swap/swap-held-funds';
import { loadSwapProgress, type SwapProgress } from '@/lib/swap/swap-progress';

export interface ActionError {
  code: string;
  message: string;
  details?: Record<string, string>;
}

export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: ActionError };

/** Domain errors become their code and message; anything else is logged and answered generically. */
function actionError(error: unknown): ActionError {
  return toActionError(error, { log: 'swap on-ramp action failed', message: 'Something went wrong on our side. Try again in a moment.' });
}

async function run<T>(work: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, data: await work() };
  } catch (error) {
    return { ok: false, error: actionError(error) };
  }
}

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

const fiatMethod = (value: string): FiatMethod | undefined =>
  (FIAT_METHODS as readonly string[]).includes(value) ? (value as FiatMethod) : undefined;

/** Branch A: the quote shown before the PIN. */
export async function quoteHeldFundsAction(chargeId: string): Promise<ActionResult<HeldFundsQuote>> {
  return run(async () => {
    const user = await requireUserForAction();
    return quoteHeldFundsSwap({ userId: user.id, chargeId: String(chargeId), ...(await requestLocation()) });
  });
}

export interface SwapHeldFundsState {
  error?: ActionError;
  txHash?: string;
}

/** Branch A: PIN-authorised swap of the payer's USDC up to the maximum they were shown. */
export async function swapHeldFundsAction(_state: SwapHeldFundsState, form: FormData): Promise<SwapHeldFundsState> {
  const result = await run(async () => {
    const user = await requireUserForAction();
    return swapHeldFunds({
      userId: user.id,
      chargeId: String(form.get('chargeId') ?? ''),
      pin: String(form.get('pin') ?? ''),
      maxAmountIn: String(form.get('maxAmountIn') ?? ''),
      ...(await requestLocation()),
    });
  });
  return result.ok ? { txHash: result.data.txHash } : { error: result.error };
}

/** Branch B: how much USDC to buy, and the chosen provider's price for it. */
export async function quoteSwapFundingAction(input: {
  chargeId: string;
  providerId: string;
  paymentMethod: string;
}): Promise<ActionResult<SwapFundingQuote>> {
  return run(async () =>
    quoteSwapFunding({
      chargeId: String(input.chargeId),
      providerId: String(input.providerId),
      paymentMethod: fiatMethod(String(input.paymentMethod)),
      country: (await requestLocation()).country,
    }),
  );
}

/** Branch B: places the USDC purchase, delivered to the charge's deposit address; the page opens the provider's screen. */
export async function placeSwapFundingOrderAction(input: {
  chargeId: string;
  providerId: string;
  paymentMethod: string;
  acceptMinimum: boolean;
}): Promise<ActionResult<{ orderId: string; checkoutUrl: string; checkoutKind: 'redirect' | 'embed'; fundingAmount: string }>> {
  return run(async () => {
    await consumeOnrampRateLimit('orders', clientIpFrom(await headers()));
    const user = await getSessionUser().catch(() => undefined);
    const order = await placeSwapFundingOrder({
      chargeId: String(input.chargeId),
      userId: user?.id ?? null,
      providerId: String(input.providerId),
      // Checked against the payment methods by the verb's schema.
      paymentMethod: String(input.paymentMethod) as FiatMethod,
      ...(await requestLocation()),
      acceptMinimum: input.acceptMinimum === true,
    });
    return { orderId: order.orderId, checkoutUrl: order.checkoutUrl, checkoutKind: order.checkoutKind, fundingAmount: order.fundingAmount };
  });
}

/** Branch B: the conversion's progress, polled by the panel. */
export async function swapProgressAction(chargeId: string): Promise<SwapProgress | null> {
  return (await loadSwapProgress(String(chargeId))) ?? null;
}
