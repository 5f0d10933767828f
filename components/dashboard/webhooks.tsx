'use client';

import { useActionState, useState } from 'react';
import {
  createEndpointAction,
  deleteEndpointAction,
  resendEventAction,
  revealSecretAction,
  rotateSecretAction,
  sendTestEventAction,
  updateEndpointAction,
  type SecretFormState,
} from '@/app/dashboard/settings/webhooks/actions';
import { Button } from '@/components/ui/button';
import { ConfirmAction } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { StepUpFields } from '@/components/account/step-up-fields';
import type { FormState } from '@/lib/auth/form-state';
import { ALL_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from '@/lib/webhooks/event-types';
import type { WebhookEndpointResource } from '@/lib/webhooks/schemas';

function Outcome({ state }: { state: FormState }) {
  if (state.error) {
    return (
      <p role="alert" className="text-sm text-rose-700">
        {state.error.message}
      </p>
    );
  }
  return state.notice ? (
    <p role="status" className="text-sm text-emerald-700">
      {state.notice}
    </p>
  ) : null;
}

/**
 * The event-type checkboxes: "every type" (also types added later) is on by default and covers the
 * others; turning it off lets the merchant pick single types.
 */
function EventTypeChoices({ selected, error }: { selected: readonly string[]; error?: string }) {
  const [all, setAll] = useState(selected.length === 0 || selected.includes(ALL_EVENT_TYPES));
  return (
    <fieldset className="flex flex-col gap-2 text-sm">
      <legend className="mb-1 font-medium text-slate-800">Events to send</legend>
      <label className="flex items-center gap-2">
        <input type="checkbox" name="eventTypes" value={ALL_EVENT_TYPES} checked={all} onChange={(event) => setAll(event.target.checked)} />
        Every event type (also types added later)
      </label>
      <div className="grid gap-1 pl-6 sm:grid-cols-2">
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label key={type} className={`flex items-center gap-2 font-mono text-xs ${all ? 'text-slate-400' : ''}`}>
            <input type="checkbox" name="eventTypes" value={type} defaultChecked={all || selected.includes(type)} disabled={all} />
            {type}
          </label>
        ))}
      </div>
      {error && (
        <p role="alert" className="text-sm text-rose-700">
          {error}
        </p>
      )}
    </fieldset>
  );
}

const fieldError = (state: FormState, param: string) => (state.error?.param === param ? state.error.message : undefined);

/** `live`: live-mode endpoint changes need a step-up (PIN or passkey). */
export function CreateEndpointForm({ live }: { live: boolean }) {
  const [state, action, pending] = useActionState<FormState, FormData>(createEndpointAction, {});
  const other = state.error && !['url', 'description', 'eventTypes', 'pin'].includes(state.error.param ?? '');
  return (
    <section
      aria-labelledby="create-endpoint-heading"
      className="flex max-w-xl flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200"
    >
      <h2 id="create-endpoint-heading" className="font-semibold">
        Add an endpoint
      </h2>
      <form action={action} className="flex flex-col gap-4">
        <Field
          label="Endpoint URL"
          name="url"
          type="url"
          required
          placeholder="https://game.example/webhooks/chargeport"
          defaultValue={state.values?.url}
          error={fieldError(state, 'url')}
        />
        <Field
          label="Description (optional)"
          name="description"
          maxLength={500}
          defaultValue={state.values?.description}
          error={fieldError(state, 'description')}
        />
        <EventTypeChoices
          selected={state.values?.eventTypes ? state.values.eventTypes.split(',').filter(Boolean) : [ALL_EVENT_TYPES]}
          error={fieldError(state, 'eventTypes')}
        />
        {live && <StepUpFields error={fieldError(state, 'pin')} />}
        <Button type="submit" disabled={pending}>
          {pending ? 'Adding…' : 'Add endpoint'}
        </Button>
        {other && <Outcome state={state} />}
      </form>
    </section>
  );
}

export function EditEndpointForm({ endpoint, live }: { endpoint: WebhookEndpointResource; live: boolean }) {
  const [state, action, pending] = useActionState<FormState, FormData>(updateEndpointAction, {});
  return (
    <form action={action} className="flex flex-col gap-4" aria-label="Edit endpoint">
      <input type="hidden" name="endpointId" value={endpoint.id} />
      <Field label="Endpoint URL" name="url" type="url" required defaultValue={endpoint.url} error={fieldError(state, 'url')} />
      <Field
        label="Description (optional)"
        name="description"
        maxLength={500}
        defaultValue={endpoint.description ?? ''}
        error={fieldError(state, 'description')}
      />
      <EventTypeChoices selected={endpoint.eventTypes} error={fieldError(state, 'eventTypes')} />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="enabled" defaultChecked={endpoint.enabled} /> Enabled (unchecked: no events are sent)
      </label>
      {live && <StepUpFields error={fieldError(state, 'pin')} />}
      <div className="flex items-center gap-3">
        <Button type="submit" disabled={pending}>
          {pending ? 'Saving…' : 'Save'}
        </Button>
        {!['url', 'description', 'eventTypes', 'pin'].includes(state.error?.param ?? '') && <Outcome state={state} />}
      </div>
    </form>
  );
}

/** Reveal (on click, audited) and rotate the signing secret; the secret never sits in the page's HTML. */
export function SigningSecret({ endpointId, previousSecretExpiresAt }: { endpointId: string; previousSecretExpiresAt: string | null }) {
  const [revealed, reveal, revealing] = useActionState<SecretFormState, FormData>(revealSecretAction, {});
  const [rotated, rotate, rotating] = useActionState<SecretFormState, FormData>(rotateSecretAction, {});
  const [hidden, setHidden] = useState(false);
  // After a rotation the new secret is the current one (a later reveal would show the same).
  const shown = rotated.secret ?? revealed.secret;
  return (
    <div className="flex flex-col gap-3">
      {shown && !hidden ? (
        <div className="rounded-lg bg-slate-50 p-3 ring-1 ring-slate-200">
          <p className="break-all font-mono text-xs" data-testid="webhook-secret">
            {shown}
          </p>
          {!rotated.secret && revealed.previous && (
            <p className="mt-2 break-all font-mono text-xs text-slate-500" data-testid="webhook-previous-secret">
              Previous secret, signing until {revealed.previous.expiresAt}: {revealed.previous.secret}
            </p>
          )}
          <Button type="button" variant="ghost" className="mt-2 min-h-8 px-2 text-xs" onClick={() => setHidden(true)}>
            Hide
          </Button>
        </div>
      ) : (
        <form action={reveal} onSubmit={() => setHidden(false)}>
          <input type="hidden" name="endpointId" value={endpointId} />
          <Button type="submit" variant="secondary" disabled={revealing}>
            {revealing ? 'Revealing…' : 'Reveal secret'}
          </Button>
        </form>
      )}
      <Outcome state={revealed.error ? revealed : {}} />
      {previousSecretExpiresAt && !rotated.secret && (
        <p className="text-sm text-amber-700">The previous secret keeps signing too until {previousSecretExpiresAt}.</p>
      )}
      <form action={rotate} onSubmit={() => setHidden(false)} className="flex flex-wrap items-center gap-2">
        <input type="hidden" name="endpointId" value={endpointId} />
        <label className="text-sm text-slate-700" htmlFor={`secret-overlap-${endpointId}`}>
          Old secret keeps signing for
        </label>
        <select
          id={`secret-overlap-${endpointId}`}
          name="overlapHours"
          defaultValue="24"
          className="rounded border border-slate-300 px-1 py-1 text-sm"
        >
          <option value="0">no time (stop now)</option>
          <option value="1">1 hour</option>
          <option value="24">24 hours</option>
          <option value="168">7 days</option>
        </select>
        <Button type="submit" variant="secondary" className="min-h-9 px-3 text-sm" disabled={rotating}>
          {rotating ? 'Rotating…' : 'Rotate secret'}
        </Button>
      </form>
      <Outcome state={rotated} />
    </div>
  );
}

export function SendTestEventButton({ endpointId, disabled }: { endpointId: string; disabled: boolean }) {
  const [state, action, pending] = useActionState<FormState, FormData>(sendTestEventAction, {});
  return (
    <form action={action} className="flex flex-col gap-2">
      <input type="hidden" name="endpointId" value={endpointId} />
      <Button type="submit" variant="secondary" disabled={pending || disabled}>
        {pending ? 'Sending…' : 'Send test event'}
      </Button>
      <Outcome state={state} />
    </form>
  );
}

export function DeleteEndpointButton({ endpointId, live }: { endpointId: string; live: boolean }) {
  const [state, action, pending] = useActionState<FormState, FormData>(deleteEndpointAction, {});
  return (
    <div className="flex flex-col gap-2">
      <ConfirmAction
        action={action}
        fields={{ endpointId }}
        disabled={pending}
        trigger={{ label: pending ? 'Deleting…' : 'Delete endpoint', className: 'text-rose-700' }}
        title="Delete this webhook endpoint?"
        description={
          <p>
            No more events are sent to it, and its delivery log is deleted. Events stay available through <code>GET /api/events</code>.
          </p>
        }
        confirmLabel="Delete endpoint"
        extra={live ? <StepUpFields /> : undefined}
      />
      <Outcome state={state} />
    </div>
  );
}

export function ResendButton({ endpointId, eventId }: { endpointId: string; eventId: string }) {
  const [state, action, pending] = useActionState<FormState, FormData>(resendEventAction, {});
  return (
    <form action={action} className="flex flex-col items-end gap-1">
      <input type="hidden" name="endpointId" value={endpointId} />
      <input type="hidden" name="eventId" value={eventId} />
      <Button type="submit" variant="secondary" className="min-h-8 px-2 text-xs" disabled={pending}>
        {pending ? 'Queuing…' : 'Resend'}
      </Button>
      {state.error ? (
        <p role="alert" className="max-w-48 text-xs text-rose-700">
          {state.error.message}
        </p>
      ) : (
        state.notice && (
          <p role="status" className="text-xs text-emerald-700">
            {state.notice}
          </p>
        )
      )}
    </form>
  );
}
