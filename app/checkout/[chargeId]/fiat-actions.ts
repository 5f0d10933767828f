'use server';
import { headers } from 'next/headers';
import { z } from 'zod';
import { getSessionUser } from '@/lib/auth/session';
import { checkoutPath, checkoutPopupOrigin } from '@/lib/charges/checkout-popup';
import { requestCountry } from '@/lib/geo/request-country';
import { actionError } from '@/lib/action-error';
import { FIAT_METHODS } from '@/lib/onramp/fiat-methods';
import { payChargeWithFiat } from '@/lib/onramp/pay-charge-with-fiat';
import { consumeOnrampRateLimit } from '@/lib/rate-limit/onramp-rate-limit';
import { clientIpFrom } from '@/lib/http/client-ip';

export type FiatPayState = { checkoutUrl?: string; orderId?: string; error?: { code: string; message: string } };

const fiatPaySchema = z.object({
  chargeId: z.string().min(1).max(64),
  providerId: z.string().min(1).max(32),
  paymentMethod: z.enum(FIAT_METHODS),
  popupOrigin: z.string().max(512).optional(),
  /** Sent by the form only when it showed the provider's minimum and what stays in the balance. */
  buyMinimum: z.literal('true').optional(),
});

/** The checkout's card / bank / Apple Pay / Google Pay: places the fiat order (for the provider's minimum when the buyer accepted it) and returns the provider's screen. */
export async function payWithFiatAction(_state: FiatPayState, form: FormData): Promise<FiatPayState> {
  const parsed = fiatPaySchema.safeParse({
    chargeId: form.get('chargeId'),
    providerId: form.get('providerId'),
    paymentMethod: form.get('paymentMethod'),
    popupOrigin: form.get('popupOrigin') ?? undefined,
    buyMinimum: form.get('buyMinimum') ?? undefined,
  });
  if (!parsed.success) return { error: { code: 'invalid_request', message: 'Choose a provider and a payment method.' } };
  const [requestHeaders, user] = await Promise.all([headers(), getSessionUser().catch(() => undefined)]);
  const { country } = await requestCountry();
  const popupOrigin = checkoutPopupOrigin('popup', parsed.data.popupOrigin);
  try {
    await consumeOnrampRateLimit('orders', clientIpFrom(requestHeaders));
    const placed = await payChargeWithFiat({
      chargeId: parsed.data.chargeId,
      providerId: parsed.data.providerId,
      paymentMethod: parsed.data.paymentMethod,
      country,
      userId: user?.id ?? null,
      returnPath: checkoutPath(parsed.data.chargeId, popupOrigin),
      buyMinimum: parsed.data.buyMinimum === 'true',
    });
    return { checkoutUrl: placed.checkoutUrl, orderId: placed.orderId };
  } catch (error) {
    return {
      error: actionError(error, {
        log: 'fiat payment could not start',
        context: { chargeId: parsed.data.chargeId },
        message: 'The payment could not start. Try again in a moment.',
      }),
    };
  }
}
