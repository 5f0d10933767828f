'use server';

import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { currentMemberActor } from '@/lib/merchants/member-actor';
import { updateMerchantProfile } from '@/lib/merchants/profile';

export async function updateProfileAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = {
    name: String(form.get('name') ?? ''),
    logoUrl: String(form.get('logoUrl') ?? ''),
    supportEmail: String(form.get('supportEmail') ?? ''),
  };
  try {
    await updateMerchantProfile({ ...(await currentMemberActor()), ...values });
    revalidatePath('/dashboard', 'layout');
    return { notice: 'Profile saved.', values };
  } catch (error) {
    return formError(error, values);
  }
}
