'use client';

import { useActionState } from 'react';
import { changePinAction, requestFirstPinCodeAction, setPinAction } from '@/app/(account)/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { EmailCodeField } from './factor-proof-fields';
import { PinField, errorFor } from './pin-fields';

/**
 * The first PIN. Right after an account's first sign-in the session alone sets it; later (`needsEmailCode`)
 * it also asks for a code e-mailed to the account (lib/accounts/set-first-pin.ts), and says so up front.
 */
export function SetPinForm({ next, needsEmailCode }: { next?: string; needsEmailCode: boolean }) {
  const [state, action, pending] = useActionState(setPinAction, {});
  const fields = ['pin', 'confirm', 'emailCode'] as const;
  return (
    <form action={action} className="flex flex-col gap-4" noValidate>
      {next && <input type="hidden" name="next" value={next} />}
      {needsEmailCode && (
        <p className="text-sm text-slate-600" data-testid="pin-needs-email-code">
          To set your PIN now, confirm with a code we e-mail to your address: outside your first sign-in, a session alone cannot set it.
        </p>
      )}
      <PinField label="New PIN (6 digits)" name="pin" autoFocus error={errorFor(state, 'pin', fields)} />
      <PinField label="Repeat the PIN" name="confirm" error={errorFor(state, 'confirm', fields)} />
      {needsEmailCode && <EmailCodeField requestCode={requestFirstPinCodeAction} error={errorFor(state, 'emailCode', fields)} />}
      <Button type="submit" disabled={pending}>
        Set PIN
      </Button>
    </form>
  );
}

export function ChangePinForm() {
  const [state, action, pending] = useActionState(changePinAction, {});
  const fields = ['oldPin', 'pin', 'confirm'] as const;
  return (
    <form action={action} className="flex flex-col gap-4" noValidate>
      {state.notice && <Notice tone="success">{state.notice}</Notice>}
      <PinField label="Current PIN" name="oldPin" error={errorFor(state, 'oldPin', fields)} />
      <PinField label="New PIN (6 digits)" name="pin" error={errorFor(state, 'pin', fields)} />
      <PinField label="Repeat the new PIN" name="confirm" error={errorFor(state, 'confirm', fields)} />
      <Button type="submit" disabled={pending}>
        Change PIN
      </Button>
    </form>
  );
}
