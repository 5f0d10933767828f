'use server';

import { formField, publicAction } from '@/lib/api/server-actions';
import { claimRefund } from '@/lib/refunds/claim-refund';
import { consumeRefundClaimLimit } from '@/lib/refunds/consume-refund-claim-limit';

/** The payer claims a refund link: to an address they enter, or (signed in) to their Chargeport balance. */
export const claimRefundAction = publicAction(
  { values: (form) => ({ address: formField(form, 'address').trim() }) },
  async ({ ip, requireUser }, { form, values }) => {
    await consumeRefundClaimLimit(ip);
    const to = form.get('to') === 'balance' ? { balanceOfUserId: (await requireUser()).id } : { address: values.address };
    const claimed = await claimRefund({ token: formField(form, 'token'), to });
    return { notice: `Claimed: ${claimed.amount} ${claimed.symbol} are on their way to ${claimed.destination}.` };
  },
);
