'use server';

import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import type { FormState } from '@/lib/auth/form-state';
import { formField, memberAction } from '@/lib/api/server-actions';
import {
  createWebhookEndpointForMember,
  deleteWebhookEndpointForMember,
  resendWebhookEventForMember,
  revealWebhookSecretForMember,
  rotateWebhookSecretForMember,
  sendTestWebhookEventForMember,
  updateWebhookEndpointForMember,
  type SecretOverlapHours,
} from '@/lib/merchants/webhooks-for-member';
import { createWebhookEndpointBodySchema, updateWebhookEndpointBodySchema } from '@/lib/webhooks/schemas';

const LIST = '/dashboard/settings/webhooks';
const pageOf = (endpointId: string) => `${LIST}/${endpointId}`;

export interface SecretFormState extends FormState {
  /** A revealed or new signing secret: in this response only, never in the page's HTML. */
  secret?: string;
  previous?: { secret: string; expiresAt: string } | null;
  rotated?: boolean;
}

/** The form's fields as the endpoint schemas take them ("*" wins over single types). */
function endpointFields(form: FormData) {
  const eventTypes = form.getAll('eventTypes').map(String);
  return {
    url: formField(form, 'url'),
    description: formField(form, 'description'),
    eventTypes: eventTypes.includes('*') ? ['*'] : eventTypes,
  };
}

export const createEndpointAction = memberAction(
  {
    schema: createWebhookEndpointBodySchema,
    fields: endpointFields,
    values: (form) => {
      const { url, description, eventTypes } = endpointFields(form);
      return { url, description, eventTypes: eventTypes.join(',') };
    },
  },
  async ({ actor, mode, stepUp }, { input }) => {
    const endpointId = (await createWebhookEndpointForMember({ ...actor, mode, stepUp, input })).id;
    revalidatePath(LIST);
    redirect(pageOf(endpointId));
  },
);

export const updateEndpointAction = memberAction(
  { schema: updateWebhookEndpointBodySchema, fields: (form) => ({ ...endpointFields(form), enabled: form.get('enabled') === 'on' }) },
  async ({ actor, mode, stepUp }, { form, input }) => {
    const endpointId = formField(form, 'endpointId');
    await updateWebhookEndpointForMember({ ...actor, mode, stepUp, endpointId, input });
    revalidatePath(pageOf(endpointId));
    return { notice: 'Endpoint saved.' };
  },
);

export const deleteEndpointAction = memberAction({}, async ({ actor, mode, stepUp }, { form }) => {
  await deleteWebhookEndpointForMember({ ...actor, mode, stepUp, endpointId: formField(form, 'endpointId') });
  revalidatePath(LIST);
  redirect(LIST);
});

export const revealSecretAction = memberAction<SecretFormState>({}, async ({ actor, mode }, { form }) => {
  const { secret, previous } = await revealWebhookSecretForMember({ ...actor, mode, endpointId: formField(form, 'endpointId') });
  return { secret, previous: previous ? { secret: previous.secret, expiresAt: previous.expiresAt.toISOString() } : null };
});

export const rotateSecretAction = memberAction<SecretFormState>({}, async ({ actor, mode, stepUp }, { form }) => {
  const endpointId = formField(form, 'endpointId');
  const { secret, previousSecretExpiresAt } = await rotateWebhookSecretForMember({
    ...actor,
    mode,
    stepUp,
    endpointId,
    overlapHours: Number(form.get('overlapHours')) as SecretOverlapHours,
  });
  revalidatePath(pageOf(endpointId));
  return {
    secret,
    rotated: true,
    notice: previousSecretExpiresAt
      ? `New secret. The old one keeps signing until ${previousSecretExpiresAt}.`
      : 'New secret. The old one stopped signing.',
  };
});

export const sendTestEventAction = memberAction({}, async ({ actor, mode }, { form }) => {
  const endpointId = formField(form, 'endpointId');
  const { eventId } = await sendTestWebhookEventForMember({ ...actor, mode, endpointId });
  revalidatePath(pageOf(endpointId));
  return { notice: `Test event ${eventId} queued: it shows in the log below once sent (reload).` };
});

export const resendEventAction = memberAction({}, async ({ actor, mode }, { form }) => {
  const endpointId = formField(form, 'endpointId');
  const { attempt } = await resendWebhookEventForMember({ ...actor, mode, endpointId, eventId: formField(form, 'eventId') });
  revalidatePath(pageOf(endpointId));
  return { notice: `Queued as attempt ${attempt}.` };
});
