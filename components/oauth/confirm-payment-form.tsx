'use client';

import { useActionState, useEffect } from 'react';
import { confirmPaymentRequestAction, type ConfirmPaymentState } from '@/app/oauth/pay/actions';
import { PinField } from '@/components/account/pin-fields';
import { Button } from '@/components/ui/button';
import type { CheckoutView } from '@/lib/charges/checkout-view';
import type { PaymentRequestForUser } from '@/lib/oauth/payment-requests';

/** Closing the SDK's popup a moment after the outcome: the app learns it by polling the request. */
const POPUP_CLOSE_DELAY_MS = 1500;

/** The app's payment request: who asks, what the charge buys, the PIN; the app never sees any of it typed. */
export function ConfirmPaymentForm({
  request,
  charge,
  email,
  isPopup,
  allowance,
}: {
  request: PaymentRequestForUser;
  charge: CheckoutView;
  email: string;
  isPopup: boolean;
  /** The user's spending allowance for the merchant covers the charge: one tap, no PIN (exact decimal texts). */
  allowance: { left: string; perDay: string } | null;
}) {
  const [state, action, pending] = useActionState<ConfirmPaymentState, FormData>(confirmPaymentRequestAction, {});
  const outcome = state.outcome ?? (request.status === 'confirmed' ? { kind: 'paid' as const, txHash: request.txHash ?? '' } : undefined);
  const settled = outcome !== undefined;
  useEffect(() => {
    if (!settled || !isPopup) return;
    const timer = window.setTimeout(() => window.close(), POPUP_CLOSE_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [settled, isPopup]);
  const header = (
    <div>
      <p className="text-sm font-semibold uppercase tracking-wide text-brand-600">Chargeport</p>
      <h1 className="text-xl font-semibold" data-testid="payment-request-title">
        {request.appName} asks you to pay {charge.total} {charge.token.symbol}
      </h1>
      <p className="text-sm text-slate-600">
        to {charge.merchantName} on {charge.chainName}
        {charge.isTest ? ' (test network)' : ''} · signed in as {email}
      </p>
    </div>
  );
  if (outcome?.kind === 'paid') {
    return (
      <>
        {header}
        <p
          role="status"
          data-testid="payment-request-outcome"
          data-status="paid"
          className="rounded-lg bg-emerald-50 p-4 text-sm text-emerald-900"
        >
          Payment sent. {request.appName} will see it confirmed in a moment
          {isPopup ? '; this window closes by itself.' : ': go back to it.'}
          {outcome.txHash && <span className="mt-1 block break-all font-mono text-xs">{outcome.txHash}</span>}
        </p>
      </>
    );
  }
  if (outcome?.kind === 'declined' || request.status === 'declined' || request.status === 'expired') {
    return (
      <>
        {header}
        <p role="status" data-testid="payment-request-outcome" data-status="declined" className="rounded-lg bg-slate-100 p-4 text-sm">
          {request.status === 'expired' ? 'This request expired: start again from the app.' : 'Declined. Nothing was paid.'}
        </p>
      </>
    );
  }
  return (
    <>
      {header}
      <ul className="divide-y divide-slate-100 rounded-xl bg-white p-4 text-sm ring-1 ring-slate-200">
        {charge.items.map((item, index) => (
          <li key={index} className="flex justify-between gap-3 py-1.5">
            <span>
              {item.quantity} × {item.name}
            </span>
            <span className="font-mono">
              {item.lineTotal} {charge.token.symbol}
            </span>
          </li>
        ))}
        <li className="flex justify-between gap-3 py-1.5 font-semibold">
          <span>Total</span>
          <span className="font-mono">
            {charge.total} {charge.token.symbol}
          </span>
        </li>
      </ul>
      <form action={action} className="flex flex-col gap-3" noValidate>
        <input type="hidden" name="requestId" value={request.id} />
        {allowance && state.error?.code !== 'step_up_required' ? (
          <>
            <p className="text-sm text-slate-600" data-testid="allowance-one-tap">
              Paid from your Chargeport balance, within your spending allowance for {charge.merchantName}: {allowance.left}{' '}
              {charge.token.symbol} left today (of {allowance.perDay} a day). No PIN needed.
            </p>
            {state.error && (
              <p role="alert" className="text-sm text-rose-700">
                {state.error.message}
              </p>
            )}
          </>
        ) : (
          <>
            <p className="text-sm text-slate-600">
              Paid from your Chargeport balance. Type your PIN here, on Chargeport — never in a game or app.
            </p>
            <PinField label="PIN" name="pin" error={state.error?.message} autoFocus />
          </>
        )}
        <div className="flex flex-wrap justify-end gap-2">
          <Button type="submit" name="decision" value="decline" variant="secondary" disabled={pending}>
            Decline
          </Button>
          <Button type="submit" name="decision" value="pay" disabled={pending}>
            {pending ? 'Paying…' : `Pay ${charge.total} ${charge.token.symbol}`}
          </Button>
        </div>
      </form>
    </>
  );
}
