'use server';
import { z } from 'zod';
import { getSessionUser } from '@/lib/auth/session';
import { checkoutPath, checkoutPopupOrigin } from '@/lib/charges/checkout-popup';
import { requestCountry } from '@/lib/geo/request-country';
import { publicAction } from '@/lib/api/server-actions';
import type { FormState } from '@/lib/auth/form-state';
import { AppError } from '@/lib/errors';
import { FIAT_METHODS } from '@/lib/onramp/fiat-methods';
import { payChargeWithFiat } from '@/lib/onramp/pay-charge-with-fiat';
import { consumeOnrampRateLimit } from '@/lib/rate-limit/onramp-rate-limit';

export interface FiatPayState extends FormState {
  checkoutUrl?: string;
  orderId?: string;
}

const fiatPaySchema = z.object({
  chargeId: z.string().min(1).max(64),
  providerId: z.string().min(1).max(32),
  paymentMethod: z.enum(FIAT_METHODS),
  popupOrigin: z.string().max(512).optional(),
  /** Sent by the form only when it showed the provider's minimum and what stays in the balance. */
  buyMinimum: z.literal('true').optional(),
});

/** The checkout's card / bank / Apple Pay / Google Pay: places the fiat order (for the provider's minimum when the buyer accepted it) and returns the provider's screen. */
export const payWithFiatAction = publicAction<FiatPayState>(
  { fallback: { log: 'fiat payment could not start', message: 'The payment could not start. Try again in a moment.' } },
  async ({ ip }, { form }) => {
    const parsed = fiatPaySchema.safeParse({
      chargeId: form.get('chargeId'),
      providerId: form.get('providerId'),
      paymentMethod: form.get('paymentMethod'),
      popupOrigin: form.get('popupOrigin') ?? undefined,
      buyMinimum: form.get('buyMinimum') ?? undefined,
    });
    if (!parsed.success) throw new AppError('invalid_request', 'Choose a provider and a payment method.');
    const user = await getSessionUser().catch(() => undefined);
    const { country } = await requestCountry();
    const popupOrigin = checkoutPopupOrigin('popup', parsed.data.popupOrigin);
    await consumeOnrampRateLimit('orders', ip);
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
  },
);
