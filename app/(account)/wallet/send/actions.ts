'use server';
/**
 * The Send form's one action, in two steps: `review` checks the send and shows the fee (no PIN yet),
 * `confirm` sends it with the PIN and opens its result page; `edit` goes back to the form.
 */
import { redirect } from 'next/navigation';
import { formError, type FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { isAppError } from '@/lib/errors';
import { previewSend, sendFromWallet, type SendPreview } from '@/lib/wallets/send';

export interface SendFormState extends FormState {
  /** Set after a successful review: the confirmation step is shown. */
  preview?: SendPreview;
}

const field = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

export async function sendAction(state: SendFormState, form: FormData): Promise<SendFormState> {
  const values = { token: field(form, 'token'), toAddress: field(form, 'toAddress'), amount: field(form, 'amount') };
  const intent = field(form, 'intent');
  if (intent === 'edit') return { values };
  // The form's token is "CHAIN:tokenAddress".
  const [chain = '', tokenAddress = ''] = values.token.split(':');
  const request = { chain, tokenAddress, toAddress: values.toAddress, amount: values.amount };
  let sendId: string;
  try {
    const user = await requireUserForAction();
    if (intent !== 'confirm') return { values, preview: await previewSend({ ...request, userId: user.id }) };
    sendId = (await sendFromWallet({ ...request, userId: user.id, sendId: field(form, 'sendId'), pin: field(form, 'pin') })).sendId;
  } catch (error) {
    const failed = formError(error, values);
    // A PIN problem keeps the confirmation on screen; anything else (the balance changed…) goes back to the form.
    const isPinError = isAppError(error) && error.param === 'pin';
    return isPinError ? { ...failed, preview: state.preview } : failed;
  }
  redirect(`/wallet/send/${sendId}`);
}
