'use client';

import { useActionState } from 'react';
import { changePinAction, setPinAction } from '@/app/(account)/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { PinField, errorFor } from './pin-fields';

export function SetPinForm({ next }: { next?: string }) {
  const [state, action, pending] = useActionState(setPinAction, {});
  const fields = ['pin', 'confirm'] as const;
  return (
    <form action={action} className="flex flex-col gap-4" noValidate>
      {next && <input type="hidden" name="next" value={next} />}
      <PinField label="New PIN (6 digits)" name="pin" autoFocus error={errorFor(state, 'pin', fields)} />
      <PinField label="Repeat the PIN" name="confirm" error={errorFor(state, 'confirm', fields)} />
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
