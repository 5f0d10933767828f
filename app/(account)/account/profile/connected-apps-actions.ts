'use server';

import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { revokeConnectedApp } from '@/lib/oauth/grants';

/** "Connected apps" → Remove access: the app's grant and tokens for this account are deleted. */
export async function revokeConnectedAppAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    await revokeConnectedApp({ userId: user.id, clientId: String(form.get('clientId') ?? '') });
    revalidatePath('/account/profile');
    return { notice: 'Access removed: the app is signed out of your account.' };
  } catch (error) {
    return formError(error);
  }
}
