'use server';

import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { formError, type FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { acceptInvitation } from '@/lib/merchants/members';
import { clientIpFrom } from '@/lib/http/client-ip';

export async function acceptInvitationAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    const list = await headers();
    await acceptInvitation({ userId: user.id, token: String(form.get('token') ?? ''), ip: clientIpFrom(list) });
  } catch (error) {
    return formError(error);
  }
  redirect('/dashboard');
}
