'use client';

import { useState, useTransition, type FormEvent } from 'react';
import { payWithFiatAction, type FiatPayState } from '@/app/checkout/[chargeId]/fiat-actions';
import { Amount } from '@/components/ui/amount';
import { Button } from '@/components/ui/button';
import { formatFiat } from '@/lib/format-amount';
import { FIAT_METHOD_LABELS, type FiatMethod } from '@/lib/onramp/fiat-methods';
import type { FiatPaymentOption } from '@/lib/onramp/fiat-payment-options';
import type { MinimumPurchasePreview } from '@/lib/onramp/pay-charge-with-fiat';

export interface FiatOrderStatus {
  status: string;
  providerName: string;
  amount: string;
  failureReason: string | null;
  checkoutUrl: string | null;
  purpose: string;
  chargePaymentError: string | null;
}

/**
 * "Pay with card, bank transfer, Apple Pay or Google Pay": the on-ramp providers serving the consumer's
 * country for this token. The provider delivers the amount due to the charge's deposit address, so the
 * live status above completes the charge like any other payment. Below a provider's minimum the buyer
 * sees the minimum and what stays in their Chargeport balance before buying it (ADR 0019): signed in,
 * the order buys the minimum into their wallet, which pays the charge; otherwise they sign in or create
 * an account first.
 */
export function FiatMethods({
  chargeId,
  popupOrigin,
  options,
  countryName,
  tokenLabel,
  latestOrder,
  minimumPreviews = {},
  due,
  symbol,
  signedIn = false,
  signInUrl,
}: {
  chargeId: string;
  popupOrigin?: string;
  options: FiatPaymentOption[];
  countryName: string;
  tokenLabel: string;
  latestOrder?: FiatOrderStatus;
  minimumPreviews?: Record<string, MinimumPurchasePreview | undefined>;
  /** The amount due, exact decimal text ("4.99"), in `symbol`. */
  due: string;
  symbol: string;
  signedIn?: boolean;
  signInUrl?: string;
}) {
  const available = options.filter((option) => option.available);
  const [chosenProviderId, setProviderId] = useState<string>();
  const [chosenMethod, setMethod] = useState<FiatMethod>();
  // The choice may no longer be offered after a location change: fall back to the best available.
  const provider = available.find((option) => option.providerId === chosenProviderId) ?? available[0];
  const providerId = provider?.providerId;
  const method = chosenMethod && provider?.methods.includes(chosenMethod) ? chosenMethod : provider?.methods[0];
  const [state, setState] = useState<FiatPayState>({});
  const [pending, startTransition] = useTransition();
  const [popupBlocked, setPopupBlocked] = useState(false);
  const buyMinimum = provider?.buyMinimum;
  const preview = provider ? minimumPreviews[provider.providerId] : undefined;

  // The provider's tab opens on the click itself (a window opened after an await is blocked as a popup),
  // and is pointed at the provider's screen once the order exists.
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const tab = window.open('about:blank', '_blank');
    startTransition(async () => {
      const result = await payWithFiatAction({}, form);
      setState(result);
      if (result.checkoutUrl && tab) {
        tab.opener = null;
        tab.location.href = result.checkoutUrl;
      } else {
        tab?.close();
      }
      setPopupBlocked(!tab);
    });
  }

  return (
    <section aria-labelledby="fiat-heading" className="flex flex-col gap-3" data-testid="fiat-methods">
      <h2 id="fiat-heading" className="text-sm font-semibold">
        Pay with card, bank transfer, Apple Pay or Google Pay
      </h2>
      {latestOrder && <LatestOrder order={latestOrder} />}
      {state.checkoutUrl ? (
        <p role="status" className="text-sm text-slate-700" data-testid="fiat-started">
          Finish the payment in the provider&apos;s window. This page updates when the funds arrive.{' '}
          {popupBlocked && (
            <a
              href={state.checkoutUrl}
              target="_blank"
              rel="noopener"
              className="font-semibold text-brand-600 underline underline-offset-4"
            >
              Open the payment page
            </a>
          )}
        </p>
      ) : options.length ? (
        <form onSubmit={submit} className="flex flex-col gap-3">
          <input type="hidden" name="chargeId" value={chargeId} />
          {popupOrigin && <input type="hidden" name="popupOrigin" value={popupOrigin} />}
          <fieldset className="flex flex-col gap-1">
            <legend className="sr-only">Provider</legend>
            {options.map((option) => (
              <label
                key={option.providerId}
                className={`flex items-start gap-2 text-sm ${option.available ? '' : 'text-slate-400'}`}
                data-testid={`fiat-provider-${option.providerId}`}
              >
                <input
                  type="radio"
                  name="providerId"
                  value={option.providerId}
                  disabled={!option.available}
                  checked={providerId === option.providerId}
                  onChange={() => {
                    setProviderId(option.providerId);
                    setMethod(option.methods[0]);
                  }}
                  className="mt-0.5"
                />
                <span>
                  <span className="font-medium">{option.providerName}</span>
                  {option.available ? (
                    <span className="text-slate-500">
                      {' '}
                      ·{' '}
                      {option.buyMinimum
                        ? `minimum ${formatUsdText(option.buyMinimum.minimumUsd)}, more than this payment`
                        : `from ${formatUsdText(option.minimumUsd)}`}
                    </span>
                  ) : (
                    <span className="block text-xs">{option.reason}</span>
                  )}
                </span>
              </label>
            ))}
          </fieldset>
          {provider && (
            <>
              <div className="flex flex-wrap gap-2" role="radiogroup" aria-label="Payment method">
                {provider.methods.map((m) => (
                  <label
                    key={m}
                    className={`cursor-pointer rounded-lg px-3 py-1.5 text-sm ring-1 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-600 ${method === m ? 'bg-brand-50 ring-brand-600' : 'ring-slate-300'}`}
                  >
                    <input
                      type="radio"
                      name="paymentMethod"
                      value={m}
                      checked={method === m}
                      onChange={() => setMethod(m)}
                      className="sr-only"
                    />
                    {FIAT_METHOD_LABELS[m]}
                  </label>
                ))}
              </div>
              {buyMinimum && (
                <div className="rounded-lg bg-amber-50 p-3 text-sm text-amber-950 ring-1 ring-amber-200" data-testid="buy-minimum">
                  <p>
                    {provider.providerName}&rsquo;s minimum purchase is {formatUsdText(buyMinimum.minimumUsd)}, more than this payment.{' '}
                    {preview ? (
                      <>
                        Buy the minimum instead: <Amount value={preview.minimumCrypto} symbol={symbol} exact className="font-semibold" />{' '}
                        for {formatFiat(preview.total, preview.fiatCurrency)} (fees included).{' '}
                        <Amount value={due} symbol={symbol} exact className="font-semibold" /> pays this charge and{' '}
                        <Amount value={preview.remainder} symbol={symbol} exact className="font-semibold" testId="buy-minimum-remainder" />{' '}
                        stays in your Chargeport balance.
                      </>
                    ) : (
                      <>Buy the minimum instead: this charge is paid from it and the rest stays in your Chargeport balance.</>
                    )}
                  </p>
                  {!signedIn && (
                    <p className="mt-2">
                      The rest is kept in your own Chargeport wallet, so{' '}
                      <a href={signInUrl} className="font-semibold underline underline-offset-4" data-testid="buy-minimum-sign-in">
                        sign in or create an account
                      </a>{' '}
                      first.
                    </p>
                  )}
                </div>
              )}
              {buyMinimum && signedIn && <input type="hidden" name="buyMinimum" value="true" />}
              <Button type="submit" disabled={pending || !method || (!!buyMinimum && !signedIn)}>
                {pending
                  ? 'Opening…'
                  : buyMinimum
                    ? `Buy the minimum with ${provider.providerName}`
                    : `Continue to ${provider.providerName}`}
              </Button>
            </>
          )}
          {state.error && (
            <p role="alert" className="text-sm text-rose-700">
              {state.error.message}
            </p>
          )}
        </form>
      ) : (
        <p className="text-sm text-slate-600">
          Not offered in {countryName} for {tokenLabel} yet. Change your location at the top of the page, or pay from a balance or a wallet.
        </p>
      )}
    </section>
  );
}

function LatestOrder({ order }: { order: FiatOrderStatus }) {
  if (order.status === 'failed') {
    return (
      <p role="alert" className="text-sm text-rose-700" data-testid="fiat-order-failed">
        Your {order.providerName} payment failed.{order.failureReason ? ` ${order.failureReason}` : ''} Nothing was charged to this order;
        try again or pay another way.
      </p>
    );
  }
  if (order.status === 'pending') {
    return (
      <p role="status" className="text-sm text-slate-700" data-testid="fiat-order-pending">
        {order.providerName} received your payment; {order.amount} is on its way
        {order.purpose === 'charge_minimum' ? ' to your Chargeport wallet, which then pays this charge' : ''}.
      </p>
    );
  }
  if (order.purpose === 'charge_minimum' && order.status === 'completed') {
    return order.chargePaymentError ? (
      <p role="alert" className="text-sm text-rose-700" data-testid="fiat-order-failed">
        {order.amount} arrived in your Chargeport wallet but could not pay this charge: {order.chargePaymentError} It stays in your balance.
      </p>
    ) : (
      <p role="status" className="text-sm text-slate-700" data-testid="fiat-order-delivered">
        {order.amount} arrived in your Chargeport wallet; this charge is being paid from it.
      </p>
    );
  }
  if (order.status === 'created' && order.checkoutUrl) {
    return (
      <p className="text-sm text-slate-600">
        A {order.providerName} payment is waiting for you.{' '}
        <a href={order.checkoutUrl} target="_blank" rel="noopener" className="font-semibold text-brand-600 underline underline-offset-4">
          Open it
        </a>
      </p>
    );
  }
  return null;
}

/** "20" → "$20", "20.5" → "$20.50": providers' minimums are whole dollars most of the time. */
function formatUsdText(amount: string): string {
  const text = formatFiat(amount, 'USD');
  return text.endsWith('.00') ? text.slice(0, -3) : text;
}
