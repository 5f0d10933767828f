'use client';

import { useActionState, useState } from 'react';
import { payFromBalanceAction, type PayState } from '@/app/checkout/[chargeId]/actions';
import { errorFor, PinField } from '@/components/account/pin-fields';
import { Field } from '@/components/ui/field';
import { Amount } from '@/components/ui/amount';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { formatExactTokenAmount, formatTokenAmount } from '@/lib/format-amount';

/** The fields an error may name (lib/allowances/approve-spending-allowance.ts names amountPerDay and days). */
const FIELDS = ['pin', 'amountPerDay', 'days'] as const;

export function PayFromBalanceForm({
  chargeId,
  total,
  symbol,
  balance,
  enough,
  merchantName,
  allowance,
  topUp,
}: {
  chargeId: string;
  /** Exact decimal texts. */
  total: string;
  symbol: string;
  balance: string;
  enough: boolean;
  merchantName: string;
  /** The buyer's spending allowance for this merchant covers the charge: one tap, no PIN (exact decimal texts). */
  allowance: { left: string; perDay: string } | null;
  /** How to add what is missing: send it to the consumer's own service wallet (or buy it, when a provider serves the buyer). */
  topUp: { shortfall: string; chainName: string; walletAddress: string; onrampUrl: string | null };
}) {
  const [state, action, pending] = useActionState<PayState, FormData>(payFromBalanceAction, {});
  const [approving, setApproving] = useState(false);
  if (state.txHash) {
    return (
      <div role="status" className="flex flex-col gap-1 text-sm text-slate-700">
        <p>
          Payment sent. Waiting for the network… <span className="break-all font-mono text-xs">{state.txHash}</span>
        </p>
        {state.allowanceApproved && (
          <p data-testid="allowance-approved">
            Spending allowance approved: your next purchases from {merchantName} within it need no PIN. See or revoke it under Wallet →
            Allowances.
          </p>
        )}
      </div>
    );
  }
  // One tap while the allowance covers the charge; the PIN once the server says it does not (step_up_required).
  const oneTap = allowance !== null && state.error?.code !== 'step_up_required';
  const shown = formatTokenAmount(total, symbol);
  const exact = formatExactTokenAmount(total, symbol);
  return (
    <form action={action} className="flex flex-col gap-3" noValidate>
      <input type="hidden" name="chargeId" value={chargeId} />
      <p className="text-sm text-slate-600">
        Your balance: <Amount value={balance} symbol={symbol} className="font-mono" testId="balance" />
      </p>
      {enough && oneTap && allowance ? (
        <>
          <p className="text-sm text-slate-700" data-testid="allowance-one-tap">
            Within your spending allowance for {merchantName}: <Amount value={allowance.left} symbol={symbol} /> left today (of{' '}
            <Amount value={allowance.perDay} symbol={symbol} /> a day). No PIN needed.
          </p>
          {state.error && (
            <p role="alert" className="text-sm text-rose-700">
              {state.error.message}
            </p>
          )}
          <Button type="submit" disabled={pending}>
            {pending ? 'Paying…' : `Pay ${shown}`}
          </Button>
          {shown !== exact && <p className="text-xs text-slate-500">Exactly {exact} is sent.</p>}
        </>
      ) : enough ? (
        <>
          <PinField label="PIN" name="pin" error={errorFor(state, 'pin', FIELDS)} />
          <fieldset className="flex flex-col gap-2 rounded-lg border border-slate-200 p-3 text-sm">
            <legend className="px-1 text-slate-700">One-tap purchases</legend>
            <label className="flex items-start gap-2">
              <input
                type="checkbox"
                name="approveAllowance"
                className="mt-1"
                checked={approving}
                onChange={(event) => setApproving(event.target.checked)}
              />
              <span>
                Approve a spending allowance for {merchantName}: its later purchases, up to an amount a day, are paid with one tap.
              </span>
            </label>
            {approving && (
              <div className="grid grid-cols-2 gap-2">
                <Field
                  label={`${symbol} per day`}
                  name="amountPerDay"
                  inputMode="decimal"
                  defaultValue={state.values?.amountPerDay || total}
                  error={errorFor(state, 'amountPerDay', FIELDS)}
                  required
                />
                <Field
                  label="For days (1–90)"
                  name="allowanceDays"
                  type="number"
                  min={1}
                  max={90}
                  defaultValue={state.values?.allowanceDays || '30'}
                  error={errorFor(state, 'days', FIELDS)}
                  required
                />
              </div>
            )}
          </fieldset>
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
