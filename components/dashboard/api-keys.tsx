'use client';

import { useActionState } from 'react';
import {
  createKeyAction,
  revokeKeyAction,
  rollKeyAction,
  setOriginsAction,
  type KeyFormState,
} from '@/app/dashboard/settings/api-keys/actions';
import { Button } from '@/components/ui/button';
import { ConfirmAction } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { StepUpFields } from '@/components/account/step-up-fields';
import type { ApiKeyListing } from '@/lib/api-keys/list-api-keys';
import { DataTable } from '@/components/ui/data-table';

const dateTime = (value: Date | null) =>
  value ? new Date(value).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC' : 'never';

/** The plaintext of a new key, with the warning that it will not be shown again. */
function NewKey({ created, testId = 'new-key' }: { created: NonNullable<KeyFormState['created']>; testId?: string }) {
  return (
    <div role="status" className="rounded-lg bg-emerald-50 p-3 text-sm ring-1 ring-emerald-200">
      <p className="font-medium text-emerald-900">Copy your new key now: it will not be shown again.</p>
      <p className="mt-1 break-all font-mono text-xs" data-testid={testId}>
        {created.plaintext}
      </p>
    </div>
  );
}

/** Production keys need a step-up (PIN or passkey): its fields show in live mode only. */
export function CreateKeyForm({ live }: { live: boolean }) {
  const [state, action, pending] = useActionState<KeyFormState, FormData>(createKeyAction, {});
  return (
    <section aria-labelledby="create-key-heading" className="flex max-w-md flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200">
      <h2 id="create-key-heading" className="font-semibold">
        Create a key
      </h2>
      {state.created && <NewKey created={state.created} />}
      <form action={action} className="flex flex-col gap-3">
        <Field
          label="Name"
          name="name"
          required
          maxLength={60}
          defaultValue={state.values?.name}
          error={state.error?.message}
          placeholder="Game server"
        />
        <fieldset className="flex gap-4 text-sm">
          <legend className="mb-1 font-medium text-slate-800">Kind</legend>
          <label className="flex items-center gap-2">
            <input type="radio" name="kind" value="secret" defaultChecked={state.values?.kind !== 'publishable'} /> Secret
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" name="kind" value="publishable" defaultChecked={state.values?.kind === 'publishable'} /> Publishable
          </label>
        </fieldset>
        {live && <StepUpFields error={state.error?.param === 'pin' ? state.error.message : undefined} />}
        <Button type="submit" disabled={pending}>
          {pending ? 'Creating…' : 'Create key'}
        </Button>
      </form>
    </section>
  );
}

/**
 * The keys table. Roll and revoke state lives here, not in the rows: a key rolled with no overlap
 * leaves the list at once, and its replacement's plaintext must still be shown (once).
 */
export function ApiKeysTable({ keys, canManage }: { keys: ApiKeyListing[]; canManage: boolean }) {
  const [rolled, roll, rolling] = useActionState<KeyFormState, FormData>(rollKeyAction, {});
  const [revoked, revoke, revoking] = useActionState<KeyFormState, FormData>(revokeKeyAction, {});
  const error = rolled.error?.message ?? revoked.error?.message;
  return (
    <div className="flex flex-col gap-3">
      {rolled.created && <NewKey created={rolled.created} testId="rolled-key" />}
      {error && (
        <p role="alert" className="text-sm text-rose-700">
          {error}
        </p>
      )}
      {revoked.notice && (
        <p role="status" className="text-sm text-emerald-700">
          {revoked.notice}
        </p>
      )}
      <DataTable
        columns={[
          { label: 'Name' },
          { label: 'Key' },
          { label: 'Created', className: 'hidden py-2 font-medium sm:table-cell' },
          { label: 'Last used' },
          { label: 'API version', className: 'hidden py-2 font-medium md:table-cell' },
          { label: 'Actions', srOnly: true },
        ]}
        label="API keys"
        minWidthClass="min-w-[36rem]"
        testId="api-keys"
      >
        {keys.map((key) => (
          <ApiKeyRow key={key.id} apiKey={key} canManage={canManage} roll={roll} revoke={revoke} busy={rolling || revoking} />
        ))}
      </DataTable>
    </div>
  );
}

function ApiKeyRow({
  apiKey,
  canManage,
  roll,
  revoke,
  busy,
}: {
  apiKey: ApiKeyListing;
  canManage: boolean;
  roll: (form: FormData) => void;
  revoke: (form: FormData) => void;
  busy: boolean;
}) {
  return (
    <tr data-testid="api-key-row" data-key-id={apiKey.id}>
      <td className="py-3 align-top">
        {apiKey.name}
        <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">{apiKey.kind}</span>
        {apiKey.expiresAt && <p className="text-xs text-amber-700">Rolled: stops working {dateTime(apiKey.expiresAt)}</p>}
        {apiKey.kind === 'publishable' && <KeyOrigins apiKey={apiKey} canManage={canManage} />}
      </td>
      <td className="py-3 align-top font-mono text-xs">{apiKey.displayPrefix}…</td>
      <td className="hidden py-3 align-top text-slate-600 sm:table-cell">{dateTime(apiKey.createdAt)}</td>
      <td className="py-3 align-top text-slate-600" data-testid="last-used">
        {dateTime(apiKey.lastUsedAt)}
      </td>
      <td className="hidden py-3 align-top font-mono text-xs text-slate-600 md:table-cell" data-testid="api-version">
        {apiKey.apiVersion ?? <span className="font-sans">pinned on first use</span>}
      </td>
      <td className="py-3 align-top">
        {canManage && !apiKey.expiresAt && (
          <div className="flex flex-col items-end gap-2">
            <form action={roll} className="flex items-center gap-2 whitespace-nowrap">
              <input type="hidden" name="keyId" value={apiKey.id} />
              {apiKey.mode === 'live' && (
                <>
                  <label className="sr-only" htmlFor={`roll-pin-${apiKey.id}`}>
                    Your PIN
                  </label>
                  <input
                    id={`roll-pin-${apiKey.id}`}
                    name="pin"
                    type="password"
                    inputMode="numeric"
                    autoComplete="off"
                    placeholder="PIN"
                    className="w-20 rounded border border-slate-300 px-1 py-1 text-xs"
                  />
                </>
              )}
              <label className="sr-only" htmlFor={`overlap-${apiKey.id}`}>
                Old key keeps working for
              </label>
              <select
                id={`overlap-${apiKey.id}`}
                name="overlapHours"
                defaultValue="24"
                className="rounded border border-slate-300 px-1 py-1 text-xs"
              >
                <option value="0">now</option>
                <option value="1">1 hour</option>
                <option value="24">24 hours</option>
                <option value="168">7 days</option>
              </select>
              <Button type="submit" variant="secondary" className="min-h-8 px-2 text-xs" disabled={busy}>
                Roll
              </Button>
            </form>
            <ConfirmAction
              action={revoke}
              fields={{ keyId: apiKey.id }}
              disabled={busy}
              trigger={{ label: 'Revoke', accessibleName: `Revoke ${apiKey.name}`, className: 'min-h-8 px-2 text-xs text-rose-700' }}
              title={`Revoke the ${apiKey.mode === 'live' ? 'production' : 'test'} key “${apiKey.name}”?`}
              description={
                apiKey.mode === 'live' ? (
                  <p>
                    Requests with this key fail at once with <code>invalid_api_key</code>: your live integration stops taking payments until
                    it uses another key. This cannot be undone; to replace a key without downtime, roll it instead.
                  </p>
                ) : (
                  <p>Requests with this key fail at once. This cannot be undone.</p>
                )
              }
              confirmLabel="Revoke key"
              typeToConfirm={
                apiKey.mode === 'live'
                  ? {
                      accepted: [apiKey.name, 'revoke'],
                      label: `Type the key's name (${apiKey.name}) or “revoke” to confirm`,
                    }
                  : undefined
              }
            />
          </div>
        )}
      </td>
    </tr>
  );
}

/** A publishable key is public: it works only from its allowed origins, and its charges redirect only to its redirect origins. */
function KeyOrigins({ apiKey, canManage }: { apiKey: ApiKeyListing; canManage: boolean }) {
  const [state, action, pending] = useActionState<KeyFormState, FormData>(setOriginsAction, {});
  if (!canManage) {
    return (
      <p className="text-xs text-slate-600">
        Origins: {apiKey.allowedOrigins.join(', ') || 'none'}; redirects: {apiKey.allowedRedirectOrigins.join(', ') || 'none'}
      </p>
    );
  }
  return (
    <form action={action} className="mt-2 flex flex-col gap-1 text-xs" aria-label={`Origins of ${apiKey.name}`}>
      <input type="hidden" name="keyId" value={apiKey.id} />
      <label className="flex flex-col gap-1">
        Allowed origins (your site, e.g. https://shop.example)
        <input
          name="allowedOrigins"
          defaultValue={apiKey.allowedOrigins.join(' ')}
          className="rounded border border-slate-300 px-1 py-1 font-mono"
        />
      </label>
      <label className="flex flex-col gap-1">
        Allowed redirect origins (successUrl / cancelUrl)
        <input
          name="allowedRedirectOrigins"
          defaultValue={apiKey.allowedRedirectOrigins.join(' ')}
          className="rounded border border-slate-300 px-1 py-1 font-mono"
        />
      </label>
      <Button type="submit" variant="secondary" className="min-h-8 self-start px-2 text-xs" disabled={pending}>
        Save origins
      </Button>
      {state.error && <span className="text-rose-700">{state.error.message}</span>}
      {state.notice && <span className="text-emerald-700">{state.notice}</span>}
    </form>
  );
}
