'use server';

import { redirect } from 'next/navigation';
import { formField, userAction } from '@/lib/api/server-actions';
import { acceptInvitation } from '@/lib/merchants/accept-invitation';

export const acceptInvitationAction = userAction({}, async ({ user, ip }, { form }) => {
  await acceptInvitation({ userId: user.id, token: formField(form, 'token'), ip });
  redirect('/dashboard');
});
