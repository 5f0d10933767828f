'use server';
import { redirect } from 'next/navigation';
import type { FormState } from '@/lib/auth/form-state';
import { formField, userAction } from '@/lib/api/server-actions';
import { isAppError } from '@/lib/errors';
import { cancelChargeByConsumer } from '@/lib/charges/cancel-charge';
import { checkoutPath, checkoutPopupOrigin } from '@/lib/charges/checkout-popup';
import { payFromBalance } from '@/lib/payments/pay-from-balance';

export interface PayState extends FormState {
  txHash?: string;
}

/** The checkout's "Pay from balance": same verb as POST /api/charges/{id}/pay. */
export const payFromBalanceAction = userAction<PayState>({}, async ({ user }, { form }) => {
  const { txHash } = await payFromBalance({ userId: user.id, chargeId: String(form.get('chargeId')), pin: formField(form, 'pin') });
  return { txHash };
});

/**
 * The checkout's Cancel: cancels the pending charge, then returns to the merchant's cancelUrl. In the
 * SDK's popup it goes back to the checkout itself, which reports `canceled` to the opener and closes;
 * the origin is validated again there, and the redirect stays on this site either way. While a payment
 * of the charge is in flight the charge is not canceled and the consumer stays on the checkout.
 */
export async function cancelCheckoutAction(form: FormData): Promise<void> {
  const chargeId = String(form.get('chargeId'));
  const popupOrigin = checkoutPopupOrigin('popup', form.get('popupOrigin'));
  const cancel = await cancelChargeByConsumer(chargeId).catch((error: unknown) => {
    // A payment of the charge is in flight: stay on the checkout, which shows that payment's progress.
    if (isAppError(error) && error.code === 'payment_in_progress') return undefined;
    throw error;
  });
  if (!cancel) redirect(checkoutPath(chargeId, popupOrigin));
  redirect(popupOrigin ? checkoutPath(chargeId, popupOrigin) : (cancel.cancelUrl ?? '/'));
}
