'use server';
import { formError, type FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { payFromBalance } from '@/lib/payments/pay-from-balance';

export interface PayState extends FormState {
  txHash?: string;
}

/** The checkout's "Pay from balance": same verb as POST /api/charges/{id}/pay. */
export async function payFromBalanceAction(_state: PayState, form: FormData): Promise<PayState> {
  try {
    const user = await requireUserForAction();
    const { txHash } = await payFromBalance({ userId: user.id, chargeId: String(form.get('chargeId')), pin: String(form.get('pin') ?? '') });
    return { txHash };
  } catch (error) {
    return formError(error);
  }
}
