'use client';

import { useActionState } from 'react';
import { rollOnrampLinkKeyAction, type OnrampLinkKeyState } from '@/app/dashboard/settings/profile/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';

/** Dashboard → Profile → On-ramp links: create or roll the key that signs on-ramp links (docs/api.md, "On-ramp"). */
export function OnrampLinkKeyForm({ hasKey, canEdit }: { hasKey: boolean; canEdit: boolean }) {
  const [state, action, pending] = useActionState<OnrampLinkKeyState, FormData>(rollOnrampLinkKeyAction, {});
  return (
    <form action={action} className="flex flex-col gap-3">
      {state.notice && <Notice tone="success">{state.notice}</Notice>}
      {state.error && <Notice tone="error">{state.error.message}</Notice>}
      {state.key && (
        <p className="text-sm">
          Your key (shown once: keep it on your server): <code data-testid="onramp-link-key">{state.key}</code>
        </p>
      )}
      {canEdit && (
        <Button type="submit" variant={hasKey ? 'secondary' : 'primary'} disabled={pending}>
          {hasKey ? 'Roll the link key' : 'Create a link key'}
        </Button>
      )}
    </form>
  );
}
