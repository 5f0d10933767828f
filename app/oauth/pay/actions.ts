'use server';

import { formError, type FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { confirmPaymentRequest, declinePaymentRequest } from '@/lib/oauth/payment-requests';

export interface ConfirmPaymentState extends FormState {
  outcome?: { kind: 'paid'; txHash: string } | { kind: 'declined' };
}

/** The user pays the app's request with the PIN (same path as the checkout), or declines it. */
export async function confirmPaymentRequestAction(_state: ConfirmPaymentState, form: FormData): Promise<ConfirmPaymentState> {
  const requestId = String(form.get('requestId') ?? '');
  try {
    const user = await requireUserForAction();
    if (form.get('decision') === 'decline') {
      await declinePaymentRequest({ requestId, userId: user.id });
      return { outcome: { kind: 'declined' } };
    }
    const { txHash } = await confirmPaymentRequest({ requestId, userId: user.id, pin: String(form.get('pin') ?? '') });
    return { outcome: { kind: 'paid', txHash } };
  } catch (error) {
    return formError(error);
  }
}
