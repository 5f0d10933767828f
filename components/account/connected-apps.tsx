'use client';

import { useActionState } from 'react';
import { revokeAllConnectedAppsAction, revokeConnectedAppAction } from '@/app/(account)/account/profile/connected-apps-actions';
import { ConfirmAction } from '@/components/ui/confirm-dialog';
import type { FormState } from '@/lib/auth/form-state';
import type { ConnectedApp } from '@/lib/oauth/grants';
import { SCOPE_DESCRIPTIONS } from '@/lib/oauth/scopes';

const DATE = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const when = (date: Date) => `${DATE.format(date)} UTC`;

/** The apps signed in with this Chargeport account: what each may do, since when, last use; "Revoke" and "Revoke all". */
export function ConnectedApps({ apps }: { apps: ConnectedApp[] }) {
  const [state, revoke, pending] = useActionState<FormState, FormData>(revokeConnectedAppAction, {});
  const [allState, revokeAll, allPending] = useActionState<FormState, FormData>(revokeAllConnectedAppsAction, {});
  const shown = [state, allState].find((s) => s.notice || s.error);
  return (
    <section aria-labelledby="connected-apps-heading" data-testid="connected-apps">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="connected-apps-heading" className="text-lg font-semibold">
          Connected apps
        </h2>
        {apps.length > 0 && (
          <ConfirmAction
            action={revokeAll}
            fields={{}}
            disabled={allPending || pending}
            trigger={{
              label: 'Revoke all',
              accessibleName: 'Revoke the access of every app',
              className: 'min-h-8 px-2 text-xs text-rose-700',
            }}
            title="Revoke every app’s access?"
            description={
              <p>
                Every app below is signed out of your Chargeport account at once, and its saved sign-ins stop working. Signing in to one
                again asks for your consent again.
              </p>
            }
            confirmLabel="Revoke all"
          />
        )}
      </div>
      <p className="mt-1 text-sm text-slate-600">
        Games and apps you signed in to with Chargeport. Signing out everywhere, resetting your PIN or changing your e-mail revokes them all
        too.
      </p>
      {shown?.notice && (
        <p role="status" className="mt-2 text-sm text-emerald-700">
          {shown.notice}
        </p>
      )}
      {shown?.error && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {shown.error.message}
        </p>
      )}
      {apps.length === 0 ? (
        <p className="mt-3 text-sm text-slate-500">None.</p>
      ) : (
        <ul className="mt-3 flex flex-col gap-2">
          {apps.map((app) => (
            <li
              key={app.clientId}
              data-testid="connected-app"
              className="flex flex-wrap items-start justify-between gap-3 rounded-xl bg-white p-4 ring-1 ring-slate-200"
            >
              <div className="text-sm">
                <p className="font-medium">
                  {app.name} <span className="font-normal text-slate-500">by {app.merchantName}</span>
                </p>
                <ul className="mt-1 list-disc pl-5 text-xs text-slate-600">
                  {app.scopes.map((scope) => (
                    <li key={scope}>{SCOPE_DESCRIPTIONS[scope]}</li>
                  ))}
                </ul>
                <p className="mt-1 text-xs text-slate-500">
                  Granted {when(app.connectedAt)}
                  {app.lastUsedAt ? ` · last used ${when(app.lastUsedAt)}` : ''}
                </p>
              </div>
              <ConfirmAction
                action={revoke}
                fields={{ clientId: app.clientId }}
                disabled={pending || allPending}
                trigger={{
                  label: 'Revoke',
                  accessibleName: `Revoke the access of ${app.name}`,
                  className: 'min-h-8 px-2 text-xs text-rose-700',
                }}
                title={`Revoke ${app.name}'s access?`}
                description={
                  <p>The app is signed out of your Chargeport account at once. Signing in to it again asks for your consent again.</p>
                }
                confirmLabel="Revoke"
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
