'use client';

import { useActionState, useEffect } from 'react';
import { consentAction, type ConsentState } from '@/app/oauth/authorize/[uid]/actions';
import { Button } from '@/components/ui/button';
import type { AuthorizationStep } from '@/lib/oauth/load-authorization-step';
import { SCOPE_DESCRIPTIONS } from '@/lib/oauth/scopes';

/** The consent screen: which app (and whose), what it asks, as which account; Allow or Cancel. */
export function ConsentForm({ step, email, isOtherAccount }: { step: AuthorizationStep; email: string; isOtherAccount: boolean }) {
  const [state, action, pending] = useActionState<ConsentState, FormData>(consentAction, {});
  useEffect(() => {
    // A full navigation: the provider answers with a redirect to the app, which a client-side route change cannot follow.
    if (state.redirectTo) window.location.assign(state.redirectTo);
  }, [state.redirectTo]);
  const { app } = step;
  return (
    <main className="mx-auto flex min-h-dvh max-w-md flex-col justify-center gap-6 px-4 py-10">
      <div className="flex items-center gap-3">
        {app.logoUrl ? (
          // eslint-disable-next-line @next/next/no-img-element -- a merchant's logo on any https host
          <img src={app.logoUrl} alt="" className="size-12 rounded-xl object-cover ring-1 ring-slate-200" />
        ) : (
          <span aria-hidden className="grid size-12 place-items-center rounded-xl bg-brand-100 text-xl font-semibold text-brand-700">
            {app.name.slice(0, 1).toUpperCase()}
          </span>
        )}
        <div>
          <h1 className="text-xl font-semibold" data-testid="consent-app">
            {app.name} wants to use your Chargeport account
          </h1>
          <p className="text-sm text-slate-600">
            by {app.merchantName}
            {app.redirectOrigin ? ` · returns to ${app.redirectOrigin}` : step.isDevice ? ' · on a device' : ''}
          </p>
        </div>
      </div>
      <section className="rounded-xl bg-white p-5 ring-1 ring-slate-200">
        <p className="text-sm text-slate-600">
          Signed in as <strong>{email}</strong>. {app.name} will be able to:
        </p>
        <ul className="mt-3 flex flex-col gap-2 text-sm" data-testid="consent-scopes">
          {step.scopes.map((scope) => (
            <li key={scope} data-scope={scope} className="flex gap-2">
              <span aria-hidden>✓</span>
              {SCOPE_DESCRIPTIONS[scope]}
            </li>
          ))}
        </ul>
        <p className="mt-4 text-xs text-slate-500">You can take this access back at any time under Profile → Connected apps.</p>
      </section>
      {isOtherAccount && (
        <p role="alert" className="text-sm text-rose-700">
          You are signed in as another account than the one this request started with: start again from the app.
        </p>
      )}
      {state.error && (
        <p role="alert" className="text-sm text-rose-700">
          {state.error.message}
        </p>
      )}
      <form action={action} className="flex flex-wrap justify-end gap-2">
        <input type="hidden" name="uid" value={step.uid} />
        <Button type="submit" name="decision" value="deny" variant="secondary" disabled={pending || Boolean(state.redirectTo)}>
          Cancel
        </Button>
        <Button type="submit" name="decision" value="allow" disabled={pending || isOtherAccount || Boolean(state.redirectTo)}>
          Allow
        </Button>
      </form>
    </main>
  );
}
