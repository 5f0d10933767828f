'use client';

import { useActionState } from 'react';
import { payFromBalanceAction, type PayState } from '@/app/checkout/[chargeId]/actions';
import { PinField } from '@/components/account/pin-fields';
import { Button } from '@/components/ui/button';

export function PayFromBalanceForm({
  chargeId,
  total,
  balance,
  enough,
  topUp,
}: {
  chargeId: string;
  total: string;
  balance: string;
  enough: boolean;
  /** How to add what is missing: send it to the consumer's own service wallet. */
  topUp: { shortfall: string; chainName: string; walletAddress: string; onrampUrl: string };
}) {
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
        Your balance:{' '}
        <span className="font-mono" data-testid="balance">
          {balance}
        </span>
      </p>
      {enough ? (
        <>
          <PinField label="PIN" name="pin" error={state.error?.message} />
          <Button type="submit" disabled={pending}>
            {pending ? 'Paying…' : `Pay ${total}`}
          </Button>
        </>
      ) : (
        <div role="alert" className="flex flex-col gap-1 text-sm" data-testid="top-up">
          <p className="text-rose-700">Not enough balance: {topUp.shortfall} more is needed. Top up your wallet, then pay.</p>
          <p className="text-slate-600">
            Send at least {topUp.shortfall} on {topUp.chainName} to your Chargeport wallet:
          </p>
          <p className="break-all rounded-lg bg-slate-100 p-2 font-mono text-xs" data-testid="top-up-address">
            {topUp.walletAddress}
          </p>
          <a
            href={topUp.onrampUrl}
            target="_blank"
            rel="noopener"
            className="font-semibold text-brand-600 underline underline-offset-4"
            data-testid="top-up-onramp"
          >
            Or buy it with a card
          </a>
        </div>
      )}
    </form>
  );
}
