'use server';

import { headers } from 'next/headers';
import { formError, type FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { clientIpFrom } from '@/lib/http/client-ip';
import { claimRefund } from '@/lib/refunds/claim-refund';
import { consumeRefundClaimLimit } from '@/lib/refunds/claim-rate-limit';

/** The payer claims a refund link: to an address they enter, or (signed in) to their Chargeport balance. */
export async function claimRefundAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { address: String(form.get('address') ?? '').trim() };
  try {
    await consumeRefundClaimLimit(clientIpFrom(await headers()));
    const token = String(form.get('token') ?? '');
    const to = form.get('to') === 'balance' ? { balanceOfUserId: (await requireUserForAction()).id } : { address: values.address };
    const claimed = await claimRefund({ token, to });
    return { notice: `Claimed: ${claimed.amount} ${claimed.symbol} are on their way to ${claimed.destination}.` };
  } catch (error) {
    return formError(error, values);
  }
}
