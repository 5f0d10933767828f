'use client';

import { useState, useTransition } from 'react';
import { requestFactorCodeAction } from '@/app/(account)/account/security/actions';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import type { FormState } from '@/lib/auth/form-state';
import { StepUpFields } from './step-up-fields';

/** How this account confirms a second-factor change (lib/accounts/two-factor/factor-change-proof.ts). */
export type FactorProofMethod = 'step_up' | 'email_code';

/**
 * The "Code from your e-mail" field and the button that sends it (`requestCode`, a server action
 * called directly: the field may sit in any form, with or without its own action).
 */
export function EmailCodeField({
  requestCode,
  error,
}: {
  requestCode: (state: FormState, form: FormData) => Promise<FormState>;
  error?: string;
}) {
  const [sent, setSent] = useState<FormState>({});
  const [sending, startSending] = useTransition();
  const send = () => startSending(async () => setSent(await requestCode({}, new FormData())));
  return (
    <div className="flex flex-col gap-2">
      <Field label="Code from your e-mail" name="emailCode" inputMode="numeric" autoComplete="one-time-code" error={error} />
      <button type="button" onClick={send} className="self-start text-sm text-brand-700 underline" disabled={sending}>
        {sending ? 'Sending…' : 'E-mail me a code'}
      </button>
      {sent.notice && <Notice tone="success">{sent.notice}</Notice>}
      {sent.error && <Notice tone="error">{sent.error.message}</Notice>}
    </div>
  );
}

/**
 * What a change of second factors asks for, said before the form is filled: the PIN or a passkey,
 * or (for an account with neither) a code e-mailed to the account.
 */
export function FactorProofFields({ method, error }: { method: FactorProofMethod; error?: string }) {
  if (method === 'step_up') {
    return (
      <div className="flex flex-col gap-1.5" data-testid="factor-proof">
        <p className="text-sm text-slate-600">Confirm with your PIN or a passkey: a session alone cannot change how you sign in.</p>
        <StepUpFields error={error} />
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-1.5" data-testid="factor-proof">
      <p className="text-sm text-slate-600">Your account has no PIN or passkey yet: confirm with a code we e-mail to your address.</p>
      <EmailCodeField requestCode={requestFactorCodeAction} error={error} />
    </div>
  );
}
