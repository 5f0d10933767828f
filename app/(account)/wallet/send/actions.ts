'use server';
/**
 * The Send form's one action, in two steps: `review` checks the send and shows the fee (no PIN yet),
 * `confirm` sends it with the PIN and opens its result page; `edit` goes back to the form.
 */
import { redirect } from 'next/navigation';
import type { FormState } from '@/lib/auth/form-state';
import { userAction } from '@/lib/api/server-actions';
import { isAppError } from '@/lib/errors';
import { previewSend, type SendPreview } from '@/lib/wallets/preview-send';
import { sendFromWallet } from '@/lib/wallets/send-from-wallet';

export interface SendFormState extends FormState {
  /** Set after a successful review: the confirmation step is shown. */
  preview?: SendPreview;
}

const field = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

export const sendAction = userAction<SendFormState>(
  {
    values: (form) => ({ token: field(form, 'token'), toAddress: field(form, 'toAddress'), amount: field(form, 'amount') }),
    // A PIN problem keeps the confirmation on screen; anything else (the balance changed…) goes back to the form.
    onError: (error, state) => (isAppError(error) && error.param === 'pin' ? { preview: state.preview } : {}),
  },
  async ({ user }, { form, values }) => {
    const intent = field(form, 'intent');
    if (intent === 'edit') return { values };
    // The form's token is "CHAIN:tokenAddress".
    const [chain = '', tokenAddress = ''] = (values.token ?? '').split(':');
    const request = { chain, tokenAddress, toAddress: values.toAddress ?? '', amount: values.amount ?? '', userId: user.id };
    if (intent !== 'confirm') return { values, preview: await previewSend(request) };
    const { sendId } = await sendFromWallet({ ...request, sendId: field(form, 'sendId'), pin: field(form, 'pin') });
    redirect(`/wallet/send/${sendId}`);
  },
);
