'use client';

import { startAuthentication } from '@simplewebauthn/browser';
import { useActionState, useState } from 'react';
import { confirmSecondFactorAction, passkeySignInAction, passkeySignInOptionsAction } from '@/app/(auth)/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import type { FormState } from '@/lib/auth/form-state';

/** Sign-in, second step: a passkey, a code from the authenticator app, or a recovery code. */
export function TwoFactorForm({ callbackUrl }: { callbackUrl?: string }) {
  const [state, action, pending] = useActionState<FormState, FormData>(confirmSecondFactorAction, {});
  const [useRecovery, setUseRecovery] = useState(false);
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function signInWithPasskey() {
    setBusy(true);
    setProblem(undefined);
    try {
      const offered = await passkeySignInOptionsAction();
      if (offered.error) throw new Error(offered.error.message);
      const optionsJSON = offered.data.options as Parameters<typeof startAuthentication>[0]['optionsJSON'];
      const assertion = await startAuthentication({ optionsJSON });
      const outcome = await passkeySignInAction({ response: JSON.stringify(assertion), callbackUrl });
      if (outcome.error) throw new Error(outcome.error.message);
      window.location.assign(outcome.data.redirectTo);
    } catch (failure) {
      setProblem(failure instanceof Error ? failure.message : 'The passkey did not answer.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="flex flex-col gap-4">
      <Button type="button" variant="secondary" onClick={signInWithPasskey} disabled={busy}>
        {busy ? 'Waiting for your passkey…' : 'Use a passkey'}
      </Button>
      {problem && <Notice tone="error">{problem}</Notice>}
      <form action={action} className="flex flex-col gap-3" noValidate>
        {callbackUrl && <input type="hidden" name="callbackUrl" value={callbackUrl} />}
        {useRecovery ? (
          <Field label="Recovery code" name="recoveryCode" autoComplete="off" required error={state.error?.message} />
        ) : (
          <Field
            label="Code from your authenticator app"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            required
            error={state.error?.message}
          />
        )}
        <Button type="submit" disabled={pending}>
          Continue
        </Button>
      </form>
      <button type="button" className="self-start text-sm text-slate-600 underline" onClick={() => setUseRecovery(!useRecovery)}>
        {useRecovery ? 'Use your authenticator app' : 'Use a recovery code'}
      </button>
    </div>
  );
}
