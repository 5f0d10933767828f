'use server';

import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { currentMemberActor } from '@/lib/merchants/member-actor';
import { refundFromDashboard } from '@/lib/refunds/refund-from-dashboard';
import { stepUpFromForm } from '@/lib/accounts/step-up-form';
import { fulfilChargeNow, retryFulfilment } from '@/lib/contracts/retry-fulfilment';

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
      ...stepUpFromForm(form),
      requestId: String(form.get('requestId') ?? ''),
    });
    revalidatePath(`/dashboard/charges/${chargeId}`);
    if (refund.claimUrl)
      return {
        notice: `Refund ${refund.id} of ${refund.amount} ${refund.token.symbol} is a claim link (the sender was not the payer): send this link to the payer, who chooses where it goes. It is shown once: ${refund.claimUrl}`,
      };
    return { notice: `Refund ${refund.id} of ${refund.amount} ${refund.token.symbol} to ${refund.destination}: ${refund.status}.` };
  } catch (error) {
    return formError(error, values);
  }
}

export async function retryFulfilmentAction(_state: FormState, form: FormData): Promise<FormState> {
  const chargeId = String(form.get('chargeId') ?? '');
  try {
    const outcome = await retryFulfilment({
      ...(await currentMemberActor()),
      mode: await dashboardMode(),
      fulfilmentId: String(form.get('fulfilmentId') ?? ''),
    });
    revalidatePath(`/dashboard/charges/${chargeId}`);
    return { notice: FULFILMENT_NOTICE[outcome] };
  } catch (error) {
    return formError(error);
  }
}

export async function fulfilChargeAction(_state: FormState, form: FormData): Promise<FormState> {
  const chargeId = String(form.get('chargeId') ?? '');
  try {
    const { outcome } = await fulfilChargeNow({
      ...(await currentMemberActor()),
      mode: await dashboardMode(),
      chargeId,
      ruleId: String(form.get('ruleId') ?? ''),
    });
    revalidatePath(`/dashboard/charges/${chargeId}`);
    return { notice: FULFILMENT_NOTICE[outcome] };
  } catch (error) {
    return formError(error);
  }
}

const FULFILMENT_NOTICE = {
  submitted: 'Sent: the contract call is on its way.',
  failed: 'It failed again: see the reason below.',
  postponed: 'The network is not reachable right now; it is tried again shortly.',
  busy: 'It is already being sent.',
} as const;
