'use client';

import { useActionState } from 'react';
import {
  registerOAuthAppAction,
  revokeOAuthAppAction,
  revokeOAuthAppSecretAction,
  rollOAuthAppSecretAction,
  type OAuthAppFormState,
} from '@/app/dashboard/settings/oauth/actions';
import { Button } from '@/components/ui/button';
import { ConfirmAction } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import type { AppUser } from '@/lib/oauth/grants';
import type { OAuthAppListing } from '@/lib/oauth/list-oauth-apps';

const date = (value: Date) => new Date(value).toLocaleDateString('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });

function Credentials({ created }: { created: NonNullable<OAuthAppFormState['created']> }) {
  return (
    <div role="status" className="rounded-lg bg-emerald-50 p-3 text-sm ring-1 ring-emerald-200">
      <p className="font-medium text-emerald-900">
        {created.clientSecret ? 'Copy the client secret now: it will not be shown again.' : `${created.name} is registered.`}
      </p>
      <p className="mt-1 text-xs">
        Client id:{' '}
        <span className="break-all font-mono" data-testid="new-client-id">
          {created.clientId}
        </span>
      </p>
      {created.clientSecret && (
        <p className="mt-1 text-xs">
          Client secret:{' '}
          <span className="break-all font-mono" data-testid="new-client-secret">
            {created.clientSecret}
          </span>
        </p>
      )}
    </div>
  );
}

export function RegisterOAuthAppForm() {
  const [state, action, pending] = useActionState<OAuthAppFormState, FormData>(registerOAuthAppAction, {});
  const error = state.error;
  return (
    <section aria-labelledby="register-app-heading" className="flex max-w-xl flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200">
      <h2 id="register-app-heading" className="font-semibold">
        Register an app
      </h2>
      {state.created && <Credentials created={state.created} />}
      <form action={action} className="flex flex-col gap-3">
        <Field
          label="Name"
          name="name"
          required
          maxLength={60}
          defaultValue={state.values?.name}
          placeholder="Pixel Quest"
          error={error?.param === 'name' ? error.message : undefined}
        />
        <Field
          label="Logo URL (optional)"
          name="logoUrl"
          type="url"
          defaultValue={state.values?.logoUrl}
          placeholder="https://pixelquest.example/logo.png"
          hint="Shown to players on the consent screen."
          error={error?.param === 'logoUrl' ? error.message : undefined}
        />
        <div className="flex flex-col gap-1.5">
          <label htmlFor="redirect-uris" className="text-sm font-medium text-slate-800">
            Redirect URIs, one per line
          </label>
          <textarea
            id="redirect-uris"
            name="redirectUris"
            required
            rows={3}
            defaultValue={state.values?.redirectUris}
            placeholder={'https://pixelquest.example/auth/callback\ncom.pixelquest.game:/callback'}
            aria-describedby="redirect-uris-hint"
            className="rounded-lg border border-slate-300 px-3 py-2 font-mono text-sm"
          />
          <p id="redirect-uris-hint" className="text-xs text-slate-500">
            https, http://localhost while developing, or your app&apos;s own scheme. Games without a browser use the device flow and need
            none of them to work, but one is required.
          </p>
          {error?.param?.startsWith('redirectUris') && (
            <p role="alert" className="text-sm text-rose-700">
              {error.message}
            </p>
          )}
        </div>
        <fieldset className="flex flex-col gap-1 text-sm">
          <legend className="mb-1 font-medium text-slate-800">Client type</legend>
          <label className="flex items-center gap-2">
            <input type="radio" name="clientType" value="public" defaultChecked={state.values?.clientType !== 'confidential'} /> Public — a
            browser app or a game (PKCE, no secret)
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" name="clientType" value="confidential" defaultChecked={state.values?.clientType === 'confidential'} />{' '}
            Confidential — your server keeps a client secret
          </label>
        </fieldset>
        {error && !['name', 'logoUrl'].includes(error.param ?? '') && !error.param?.startsWith('redirectUris') && (
          <p role="alert" className="text-sm text-rose-700">
            {error.message}
          </p>
        )}
        <Button type="submit" disabled={pending} className="self-start">
          {pending ? 'Registering…' : 'Register app'}
        </Button>
      </form>
    </section>
  );
}

/** The merchant's apps with their users; roll / revoke state lives here so a new secret shows above the list. */
export function OAuthApps({ apps, users, canManage }: { apps: OAuthAppListing[]; users: Record<string, AppUser[]>; canManage: boolean }) {
  const [rolled, roll, rolling] = useActionState<OAuthAppFormState, FormData>(rollOAuthAppSecretAction, {});
  const [secretRevoked, revokeSecret, revokingSecret] = useActionState<OAuthAppFormState, FormData>(revokeOAuthAppSecretAction, {});
  const [appRevoked, revokeApp, revokingApp] = useActionState<OAuthAppFormState, FormData>(revokeOAuthAppAction, {});
  const busy = rolling || revokingSecret || revokingApp;
  const error = rolled.error ?? secretRevoked.error ?? appRevoked.error;
  const notice = secretRevoked.notice ?? appRevoked.notice;
  if (apps.length === 0 && !notice) return <p className="text-sm text-slate-600">No apps yet.</p>;
  return (
    <div className="flex flex-col gap-4">
      {rolled.created && <Credentials created={rolled.created} />}
      {error && (
        <p role="alert" className="text-sm text-rose-700">
          {error.message}
        </p>
      )}
      {notice && (
        <p role="status" className="text-sm text-emerald-700">
          {notice}
        </p>
      )}
      {apps.map((app) => (
        <article
          key={app.clientId}
          data-testid="oauth-app"
          data-client-id={app.clientId}
          className="rounded-xl bg-white p-5 ring-1 ring-slate-200"
        >
          <div className="flex flex-wrap items-start justify-between gap-3">
            <div>
              <h2 className="font-semibold">{app.name}</h2>
              <p className="text-xs text-slate-500">
                {app.clientType === 'public' ? 'Public (PKCE)' : app.hasSecret ? 'Confidential' : 'Confidential — secret revoked'} ·
                registered {date(app.createdAt)}
              </p>
              <p className="mt-2 text-xs">
                Client id: <span className="break-all font-mono">{app.clientId}</span>
              </p>
              <ul className="mt-1 text-xs text-slate-600">
                {app.redirectUris.map((uri) => (
                  <li key={uri} className="break-all font-mono">
                    {uri}
                  </li>
                ))}
              </ul>
            </div>
            {canManage && (
              <div className="flex flex-wrap items-center gap-2">
                {app.clientType === 'confidential' && (
                  <form action={roll}>
                    <input type="hidden" name="clientId" value={app.clientId} />
                    <Button type="submit" variant="secondary" className="min-h-8 px-2 text-xs" disabled={busy}>
                      Roll secret
                    </Button>
                  </form>
                )}
                {app.hasSecret && (
                  <ConfirmAction
                    action={revokeSecret}
                    fields={{ clientId: app.clientId }}
                    disabled={busy}
                    trigger={{
                      label: 'Revoke secret',
                      accessibleName: `Revoke the secret of ${app.name}`,
                      className: 'min-h-8 px-2 text-xs text-rose-700',
                    }}
                    title={`Revoke the secret of “${app.name}”?`}
                    description={
                      <p>Your server can no longer exchange codes or refresh tokens until you roll a new secret. Users stay connected.</p>
                    }
                    confirmLabel="Revoke secret"
                  />
                )}
                <ConfirmAction
                  action={revokeApp}
                  fields={{ clientId: app.clientId }}
                  disabled={busy}
                  trigger={{ label: 'Revoke app', accessibleName: `Revoke ${app.name}`, className: 'min-h-8 px-2 text-xs text-rose-700' }}
                  title={`Revoke “${app.name}”?`}
                  description={
                    <p>
                      Every user is signed out of it at once and its tokens stop working; sign-in with its client id fails. This cannot be
                      undone.
                    </p>
                  }
                  confirmLabel="Revoke app"
                  typeToConfirm={{ accepted: [app.name, 'revoke'], label: `Type the app's name (${app.name}) or “revoke” to confirm` }}
                />
              </div>
            )}
          </div>
          <details className="mt-3 text-sm">
            <summary className="cursor-pointer text-slate-700" data-testid="oauth-app-user-count">
              {app.userCount} {app.userCount === 1 ? 'user' : 'users'}
            </summary>
            <ul className="mt-2 divide-y divide-slate-100" data-testid="oauth-app-users">
              {(users[app.clientId] ?? []).map((user) => (
                <li key={user.userId} className="flex flex-wrap justify-between gap-2 py-1.5 text-xs">
                  <span>{user.email ?? user.userId}</span>
                  <span className="text-slate-500">
                    {user.scopes.join(' ')} · since {date(user.connectedAt)}
                  </span>
                </li>
              ))}
            </ul>
          </details>
        </article>
      ))}
    </div>
  );
}
