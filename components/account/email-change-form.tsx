'use client';

import { useActionState } from 'react';
import { confirmEmailChangeAction, startEmailChangeAction } from '@/app/(account)/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import type { FormState } from '@/lib/auth/form-state';
import { StepUpFields } from './step-up-fields';

/** Changing the e-mail: the PIN (or a passkey), then a code sent to each of the old and the new address. */
export function EmailChangeForm() {
  const [started, start, starting] = useActionState<FormState, FormData>(startEmailChangeAction, {});
  const [confirmed, confirm, confirming] = useActionState<FormState, FormData>(confirmEmailChangeAction, {});
  const newEmail = started.notice ? started.values?.newEmail : undefined;
  if (newEmail) {
    return (
      <form action={confirm} className="flex flex-col gap-3" noValidate>
        <Notice tone="success">{started.notice}</Notice>
        <input type="hidden" name="newEmail" value={newEmail} />
        <Field label="Code sent to your current address" name="oldCode" inputMode="numeric" autoComplete="off" required />
        <Field label={`Code sent to ${newEmail}`} name="newCode" inputMode="numeric" autoComplete="off" required />
        {confirmed.error && <Notice tone="error">{confirmed.error.message}</Notice>}
        <Button type="submit" disabled={confirming}>
          Change e-mail
        </Button>
      </form>
    );
  }
  return (
    <form action={start} className="flex flex-col gap-3" noValidate>
      <Field
        label="New e-mail"
        name="newEmail"
        type="email"
        required
        defaultValue={started.values?.newEmail}
        error={started.error?.param === 'newEmail' ? started.error.message : undefined}
      />
      <StepUpFields error={started.error?.param === 'pin' ? started.error.message : undefined} />
      {started.error && !['newEmail', 'pin'].includes(started.error.param ?? '') && <Notice tone="error">{started.error.message}</Notice>}
      <Button type="submit" disabled={starting}>
        Send codes
      </Button>
    </form>
  );
}
