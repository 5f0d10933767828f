'use server';

import { cookies } from 'next/headers';
import { formError, type FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { approveConsent } from '@/lib/oauth/approve-consent';
import { denyConsent } from '@/lib/oauth/deny-consent';

export interface ConsentState extends FormState {
  /** Where the browser goes next (the provider, then the app): a full navigation, not a client one. */
  redirectTo?: string;
}

async function cookieHeader(): Promise<string> {
  return (await cookies()).toString();
}

export async function consentAction(_state: ConsentState, form: FormData): Promise<ConsentState> {
  const uid = String(form.get('uid') ?? '');
  try {
    if (form.get('decision') === 'deny') return { redirectTo: await denyConsent({ uid, cookieHeader: await cookieHeader() }) };
    const user = await requireUserForAction();
    return { redirectTo: await approveConsent({ uid, cookieHeader: await cookieHeader(), userId: user.id }) };
  } catch (error) {
    return formError(error);
  }
}
