'use server';

import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { revokeAllConnectedApps, revokeConnectedApp } from '@/lib/oauth/grants';

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

/** "Connected apps" → Revoke all: every app loses its grant and tokens for this account. */
export async function revokeAllConnectedAppsAction(_state: FormState, _form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    const count = await revokeAllConnectedApps({ userId: user.id });
    revalidatePath('/account/profile');
    return {
      notice: count
        ? `Access removed for ${count === 1 ? '1 app' : `${count} apps`}: they are signed out of your account.`
        : 'No app had access.',
    };
  } catch (error) {
    return formError(error);
  }
}
