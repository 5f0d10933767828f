'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/lib/auth/form-state';
import { formField, memberAction } from '@/lib/api/server-actions';
import { registerOAuthApp } from '@/lib/oauth/register-oauth-app';
import { revokeOAuthApp } from '@/lib/oauth/revoke-oauth-app';
import { revokeOAuthAppSecret } from '@/lib/oauth/revoke-oauth-app-secret';
import { rollOAuthAppSecret } from '@/lib/oauth/roll-oauth-app-secret';

export interface OAuthAppFormState extends FormState {
  /** The new app's credentials; the secret is shown once, never stored in clear. */
  created?: { name: string; clientId: string; clientSecret?: string };
}

const PATH = '/dashboard/settings/oauth';

function appFields(form: FormData) {
  return {
    name: formField(form, 'name'),
    logoUrl: formField(form, 'logoUrl'),
    redirectUris: formField(form, 'redirectUris'),
    clientType: form.get('clientType') === 'confidential' ? 'confidential' : 'public',
  } as const;
}

export const registerOAuthAppAction = memberAction<OAuthAppFormState>({ values: appFields }, async ({ actor }, { form }) => {
  const values = appFields(form);
  const created = await registerOAuthApp({ ...actor, app: { ...values, redirectUris: values.redirectUris.split(/\s+/).filter(Boolean) } });
  revalidatePath(PATH);
  return { created: { name: values.name, ...created } };
});

export const rollOAuthAppSecretAction = memberAction<OAuthAppFormState>({}, async ({ actor }, { form }) => {
  const rolled = await rollOAuthAppSecret({ ...actor, clientId: formField(form, 'clientId') });
  revalidatePath(PATH);
  return { created: { name: 'New secret', ...rolled } };
});

export const revokeOAuthAppSecretAction = memberAction<OAuthAppFormState>({}, async ({ actor }, { form }) => {
  await revokeOAuthAppSecret({ ...actor, clientId: formField(form, 'clientId') });
  revalidatePath(PATH);
  return { notice: 'Secret revoked: the app cannot sign in until you roll a new one.' };
});

export const revokeOAuthAppAction = memberAction<OAuthAppFormState>({}, async ({ actor }, { form }) => {
  await revokeOAuthApp({ ...actor, clientId: formField(form, 'clientId') });
  revalidatePath(PATH);
  return { notice: 'App revoked: its users are signed out of it and its tokens no longer work.' };
});
