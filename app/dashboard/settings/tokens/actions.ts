'use server';

import { revalidatePath } from 'next/cache';
import { formField, memberAction } from '@/lib/api/server-actions';
import { addCustomToken, setTokenEnabled } from '@/lib/merchants/tokens';

const PAGE = '/dashboard/settings/tokens';

export const setTokenEnabledAction = memberAction({}, async ({ actor }, { form }) => {
  await setTokenEnabled({
    ...actor,
    chain: formField(form, 'chain'),
    address: formField(form, 'address'),
    enabled: form.get('enabled') === 'true',
  });
  revalidatePath(PAGE);
  return {};
});

export const addCustomTokenAction = memberAction(
  { values: (form) => ({ chain: formField(form, 'chain'), address: formField(form, 'address') }) },
  async ({ actor }, { values }) => {
    const token = await addCustomToken({ ...actor, ...values });
    revalidatePath(PAGE);
    return { notice: `Added ${token.symbol} (${token.decimals} decimals) on ${token.chain}.` };
  },
);
