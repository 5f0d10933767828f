'use server';
import { notFound, redirect } from 'next/navigation';
import type { FormState } from '@/lib/auth/form-state';
import { formField, userAction } from '@/lib/api/server-actions';
import { isAppError } from '@/lib/errors';
import { refuseNulCharacters } from '@/lib/http/refuse-nul-characters';
import { cancelChargeByConsumer } from '@/lib/charges/cancel-charge';
import { checkoutPath, checkoutPopupOrigin } from '@/lib/charges/checkout-popup';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { approveSpendingAllowance } from '@/lib/allowances/approve-spending-allowance';

export interface PayState extends FormState {
  txHash?: string;
  /** A spending allowance was approved with this payment's PIN. */
  allowanceApproved?: boolean;
}

/**
 * The checkout's "Pay from balance": same verb as POST /api/charges/{id}/pay. Without a PIN (the one-tap
 * button) it pays only within a spending allowance for the charge's merchant, else answers
 * step_up_required and the form asks for the PIN. With the PIN and "Approve a spending allowance" ticked,
 * the allowance is approved first (its fields checked before anything moves), then the charge is paid.
 */
export const payFromBalanceAction = userAction<PayState>(
  { values: (form) => ({ amountPerDay: formField(form, 'amountPerDay'), allowanceDays: formField(form, 'allowanceDays') }) },
  async ({ user }, { form }) => {
    const chargeId = String(form.get('chargeId'));
    const pin = form.has('pin') ? formField(form, 'pin') : undefined;
    const approve = pin !== undefined && form.get('approveAllowance') === 'on';
    if (approve) {
      await approveSpendingAllowance({
        userId: user.id,
        chargeId,
        pin,
        allowance: { amountPerDay: formField(form, 'amountPerDay'), days: formField(form, 'allowanceDays') },
      });
    }
    const { txHash } = await payFromBalance({ userId: user.id, chargeId, pin });
    return { txHash, allowanceApproved: approve };
  },
);

/**
 * The checkout's Cancel: cancels the pending charge, then returns to the merchant's cancelUrl. In the
 * SDK's popup it goes back to the checkout itself, which reports `canceled` to the opener and closes;
 * the origin is validated again there, and the redirect stays on this site either way. While a payment
 * of the charge is in flight the charge is not canceled and the consumer stays on the checkout.
 */
export async function cancelCheckoutAction(form: FormData): Promise<void> {
  const chargeId = formField(form, 'chargeId');
  const popupOrigin = checkoutPopupOrigin('popup', form.get('popupOrigin'));
  const cancel = await Promise.resolve()
    // A NUL character would fail PostgreSQL's comparison: refused as an id that names nothing (not_found).
    .then(() => cancelChargeByConsumer(refuseNulCharacters(chargeId, { in: 'path' })))
    .catch((error: unknown) => {
      // A payment of the charge is in flight: stay on the checkout, which shows that payment's progress.
      if (isAppError(error) && error.code === 'payment_in_progress') return undefined;
      // No such charge (a form not sent by the checkout): the 404 page, as the checkout answers it.
      if (isAppError(error) && error.code === 'not_found') notFound();
      throw error;
    });
  if (!cancel) redirect(checkoutPath(chargeId, popupOrigin));
  redirect(popupOrigin ? checkoutPath(chargeId, popupOrigin) : (cancel.cancelUrl ?? '/'));
}
