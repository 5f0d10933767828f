'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/lib/auth/form-state';
import { formField, memberAction } from '@/lib/api/server-actions';
import { createKeyForMember } from '@/lib/api-keys/create-key-for-member';
import { revokeKeyForMember } from '@/lib/api-keys/revoke-key-for-member';
import { rollKeyForMember, type RollOverlapHours } from '@/lib/api-keys/roll-key-for-member';
import { setPublishableKeyOrigins } from '@/lib/api-keys/publishable-origins';

export interface KeyFormState extends FormState {
  /** The new key's plaintext: shown once, never stored. */
  created?: { name: string; plaintext: string };
}

const PAGE = '/dashboard/settings/api-keys';
const kindOf = (form: FormData) => (form.get('kind') === 'publishable' ? 'publishable' : 'secret');

export const createKeyAction = memberAction<KeyFormState>(
  { values: (form) => ({ name: formField(form, 'name'), kind: kindOf(form) }) },
  async ({ actor, mode, stepUp }, { form }) => {
    const name = formField(form, 'name');
    const created = await createKeyForMember({ ...actor, mode, kind: kindOf(form), name, stepUp });
    revalidatePath(PAGE);
    return { created: { name, plaintext: created.plaintext } };
  },
);

export const rollKeyAction = memberAction<KeyFormState>({}, async ({ actor, stepUp }, { form }) => {
  const created = await rollKeyForMember({
    ...actor,
    keyId: formField(form, 'keyId'),
    overlapHours: Number(form.get('overlapHours')) as RollOverlapHours,
    stepUp,
  });
  revalidatePath(PAGE);
  return { created: { name: 'Rolled key', plaintext: created.plaintext } };
});

export const revokeKeyAction = memberAction<KeyFormState>({}, async ({ actor }, { form }) => {
  await revokeKeyForMember({
    ...actor,
    keyId: formField(form, 'keyId'),
    confirmation: typeof form.get('confirm') === 'string' ? String(form.get('confirm')) : undefined,
  });
  revalidatePath(PAGE);
  return { notice: 'Key revoked.' };
});

export const setOriginsAction = memberAction<KeyFormState>({}, async ({ actor }, { form }) => {
  await setPublishableKeyOrigins({
    ...actor,
    keyId: formField(form, 'keyId'),
    allowedOrigins: formField(form, 'allowedOrigins'),
    allowedRedirectOrigins: formField(form, 'allowedRedirectOrigins'),
  });
  revalidatePath(PAGE);
  return { notice: 'Origins saved.' };
});
