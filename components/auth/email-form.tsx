'use client';

import { useActionState } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import type { FormState } from '@/lib/auth/form-state';

export function EmailForm({
  action,
  submitLabel,
  defaultEmail,
  callbackUrl,
}: {
  action: (state: FormState, form: FormData) => Promise<FormState>;
  submitLabel: string;
  defaultEmail?: string;
  callbackUrl?: string;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="flex flex-col gap-4" noValidate>
      {callbackUrl && <input type="hidden" name="callbackUrl" value={callbackUrl} />}
      <Field
        label="E-mail"
        name="email"
        type="email"
        autoComplete="email"
        required
        defaultValue={state.values?.email ?? defaultEmail}
        error={state.error?.message}
      />
      <Button type="submit" disabled={pending}>
        {pending ? 'Sending…' : submitLabel}
      </Button>
    </form>
  );
}
