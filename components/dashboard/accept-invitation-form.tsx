'use client';

import { useActionState } from 'react';
import { acceptInvitationAction } from '@/app/invitations/[token]/actions';
import { Button } from '@/components/ui/button';
import type { FormState } from '@/lib/auth/form-state';

export function AcceptInvitationForm({ token }: { token: string }) {
  const [state, action, pending] = useActionState<FormState, FormData>(acceptInvitationAction, {});
  return (
    <form action={action} className="flex flex-col gap-2">
      <input type="hidden" name="token" value={token} />
      <Button type="submit" disabled={pending}>
        {pending ? 'Joining…' : 'Accept invitation'}
      </Button>
      {state.error && (
        <p role="alert" className="text-sm text-rose-700">
          {state.error.message}
        </p>
      )}
    </form>
  );
}
