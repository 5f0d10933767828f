'use client';

import { useActionState } from 'react';
import { revokeAllowanceAction } from '@/app/(account)/wallet/allowances/actions';
import { Button } from '@/components/ui/button';
import type { FormState } from '@/lib/auth/form-state';

/** Revoke at once: no PIN needed to take a permission away. */
export function RevokeAllowanceButton({ allowanceId, merchantName }: { allowanceId: string; merchantName: string }) {
  const [state, action, pending] = useActionState<FormState, FormData>(revokeAllowanceAction, {});
  return (
    <form action={action} className="flex flex-col items-start gap-1 sm:items-end">
      <input type="hidden" name="allowanceId" value={allowanceId} />
      <Button type="submit" variant="secondary" disabled={pending} aria-label={`Revoke the spending allowance for ${merchantName}`}>
        {pending ? 'Revoking…' : 'Revoke'}
      </Button>
      {state.error && (
        <p role="alert" className="text-sm text-rose-700">
          {state.error.message}
        </p>
      )}
    </form>
  );
}
