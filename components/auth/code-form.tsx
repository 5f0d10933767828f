'use client';

import { useActionState } from 'react';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { CodeField } from '@/components/ui/code-field';
import type { FormState } from '@/lib/auth/form-state';

type Action = (state: FormState, form: FormData) => Promise<FormState>;
const noResend: Action = async (state) => state;

/** Enter the 6-digit code; a second form re-sends it (throttled server-side). */
export function CodeForm({
  email,
  action,
  resendAction,
  purpose,
  callbackUrl,
  submitLabel,
}: {
  email: string;
  action: Action;
  resendAction?: Action;
  purpose?: 'signup' | 'signin';
  callbackUrl?: string;
  submitLabel: string;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  const [resendState, resendFormAction, resending] = useActionState<FormState, FormData>(resendAction ?? noResend, {});
  return (
    <div className="flex flex-col gap-4">
      <form action={formAction} className="flex flex-col gap-4" noValidate>
        <input type="hidden" name="email" value={email} />
        {callbackUrl && <input type="hidden" name="callbackUrl" value={callbackUrl} />}
        <CodeField autoFocus error={state.error?.message} hint={`Sent to ${email}. It expires in 10 minutes.`} />
        <Button type="submit" disabled={pending}>
          {pending ? 'Checking…' : submitLabel}
        </Button>
      </form>
      {resendAction && purpose && (
        <form action={resendFormAction} className="text-center">
          <input type="hidden" name="email" value={email} />
          <input type="hidden" name="purpose" value={purpose} />
          {resendState.notice && <Notice tone="success">{resendState.notice}</Notice>}
          {resendState.error && <Notice tone="error">{resendState.error.message}</Notice>}
          <Button type="submit" variant="ghost" disabled={resending}>
            Send a new code
          </Button>
        </form>
      )}
    </div>
  );
}
