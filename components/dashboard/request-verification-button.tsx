'use client';

import { useActionState } from 'react';
import { requestVerificationAction } from '@/app/dashboard/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';

export function RequestVerificationButton({ requested }: { requested: boolean }) {
  const [state, action, pending] = useActionState(requestVerificationAction, {});
  if (requested || state.notice)
    return <Notice tone="success">{state.notice ?? 'Verification requested. Support will contact you.'}</Notice>;
  return (
    <form action={action}>
      {state.error && <Notice tone="error">{state.error.message}</Notice>}
      <Button type="submit" disabled={pending}>
        Request business verification
      </Button>
    </form>
  );
}
