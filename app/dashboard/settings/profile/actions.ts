'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/lib/auth/form-state';
import { formField, memberAction } from '@/lib/api/server-actions';
import { rollOnrampLinkKey } from '@/lib/onramp/onramp-link-key';
import { updateMerchantProfile } from '@/lib/merchants/profile';

export const updateProfileAction = memberAction(
  {
    values: (form) => ({
      name: formField(form, 'name'),
      logoUrl: formField(form, 'logoUrl'),
      supportEmail: formField(form, 'supportEmail'),
    }),
  },
  async ({ actor }, { values }) => {
    await updateMerchantProfile({ ...actor, ...values });
    revalidatePath('/dashboard', 'layout');
    return { notice: 'Profile saved.', values };
  },
);

export interface OnrampLinkKeyState extends FormState {
  /** Shown once, right after it was created or rolled. */
  key?: string;
}

/** Creates or rolls the on-ramp link key (lib/onramp/onramp-link-key.ts); the key is shown once. */
export const rollOnrampLinkKeyAction = memberAction<OnrampLinkKeyState>({}, async ({ actor: { userId, merchantId } }) => {
  const { key } = await rollOnrampLinkKey({ userId, merchantId });
  revalidatePath('/dashboard/settings/profile');
  return { key, notice: 'New on-ramp link key: links signed with the previous one are no longer verified.' };
});
