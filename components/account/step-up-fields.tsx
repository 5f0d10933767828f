'use client';

import { startAuthentication } from '@simplewebauthn/browser';
import { useState } from 'react';
import { stepUpPasskeyOptionsAction } from '@/app/(account)/account/security/actions';
import { PinField } from './pin-fields';

/**
 * The confirmation of a money or ownership change (lib/accounts/step-up.ts): the user's PIN, or one
 * of their passkeys instead. The passkey's assertion travels in the hidden `passkeyResponse` field
 * with the rest of the form; the server checks it like the PIN.
 */
export function StepUpFields({ label = 'Your PIN', error, optional = false }: { label?: string; error?: string; optional?: boolean }) {
  const [response, setResponse] = useState('');
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function usePasskey() {
    setBusy(true);
    setProblem(undefined);
    try {
      const { data, error: refused } = await stepUpPasskeyOptionsAction();
      const options = data?.options;
      if (!options) throw new Error(refused?.message ?? 'No passkey is available.');
      const assertion = await startAuthentication({ optionsJSON: options as Parameters<typeof startAuthentication>[0]['optionsJSON'] });
      setResponse(JSON.stringify(assertion));
    } catch (failure) {
      setProblem(failure instanceof Error ? failure.message : 'The passkey did not answer.');
    } finally {
      setBusy(false);
    }
  }

  if (response) {
    return (
      <div className="flex flex-col gap-1.5" data-testid="step-up-passkey-ready">
        <input type="hidden" name="passkeyResponse" value={response} />
        <p className="text-sm text-emerald-700">Confirmed with your passkey.</p>
        {error && (
          <p role="alert" className="text-sm text-rose-700">
            {error}
          </p>
        )}
        <button type="button" className="self-start text-sm text-slate-600 underline" onClick={() => setResponse('')}>
          Use your PIN instead
        </button>
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-1.5">
      <PinField label={label} name="pin" error={error ?? problem} optional={optional} />
      <button type="button" className="self-start text-sm text-brand-700 underline" onClick={usePasskey} disabled={busy}>
        {busy ? 'Waiting for your passkey…' : 'Use a passkey instead'}
      </button>
    </div>
  );
}
