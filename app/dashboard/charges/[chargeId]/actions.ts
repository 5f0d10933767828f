'use server';

import { revalidatePath } from 'next/cache';
import { formField, memberAction } from '@/lib/api/server-actions';
import { refundFromDashboard } from '@/lib/refunds/refund-from-dashboard';
import { fulfilChargeNow, retryFulfilment } from '@/lib/contracts/retry-fulfilment';

export const refundChargeAction = memberAction(
  {
    values: (form) => ({
      amount: formField(form, 'amount').trim(),
      toAddress: formField(form, 'toAddress').trim(),
      reason: formField(form, 'reason').trim(),
    }),
  },
  async ({ actor, mode, stepUp }, { form, values }) => {
    const chargeId = formField(form, 'chargeId');
    const refund = await refundFromDashboard({
      ...actor,
      mode,
      chargeId,
      ...values,
      ...stepUp,
      requestId: formField(form, 'requestId'),
    });
    revalidatePath(`/dashboard/charges/${chargeId}`);
    if (refund.claimUrl)
      return {
        notice: `Refund ${refund.id} of ${refund.amount} ${refund.token.symbol} is a claim link (the sender was not the payer): send this link to the payer, who chooses where it goes. It is shown once: ${refund.claimUrl}`,
      };
    return { notice: `Refund ${refund.id} of ${refund.amount} ${refund.token.symbol} to ${refund.destination}: ${refund.status}.` };
  },
);

export const retryFulfilmentAction = memberAction({}, async ({ actor, mode }, { form }) => {
  const outcome = await retryFulfilment({ ...actor, mode, fulfilmentId: formField(form, 'fulfilmentId') });
  revalidatePath(`/dashboard/charges/${formField(form, 'chargeId')}`);
  return { notice: FULFILMENT_NOTICE[outcome] };
});

export const fulfilChargeAction = memberAction({}, async ({ actor, mode }, { form }) => {
  const chargeId = formField(form, 'chargeId');
  const { outcome } = await fulfilChargeNow({ ...actor, mode, chargeId, ruleId: formField(form, 'ruleId') });
  revalidatePath(`/dashboard/charges/${chargeId}`);
  return { notice: FULFILMENT_NOTICE[outcome] };
});

const FULFILMENT_NOTICE = {
  submitted: 'Sent: the contract call is on its way.',
  failed: 'It failed again: see the reason below.',
  postponed: 'The network is not reachable right now; it is tried again shortly.',
  busy: 'It is already being sent.',
} as const;
