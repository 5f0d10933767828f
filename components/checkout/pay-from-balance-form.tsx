'use client';

import { useActionState } from 'react';
import { payFromBalanceAction, type PayState } from '@/app/checkout/[chargeId]/actions';
import { PinField } from '@/components/account/pin-fields';
import { Button } from '@/components/ui/button';

export function PayFromBalanceForm({ chargeId, total, balance, enough }: { chargeId: string; total: string; balance: string; enough: boolean }) {
  const [state, action, pending] = useActionState<PayState, FormData>(payFromBalanceAction, {});
  if (state.txHash) {
    return (
      <p role="status" className="text-sm text-slate-700">
        Payment sent. Waiting for the network… <span className="break-all font-mono text-xs">{state.txHash}</span>
      </p>
    );
  }
  return (
    <form action={action} className="flex flex-col gap-3" noValidate>
      <input type="hidden" name="chargeId" value={chargeId} />
      <p className="text-sm text-slate-600">
        Your balance: <span className="font-mono" data-testid="balance">{balance}</span>
      </p>
      {enough ? (
        <>
          <PinField label="PIN" name="pin" error={state.error?.message} />
          <Button type="submit" disabled={pending}>
            {pending ? 'Paying…' : `Pay ${total}`}
          </Button>
        </>
      ) : (
        <p role="alert" className="text-sm text-rose-700">
          Not enough balance for this payment. Top up your wallet, then pay.
        </p>
      )}
    </form>
  );
}
