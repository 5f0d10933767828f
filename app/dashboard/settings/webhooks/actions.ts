'use server';

import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import { parseOrThrow } from '@/lib/api/parse';
import { formError, type FormState } from '@/lib/auth/form-state';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { currentMemberActor } from '@/lib/merchants/member-actor';
import { stepUpFromForm } from '@/lib/accounts/step-up-form';
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

/** The member, the dashboard's mode, and the PIN or passkey the form carries (live endpoint changes need one). */
async function actor(form?: FormData) {
  return { ...(await currentMemberActor()), mode: await dashboardMode(), ...(form ? { stepUp: stepUpFromForm(form) } : {}) };
}

/** The form's fields as the endpoint schemas take them ("*" wins over single types). */
function endpointFields(form: FormData) {
  const eventTypes = form.getAll('eventTypes').map(String);
  return {
    url: String(form.get('url') ?? ''),
    description: String(form.get('description') ?? ''),
    eventTypes: eventTypes.includes('*') ? ['*'] : eventTypes,
  };
}

export async function createEndpointAction(_state: FormState, form: FormData): Promise<FormState> {
  const fields = endpointFields(form);
  let endpointId: string;
  try {
    const input = parseOrThrow(createWebhookEndpointBodySchema, fields);
    endpointId = (await createWebhookEndpointForMember({ ...(await actor(form)), input })).id;
  } catch (error) {
    return formError(error, { url: fields.url, description: fields.description, eventTypes: fields.eventTypes.join(',') });
  }
  revalidatePath(LIST);
  redirect(pageOf(endpointId));
}

export async function updateEndpointAction(_state: FormState, form: FormData): Promise<FormState> {
  const endpointId = String(form.get('endpointId') ?? '');
  try {
    const input = parseOrThrow(updateWebhookEndpointBodySchema, { ...endpointFields(form), enabled: form.get('enabled') === 'on' });
    await updateWebhookEndpointForMember({ ...(await actor(form)), endpointId, input });
    revalidatePath(pageOf(endpointId));
    return { notice: 'Endpoint saved.' };
  } catch (error) {
    return formError(error);
  }
}

export async function deleteEndpointAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    await deleteWebhookEndpointForMember({ ...(await actor(form)), endpointId: String(form.get('endpointId') ?? '') });
  } catch (error) {
    return formError(error);
  }
  revalidatePath(LIST);
  redirect(LIST);
}

export async function revealSecretAction(_state: SecretFormState, form: FormData): Promise<SecretFormState> {
  try {
    const { secret, previous } = await revealWebhookSecretForMember({
      ...(await actor()),
      endpointId: String(form.get('endpointId') ?? ''),
    });
    return { secret, previous: previous ? { secret: previous.secret, expiresAt: previous.expiresAt.toISOString() } : null };
  } catch (error) {
    return formError(error);
  }
}

export async function rotateSecretAction(_state: SecretFormState, form: FormData): Promise<SecretFormState> {
  const endpointId = String(form.get('endpointId') ?? '');
  try {
    const { secret, previousSecretExpiresAt } = await rotateWebhookSecretForMember({
      ...(await actor(form)),
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
  } catch (error) {
    return formError(error);
  }
}

export async function sendTestEventAction(_state: FormState, form: FormData): Promise<FormState> {
  const endpointId = String(form.get('endpointId') ?? '');
  try {
    const { eventId } = await sendTestWebhookEventForMember({ ...(await actor()), endpointId });
    revalidatePath(pageOf(endpointId));
    return { notice: `Test event ${eventId} queued: it shows in the log below once sent (reload).` };
  } catch (error) {
    return formError(error);
  }
}

export async function resendEventAction(_state: FormState, form: FormData): Promise<FormState> {
  const endpointId = String(form.get('endpointId') ?? '');
  try {
    const { attempt } = await resendWebhookEventForMember({ ...(await actor()), endpointId, eventId: String(form.get('eventId') ?? '') });
    revalidatePath(pageOf(endpointId));
    return { notice: `Queued as attempt ${attempt}.` };
  } catch (error) {
    return formError(error);
  }
}
