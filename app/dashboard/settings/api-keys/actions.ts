'use server';

import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { createKeyForMember, revokeKeyForMember, rollKeyForMember, type RollOverlapHours } from '@/lib/api-keys/manage-api-keys';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { currentMemberActor } from '@/lib/merchants/member-actor';
import { stepUpFromForm } from '@/lib/accounts/step-up-form';
import { setPublishableKeyOrigins } from '@/lib/api-keys/publishable-origins';

export interface KeyFormState extends FormState {
  /** The new key's plaintext: shown once, never stored. */
  created?: { name: string; plaintext: string };
}

const actor = currentMemberActor;

export async function createKeyAction(_state: KeyFormState, form: FormData): Promise<KeyFormState> {
  const name = String(form.get('name') ?? '');
  const kind = form.get('kind') === 'publishable' ? 'publishable' : 'secret';
  try {
    const created = await createKeyForMember({ ...(await actor()), mode: await dashboardMode(), kind, name, stepUp: stepUpFromForm(form) });
    revalidatePath('/dashboard/settings/api-keys');
    return { created: { name, plaintext: created.plaintext } };
  } catch (error) {
    return formError(error, { name, kind });
  }
}

export async function rollKeyAction(_state: KeyFormState, form: FormData): Promise<KeyFormState> {
  try {
    const created = await rollKeyForMember({
      ...(await actor()),
      keyId: String(form.get('keyId') ?? ''),
      overlapHours: Number(form.get('overlapHours')) as RollOverlapHours,
      stepUp: stepUpFromForm(form),
    });
    revalidatePath('/dashboard/settings/api-keys');
    return { created: { name: 'Rolled key', plaintext: created.plaintext } };
  } catch (error) {
    return formError(error);
  }
}

export async function revokeKeyAction(_state: KeyFormState, form: FormData): Promise<KeyFormState> {
  try {
    await revokeKeyForMember({
      ...(await actor()),
      keyId: String(form.get('keyId') ?? ''),
      confirmation: typeof form.get('confirm') === 'string' ? String(form.get('confirm')) : undefined,
    });
    revalidatePath('/dashboard/settings/api-keys');
    return { notice: 'Key revoked.' };
  } catch (error) {
    return formError(error);
  }
}

export async function setOriginsAction(_state: KeyFormState, form: FormData): Promise<KeyFormState> {
  try {
    await setPublishableKeyOrigins({
      ...(await actor()),
      keyId: String(form.get('keyId') ?? ''),
      allowedOrigins: String(form.get('allowedOrigins') ?? ''),
      allowedRedirectOrigins: String(form.get('allowedRedirectOrigins') ?? ''),
    });
    revalidatePath('/dashboard/settings/api-keys');
    return { notice: 'Origins saved.' };
  } catch (error) {
    return formError(error);
  }
}
