'use server';

import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { currentMemberActor } from '@/lib/merchants/member-actor';
import { addCustomToken, setTokenEnabled } from '@/lib/merchants/tokens';

const PAGE = '/dashboard/settings/tokens';

export async function setTokenEnabledAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    await setTokenEnabled({
      ...(await currentMemberActor()),
      chain: String(form.get('chain') ?? ''),
      address: String(form.get('address') ?? ''),
      enabled: form.get('enabled') === 'true',
    });
    revalidatePath(PAGE);
    return {};
  } catch (error) {
    return formError(error);
  }
}

export async function addCustomTokenAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { chain: String(form.get('chain') ?? ''), address: String(form.get('address') ?? '') };
  try {
    const token = await addCustomToken({ ...(await currentMemberActor()), ...values });
    revalidatePath(PAGE);
    return { notice: `Added ${token.symbol} (${token.decimals} decimals) on ${token.chain}.` };
  } catch (error) {
    return formError(error, values);
  }
}
