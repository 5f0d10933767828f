'use client';

import { useActionState } from 'react';
import { confirmEmailVerification, requestEmailVerificationCode } from '@/app/(auth)/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { CodeField } from '@/components/ui/code-field';
import { Field } from '@/components/ui/field';

/** Two steps on one page: the address, then the code sent to it. */
export function VerifyEmailForm() {
  const [requested, requestAction, requesting] = useActionState(requestEmailVerificationCode, {});
  const [confirmed, confirmAction, confirming] = useActionState(confirmEmailVerification, {});
  const email = requested.values?.email;
  const codeSent = Boolean(requested.notice && email);
  return (
    <div className="flex flex-col gap-4">
      <form action={requestAction} className="flex flex-col gap-4" noValidate>
        <Field
          label="E-mail"
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={email}
          error={requested.error?.message}
        />
        <Button type="submit" variant={codeSent ? 'secondary' : 'primary'} disabled={requesting}>
          {codeSent ? 'Send a new code' : 'Send me a code'}
        </Button>
      </form>
      {codeSent && (
        <form action={confirmAction} className="flex flex-col gap-4" noValidate>
          <Notice tone="success">{requested.notice}</Notice>
          <input type="hidden" name="email" value={email} />
          <CodeField autoFocus error={confirmed.error?.message} />
          <Button type="submit" disabled={confirming}>
            Verify e-mail
          </Button>
        </form>
      )}
    </div>
  );
}
