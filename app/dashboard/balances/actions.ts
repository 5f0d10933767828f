'use server';

import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { currentMemberActor } from '@/lib/merchants/member-actor';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { stepUpFromForm } from '@/lib/accounts/step-up-form';

export async function withdrawAction(_state: FormState, form: FormData): Promise<FormState> {
  const [chain, tokenAddress] = String(form.get('token') ?? '').split(':');
  const values = {
    token: String(form.get('token') ?? ''),
    amount: String(form.get('amount') ?? ''),
    toAddress: String(form.get('toAddress') ?? ''),
  };
  try {
    const { txHash } = await withdrawFromMerchantWallet({
      ...(await currentMemberActor()),
      mode: await dashboardMode(),
      chain: chain ?? '',
      tokenAddress: tokenAddress ?? '',
      amount: values.amount,
      toAddress: values.toAddress,
      ...stepUpFromForm(form),
      withdrawalId: String(form.get('withdrawalId') ?? ''),
    });
    revalidatePath('/dashboard/balances');
    return { notice: `Withdrawal sent: ${txHash}` };
  } catch (error) {
    return formError(error, values);
  }
}
