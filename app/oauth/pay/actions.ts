'use server';

import type { FormState } from '@/lib/auth/form-state';
import { formField, userAction } from '@/lib/api/server-actions';
import { confirmPaymentRequest, declinePaymentRequest } from '@/lib/oauth/payment-requests';

export interface ConfirmPaymentState extends FormState {
  outcome?: { kind: 'paid'; txHash: string } | { kind: 'declined' };
}

/**
 * The user pays the app's request with the PIN (same path as the checkout), or declines it. Without a PIN
 * field (the one-tap form) it pays only within the user's spending allowance for the app's merchant.
 */
export const confirmPaymentRequestAction = userAction<ConfirmPaymentState>({}, async ({ user }, { form }) => {
  const requestId = formField(form, 'requestId');
  if (form.get('decision') === 'decline') {
    await declinePaymentRequest({ requestId, userId: user.id });
    return { outcome: { kind: 'declined' } };
  }
  const { txHash } = await confirmPaymentRequest({ requestId, userId: user.id, pin: form.has('pin') ? formField(form, 'pin') : undefined });
  return { outcome: { kind: 'paid', txHash } };
});
