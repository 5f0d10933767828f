'use server';

import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { currentMemberActor } from '@/lib/merchants/member-actor';
import { registerOAuthApp, revokeOAuthApp, revokeOAuthAppSecret, rollOAuthAppSecret } from '@/lib/oauth/manage-apps';

export interface OAuthAppFormState extends FormState {
  /** The new app's credentials; the secret is shown once, never stored in clear. */
  created?: { name: string; clientId: string; clientSecret?: string };
}

const PATH = '/dashboard/settings/oauth';

export async function registerOAuthAppAction(_state: OAuthAppFormState, form: FormData): Promise<OAuthAppFormState> {
  const values = {
    name: String(form.get('name') ?? ''),
    logoUrl: String(form.get('logoUrl') ?? ''),
    redirectUris: String(form.get('redirectUris') ?? ''),
    clientType: form.get('clientType') === 'confidential' ? 'confidential' : 'public',
  } as const;
  try {
    const created = await registerOAuthApp({
      ...(await currentMemberActor()),
      app: { ...values, redirectUris: values.redirectUris.split(/\s+/).filter(Boolean) },
    });
    revalidatePath(PATH);
    return { created: { name: values.name, ...created } };
  } catch (error) {
    return formError(error, values);
  }
}

export async function rollOAuthAppSecretAction(_state: OAuthAppFormState, form: FormData): Promise<OAuthAppFormState> {
  try {
    const rolled = await rollOAuthAppSecret({ ...(await currentMemberActor()), clientId: String(form.get('clientId') ?? '') });
    revalidatePath(PATH);
    return { created: { name: 'New secret', ...rolled } };
  } catch (error) {
    return formError(error);
  }
}

export async function revokeOAuthAppSecretAction(_state: OAuthAppFormState, form: FormData): Promise<OAuthAppFormState> {
  try {
    await revokeOAuthAppSecret({ ...(await currentMemberActor()), clientId: String(form.get('clientId') ?? '') });
    revalidatePath(PATH);
    return { notice: 'Secret revoked: the app cannot sign in until you roll a new one.' };
  } catch (error) {
    return formError(error);
  }
}

export async function revokeOAuthAppAction(_state: OAuthAppFormState, form: FormData): Promise<OAuthAppFormState> {
  try {
    await revokeOAuthApp({ ...(await currentMemberActor()), clientId: String(form.get('clientId') ?? '') });
    revalidatePath(PATH);
    return { notice: 'App revoked: its users are signed out of it and its tokens no longer work.' };
  } catch (error) {
    return formError(error);
  }
}
