'use client';

import { startRegistration } from '@simplewebauthn/browser';
import { useActionState, useState } from 'react';
import {
  confirmTotpAction,
  passkeyRegistrationOptionsAction,
  registerPasskeyAction,
  removePasskeyAction,
  removeTotpAction,
  renewRecoveryCodesAction,
  startTotpAction,
  type SecurityFormState,
} from '@/app/(account)/account/security/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import { StepUpFields } from './step-up-fields';

/** Recovery codes are shown once: the server keeps only their hashes. */
function RecoveryCodes({ codes }: { codes?: string[] }) {
  if (!codes) return null;
  return (
    <div className="rounded-lg bg-amber-50 p-4 text-sm ring-1 ring-amber-200" data-testid="recovery-codes">
      <p className="font-medium">Your recovery codes (shown once: keep them somewhere safe; each works one time)</p>
      <ul className="mt-2 grid grid-cols-2 gap-1 font-mono">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
    </div>
  );
}

function Outcome({ state }: { state: SecurityFormState }) {
  return (
    <>
      {state.notice && <Notice tone="success">{state.notice}</Notice>}
      {state.error && <Notice tone="error">{state.error.message}</Notice>}
    </>
  );
}

export function TotpSection({ enabled }: { enabled: boolean }) {
  const [started, start, starting] = useActionState<SecurityFormState, FormData>(startTotpAction, {});
  const [confirmed, confirm, confirming] = useActionState<SecurityFormState, FormData>(confirmTotpAction, {});
  const [removed, remove, removing] = useActionState<SecurityFormState, FormData>(removeTotpAction, {});
  if (enabled || confirmed.recoveryCodes || confirmed.notice) {
    return (
      <form action={remove} className="flex flex-col gap-3">
        <p className="text-sm" data-testid="totp-enabled">
          Authenticator app: on.
        </p>
        {confirmed.notice && <Notice tone="success">{confirmed.notice}</Notice>}
        <RecoveryCodes codes={confirmed.recoveryCodes} />
        <StepUpFields />
        <Button type="submit" variant="secondary" disabled={removing}>
          Remove the authenticator app
        </Button>
        <Outcome state={removed} />
      </form>
    );
  }
  return (
    <div className="flex flex-col gap-3">
      {!started.totp ? (
        <form action={start}>
          <Button type="submit" disabled={starting}>
            Set up an authenticator app
          </Button>
          <Outcome state={started} />
        </form>
      ) : (
        <form action={confirm} className="flex flex-col gap-3">
          {/* eslint-disable-next-line @next/next/no-img-element -- a data: URL made on the server */}
          <img src={started.totp.qrDataUrl} alt="QR code for your authenticator app" width={200} height={200} />
          <p className="text-sm">
            Or enter this key: <code data-testid="totp-secret">{started.totp.secret}</code>
          </p>
          <Field label="Code from the app" name="code" inputMode="numeric" autoComplete="one-time-code" required />
          <Button type="submit" disabled={confirming}>
            Turn on
          </Button>
          <Outcome state={confirmed} />
        </form>
      )}
    </div>
  );
}

export function PasskeysSection({ passkeys }: { passkeys: { id: string; name: string; createdAt: string }[] }) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string>();
  const [codes, setCodes] = useState<string[]>();
  const [busy, setBusy] = useState(false);
  const [removed, remove, removing] = useActionState<SecurityFormState, FormData>(removePasskeyAction, {});

  async function addPasskey() {
    setBusy(true);
    setProblem(undefined);
    try {
      const { options, error } = await passkeyRegistrationOptionsAction();
      if (!options) throw new Error(error ?? 'Passkeys are not available.');
      const response = await startRegistration({ optionsJSON: options as Parameters<typeof startRegistration>[0]['optionsJSON'] });
      const saved = await registerPasskeyAction({ name: name || 'Passkey', response: JSON.stringify(response) });
      if (saved.error) throw new Error(saved.error);
      setCodes(saved.recoveryCodes);
      setName('');
    } catch (failure) {
      setProblem(failure instanceof Error ? failure.message : 'The passkey was not saved.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="flex flex-col gap-3">
      <ul className="flex flex-col gap-2 text-sm" data-testid="passkeys">
        {passkeys.map((key) => (
          <li key={key.id} className="flex flex-col gap-2 rounded-lg p-3 ring-1 ring-slate-200">
            <span>
              {key.name} <span className="text-slate-500">(added {new Date(key.createdAt).toLocaleDateString()})</span>
            </span>
            <form action={remove} className="flex flex-col gap-2">
              <input type="hidden" name="passkeyId" value={key.id} />
              <StepUpFields />
              <Button type="submit" variant="secondary" disabled={removing}>
                Remove {key.name}
              </Button>
            </form>
          </li>
        ))}
      </ul>
      <Outcome state={removed} />
      <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
        Name of the new passkey
        <input
          value={name}
          onChange={(event) => setName(event.target.value)}
          maxLength={60}
          className="min-h-11 rounded-lg border border-slate-300 bg-white px-3 text-base"
          placeholder="Laptop"
        />
      </label>
      <Button type="button" onClick={addPasskey} disabled={busy}>
        {busy ? 'Waiting for your passkey…' : 'Add a passkey'}
      </Button>
      {problem && <Notice tone="error">{problem}</Notice>}
      <RecoveryCodes codes={codes} />
    </div>
  );
}

export function RecoveryCodesSection({ left }: { left: number }) {
  const [state, action, pending] = useActionState<SecurityFormState, FormData>(renewRecoveryCodesAction, {});
  return (
    <form action={action} className="flex flex-col gap-3">
      <p className="text-sm" data-testid="recovery-codes-left">
        Recovery codes left: {left}
      </p>
      <RecoveryCodes codes={state.recoveryCodes} />
      <StepUpFields />
      <Button type="submit" variant="secondary" disabled={pending}>
        New recovery codes
      </Button>
      <Outcome state={state} />
    </form>
  );
}
