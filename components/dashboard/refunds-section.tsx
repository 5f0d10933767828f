'use client';

import { useActionState } from 'react';
import { refundChargeAction } from '@/app/dashboard/charges/[chargeId]/actions';
import { StepUpFields } from '@/components/account/step-up-fields';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import type { FormState } from '@/lib/auth/form-state';
import type { RefundList } from '@/lib/refunds/schemas';

const STATUS_LABEL = {
  awaiting_claim: 'Claim link: waiting for the payer',
  expired: 'Claim link expired (refundable again)',
  pending: 'Pending',
  submitted: 'Sent, waiting for confirmations',
  succeeded: 'Refunded',
  failed: 'Failed',
} as const;

/**
 * The charge page's refunds: what was refunded, what can still be, and (owners and admins) the Refund form
 * with step-up (PIN or passkey). Refunds go to the payer; an address that did not pay needs an owner (and
 * what a withdrawal needs). `requestId` is the form's idempotency id: a double submit is one refund.
 */
export function RefundsSection({
  chargeId,
  symbol,
  refunds,
  canRefund,
  requestId,
}: {
  chargeId: string;
  symbol: string;
  refunds: RefundList;
  canRefund: boolean;
  requestId: string;
}) {
  const [state, action, pending] = useActionState<FormState, FormData>(refundChargeAction, {});
  const errorFor = (param: string) => (state.error?.param === param ? state.error.message : undefined);
  const general =
    state.error && !['amount', 'toAddress', 'reason', 'pin'].includes(state.error.param ?? '') ? state.error.message : undefined;
  const refundable = refunds.refundable.amount;
  return (
    <section
      aria-labelledby="section-refunds"
      className="flex flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200"
      data-testid="refunds"
    >
      <h2 id="section-refunds" className="font-semibold">
        Refunds
      </h2>
      <p className="text-sm text-slate-700">
        Refundable now: <span className="font-mono tabular-nums whitespace-nowrap">{`${refundable} ${symbol}`}</span>
      </p>
      {refunds.data.length > 0 && (
        <ul className="flex flex-col gap-2 text-sm">
          {refunds.data.map((refund) => (
            <li key={refund.id} className="flex flex-wrap gap-x-3" data-testid="refund-row">
              <span className="font-mono tabular-nums whitespace-nowrap">{`${refund.amount} ${refund.token.symbol}`}</span>
              <span>{STATUS_LABEL[refund.status]}</span>
              {refund.destination && <span className="break-all font-mono text-xs text-slate-600">to {refund.destination}</span>}
              {refund.claimExpiresAt && (
                <span className="text-xs text-slate-600">{`unclaimed, returns to you after ${new Date(refund.claimExpiresAt).toUTCString()}`}</span>
              )}
              {refund.failureReason && <span className="text-red-700">{refund.failureReason}</span>}
            </li>
          ))}
        </ul>
      )}
      {canRefund && refunds.refundable.amountBaseUnits !== '0' && (
        <form action={action} className="flex max-w-md flex-col gap-3" aria-label="Refund this charge">
          <input type="hidden" name="chargeId" value={chargeId} />
          <input type="hidden" name="requestId" value={requestId} />
          {state.notice && <Notice tone="success">{state.notice}</Notice>}
          {general && <Notice tone="error">{general}</Notice>}
          <Field
            label={`Amount (${symbol})`}
            name="amount"
            inputMode="decimal"
            defaultValue={state.values?.amount ?? refundable}
            error={errorFor('amount')}
            hint="Everything refundable by default."
          />
          <Field
            label="Refund to (optional)"
            name="toAddress"
            defaultValue={state.values?.toAddress}
            error={errorFor('toAddress')}
            placeholder="0x… — default: the address that paid"
            hint="Leave empty to refund whoever paid (a claim link when the sender was not the payer). Another address needs an owner, two-factor sign-in and is e-mailed to all owners."
          />
          <Field label="Reason (optional)" name="reason" defaultValue={state.values?.reason} error={errorFor('reason')} />
          <StepUpFields error={errorFor('pin')} />
          <Button type="submit" disabled={pending}>
            {pending ? 'Refunding…' : 'Refund'}
          </Button>
        </form>
      )}
    </section>
  );
}
