'use client';

import { useActionState } from 'react';
import { revokeConnectedAppAction } from '@/app/(account)/account/profile/connected-apps-actions';
import { ConfirmAction } from '@/components/ui/confirm-dialog';
import type { FormState } from '@/lib/auth/form-state';
import type { ConnectedApp } from '@/lib/oauth/grants';
import { SCOPE_DESCRIPTIONS } from '@/lib/oauth/scopes';

/** The apps signed in with this Chargeport account, what each may do, and "Remove access". */
export function ConnectedApps({ apps }: { apps: ConnectedApp[] }) {
  const [state, revoke, pending] = useActionState<FormState, FormData>(revokeConnectedAppAction, {});
  return (
    <section aria-labelledby="connected-apps-heading" data-testid="connected-apps">
      <h2 id="connected-apps-heading" className="text-lg font-semibold">
        Connected apps
      </h2>
      <p className="mt-1 text-sm text-slate-600">Games and apps you signed in to with Chargeport.</p>
      {state.notice && (
        <p role="status" className="mt-2 text-sm text-emerald-700">
          {state.notice}
        </p>
      )}
      {state.error && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {state.error.message}
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
              </div>
              <ConfirmAction
                action={revoke}
                fields={{ clientId: app.clientId }}
                disabled={pending}
                trigger={{
                  label: 'Remove access',
                  accessibleName: `Remove access of ${app.name}`,
                  className: 'min-h-8 px-2 text-xs text-rose-700',
                }}
                title={`Remove ${app.name}'s access?`}
                description={
                  <p>The app is signed out of your Chargeport account at once. Signing in to it again asks for your consent again.</p>
                }
                confirmLabel="Remove access"
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
