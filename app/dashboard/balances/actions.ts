'use server';

import { revalidatePath } from 'next/cache';
import { formField, memberAction } from '@/lib/api/server-actions';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';

export const withdrawAction = memberAction(
  { values: (form) => ({ token: formField(form, 'token'), amount: formField(form, 'amount'), toAddress: formField(form, 'toAddress') }) },
  async ({ actor, mode, stepUp }, { form, values }) => {
    const [chain, tokenAddress] = formField(form, 'token').split(':');
    const { txHash } = await withdrawFromMerchantWallet({
      ...actor,
      mode,
      chain: chain ?? '',
      tokenAddress: tokenAddress ?? '',
      amount: values.amount,
      toAddress: values.toAddress,
      ...stepUp,
      withdrawalId: formField(form, 'withdrawalId'),
    });
    revalidatePath('/dashboard/balances');
    return { notice: `Withdrawal sent: ${txHash}` };
  },
);
