'use client';

import { useActionState } from 'react';
import { payFromBalanceAction, type PayState } from '@/app/checkout/[chargeId]/actions';
import { PinField } from '@/components/account/pin-fields';
import { Amount } from '@/components/ui/amount';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { formatExactTokenAmount, formatTokenAmount } from '@/lib/format-amount';

export function PayFromBalanceForm({
  chargeId,
  total,
  symbol,
  balance,
  enough,
  topUp,
}: {
  chargeId: string;
  /** Exact decimal texts. */
  total: string;
  symbol: string;
  balance: string;
  enough: boolean;
  /** How to add what is missing: send it to the consumer's own service wallet (or buy it, when a provider serves the buyer). */
  topUp: { shortfall: string; chainName: string; walletAddress: string; onrampUrl: string | null };
}) {
  const [state, action, pending] = useActionState<PayState, FormData>(payFromBalanceAction, {});
  if (state.txHash) {
    return (
      <p role="status" className="text-sm text-slate-700">
        Payment sent. Waiting for the network… <span className="break-all font-mono text-xs">{state.txHash}</span>
      </p>
    );
  }
  const shown = formatTokenAmount(total, symbol);
  const exact = formatExactTokenAmount(total, symbol);
  return (
    <form action={action} className="flex flex-col gap-3" noValidate>
      <input type="hidden" name="chargeId" value={chargeId} />
      <p className="text-sm text-slate-600">
        Your balance: <Amount value={balance} symbol={symbol} className="font-mono" testId="balance" />
      </p>
      {enough ? (
        <>
          <PinField label="PIN" name="pin" error={state.error?.message} />
          <Button type="submit" disabled={pending}>
            {pending ? 'Paying…' : `Pay ${shown}`}
          </Button>
          {shown !== exact && <p className="text-xs text-slate-500">Exactly {exact} is sent.</p>}
        </>
      ) : (
        <div role="alert" className="flex flex-col gap-2 text-sm" data-testid="top-up">
          <p className="text-rose-700">
            Not enough balance: <Amount value={topUp.shortfall} symbol={symbol} /> more is needed. Top up your wallet, then pay.
          </p>
          <p className="text-slate-600">
            Send at least <Amount value={topUp.shortfall} symbol={symbol} exact /> on {topUp.chainName} to your Chargeport wallet:
          </p>
          <p className="break-all rounded-lg bg-slate-100 p-2 font-mono text-xs" data-testid="top-up-address">
            {topUp.walletAddress}
          </p>
          <div>
            <CopyButton text={topUp.walletAddress} label="Copy address" compact />
          </div>
          {topUp.onrampUrl && (
            <a
              href={topUp.onrampUrl}
              target="_blank"
              rel="noopener"
              className="font-semibold text-brand-600 underline underline-offset-4"
              data-testid="top-up-onramp"
            >
              Or buy it with a card
            </a>
          )}
        </div>
      )}
    </form>
  );
}
