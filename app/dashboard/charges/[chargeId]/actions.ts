'use server';

import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { currentMemberActor } from '@/lib/merchants/member-actor';
import { refundFromDashboard } from '@/lib/refunds/refund-from-dashboard';

export async function refundChargeAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = {
    amount: String(form.get('amount') ?? '').trim(),
    toAddress: String(form.get('toAddress') ?? '').trim(),
    reason: String(form.get('reason') ?? '').trim(),
  };
  const chargeId = String(form.get('chargeId') ?? '');
  try {
    const refund = await refundFromDashboard({
      ...(await currentMemberActor()),
      mode: await dashboardMode(),
      chargeId,
      ...values,
      pin: String(form.get('pin') ?? ''),
      requestId: String(form.get('requestId') ?? ''),
    });
    revalidatePath(`/dashboard/charges/${chargeId}`);
    return { notice: `Refund ${refund.id} of ${refund.amount} ${refund.token.symbol} to ${refund.destination}: ${refund.status}.` };
  } catch (error) {
    return formError(error, values);
  }
}
