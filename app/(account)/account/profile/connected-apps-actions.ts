'use server';

import { revalidatePath } from 'next/cache';
import { formField, userAction } from '@/lib/api/server-actions';
import { revokeAllConnectedApps, revokeConnectedApp } from '@/lib/oauth/grants';

/** "Connected apps" → Remove access: the app's grant and tokens for this account are deleted. */
export const revokeConnectedAppAction = userAction({}, async ({ user }, { form }) => {
  await revokeConnectedApp({ userId: user.id, clientId: formField(form, 'clientId') });
  revalidatePath('/account/profile');
  return { notice: 'Access removed: the app is signed out of your account.' };
});

/** "Connected apps" → Revoke all: every app loses its grant and tokens for this account. */
export const revokeAllConnectedAppsAction = userAction({}, async ({ user }) => {
  const count = await revokeAllConnectedApps({ userId: user.id });
  revalidatePath('/account/profile');
  return {
    notice: count
      ? `Access removed for ${count === 1 ? '1 app' : `${count} apps`}: they are signed out of your account.`
      : 'No app had access.',
  };
});
