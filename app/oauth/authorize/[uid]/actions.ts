'use server';

import { cookies } from 'next/headers';
import type { FormState } from '@/lib/auth/form-state';
import { formField, publicAction } from '@/lib/api/server-actions';
import { approveConsent } from '@/lib/oauth/approve-consent';
import { denyConsent } from '@/lib/oauth/deny-consent';

export interface ConsentState extends FormState {
  /** Where the browser goes next (the provider, then the app): a full navigation, not a client one. */
  redirectTo?: string;
}

/** Denying needs no session (the provider's interaction cookie is enough); approving needs the user. */
export const consentAction = publicAction<ConsentState>({}, async ({ requireUser }, { form }) => {
  const uid = formField(form, 'uid');
  const cookieHeader = (await cookies()).toString();
  if (form.get('decision') === 'deny') return { redirectTo: await denyConsent({ uid, cookieHeader }) };
  const user = await requireUser();
  return { redirectTo: await approveConsent({ uid, cookieHeader, userId: user.id }) };
});
