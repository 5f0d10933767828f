'use server';

import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { currentMemberActor } from '@/lib/merchants/member-actor';
import { rollOnrampLinkKey } from '@/lib/onramp/onramp-link-key';
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

export interface OnrampLinkKeyState extends FormState {
  /** Shown once, right after it was created or rolled. */
  key?: string;
}

/** Creates or rolls the on-ramp link key (lib/onramp/onramp-link-key.ts); the key is shown once. */
export async function rollOnrampLinkKeyAction(_state: OnrampLinkKeyState, _form: FormData): Promise<OnrampLinkKeyState> {
  try {
    const { userId, merchantId } = await currentMemberActor();
    const { key } = await rollOnrampLinkKey({ userId, merchantId });
    revalidatePath('/dashboard/settings/profile');
    return { key, notice: 'New on-ramp link key: links signed with the previous one are no longer verified.' };
  } catch (error) {
    return formError(error);
  }
}
