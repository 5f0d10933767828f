'use client';

import { startRegistration } from '@simplewebauthn/browser';
import { useActionState, useState, type FormEvent } from 'react';
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
import { FactorProofFields, type FactorProofMethod } from './factor-proof-fields';

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

/** A factor younger than FACTOR_COOLING_HOURS signs in but does not yet confirm live payments. */
function Cooling({ usableFrom }: { usableFrom?: string }) {
  if (!usableFrom) return null;
  return (
    <span className="text-amber-800" data-testid="factor-cooling">
      {' '}
      Usable for payments from {usableFrom}.
    </span>
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

export function TotpSection({ enabled, proof, usableFrom }: { enabled: boolean; proof: FactorProofMethod; usableFrom?: string }) {
  const [started, start, starting] = useActionState<SecurityFormState, FormData>(startTotpAction, {});
  const [confirmed, confirm, confirming] = useActionState<SecurityFormState, FormData>(confirmTotpAction, {});
  const [removed, remove, removing] = useActionState<SecurityFormState, FormData>(removeTotpAction, {});
  if (enabled || confirmed.recoveryCodes || confirmed.notice) {
    return (
      <form action={remove} className="flex flex-col gap-3">
        <p className="text-sm" data-testid="totp-enabled">
          Authenticator app: on.
          <Cooling usableFrom={usableFrom} />
        </p>
        {confirmed.notice && <Notice tone="success">{confirmed.notice}</Notice>}
        <RecoveryCodes codes={confirmed.recoveryCodes} />
        <FactorProofFields method={proof} />
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
          <FactorProofFields method={proof} />
          <Button type="submit" disabled={confirming}>
            Turn on
          </Button>
          <Outcome state={confirmed} />
        </form>
      )}
    </div>
  );
}

export function PasskeysSection({
  passkeys,
  proof,
}: {
  passkeys: { id: string; name: string; createdAt: string; usableFrom?: string }[];
  proof: FactorProofMethod;
}) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string>();
  const [codes, setCodes] = useState<string[]>();
  const [busy, setBusy] = useState(false);
  const [removed, remove, removing] = useActionState<SecurityFormState, FormData>(removePasskeyAction, {});

  async function addPasskey(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // The proof (PIN, passkey or e-mail code) travels with the new passkey: the server checks both at once.
    const form = new FormData(event.currentTarget);
    const value = (field: string) => String(form.get(field) ?? '').trim() || undefined;
    setBusy(true);
    setProblem(undefined);
    try {
      const { data, error } = await passkeyRegistrationOptionsAction();
      const options = data?.options;
      if (!options) throw new Error(error?.message ?? 'Passkeys are not available.');
      const response = await startRegistration({ optionsJSON: options as Parameters<typeof startRegistration>[0]['optionsJSON'] });
      const saved = await registerPasskeyAction({
        name: name || 'Passkey',
        response: JSON.stringify(response),
        pin: value('pin'),
        passkeyResponse: value('passkeyResponse'),
        emailCode: value('emailCode'),
      });
      if (saved.error) throw new Error(saved.error.message);
      setCodes(saved.data.recoveryCodes);
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
              {key.name} <span className="text-slate-500">(added {key.createdAt.slice(0, 10)})</span>
              <Cooling usableFrom={key.usableFrom} />
            </span>
            <form action={remove} className="flex flex-col gap-2">
              <input type="hidden" name="passkeyId" value={key.id} />
              <FactorProofFields method={proof} />
              <Button type="submit" variant="secondary" disabled={removing}>
                Remove {key.name}
              </Button>
            </form>
          </li>
        ))}
      </ul>
      <Outcome state={removed} />
      <form onSubmit={addPasskey} className="flex flex-col gap-3" data-testid="add-passkey">
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
        <FactorProofFields method={proof} />
        <Button type="submit" disabled={busy}>
          {busy ? 'Waiting for your passkey…' : 'Add a passkey'}
        </Button>
        {problem && <Notice tone="error">{problem}</Notice>}
      </form>
      <RecoveryCodes codes={codes} />
    </div>
  );
}

export function RecoveryCodesSection({ left, proof }: { left: number; proof: FactorProofMethod }) {
  const [state, action, pending] = useActionState<SecurityFormState, FormData>(renewRecoveryCodesAction, {});
  return (
    <form action={action} className="flex flex-col gap-3">
      <p className="text-sm" data-testid="recovery-codes-left">
        Recovery codes left: {left}
      </p>
      <RecoveryCodes codes={state.recoveryCodes} />
      <FactorProofFields method={proof} />
      <Button type="submit" variant="secondary" disabled={pending}>
        New recovery codes
      </Button>
      <Outcome state={state} />
    </form>
  );
}
