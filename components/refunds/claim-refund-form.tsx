'use client';

import { useActionState } from 'react';
import { claimRefundAction } from '@/app/refunds/claim/[token]/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import type { FormState } from '@/lib/auth/form-state';

/**
 * The payer's choice on a refund claim link: an address of the chain, or (signed in) their Chargeport
 * balance. Submitting twice is one refund (the server locks the claim).
 */
export function ClaimRefundForm({ token, chainName, signedInAs }: { token: string; chainName: string; signedInAs?: string }) {
  const [state, action, pending] = useActionState<FormState, FormData>(claimRefundAction, {});
  if (state.notice) return <Notice tone="success">{state.notice}</Notice>;
  const addressError = state.error?.param === 'address' ? state.error.message : undefined;
  const general = state.error && !addressError ? state.error.message : undefined;
  return (
    <div className="flex flex-col gap-4">
      {general && <Notice tone="error">{general}</Notice>}
      <form action={action} className="flex flex-col gap-3" aria-label="Refund to an address">
        <input type="hidden" name="token" value={token} />
        <input type="hidden" name="to" value="address" />
        <Field
          label={`Your ${chainName} address`}
          name="address"
          defaultValue={state.values?.address}
          error={addressError}
          placeholder="0x…"
          hint="An address you control on this network (not an exchange deposit address that needs a memo)."
          autoComplete="off"
        />
        <Button type="submit" disabled={pending}>
          {pending ? 'Sending…' : 'Send the refund to this address'}
        </Button>
      </form>
      {signedInAs && (
        <form action={action} aria-label="Refund to my Chargeport balance">
          <input type="hidden" name="token" value={token} />
          <input type="hidden" name="to" value="balance" />
          <Button type="submit" disabled={pending}>
            {`To my Chargeport balance (${signedInAs})`}
          </Button>
        </form>
      )}
    </div>
  );
}
