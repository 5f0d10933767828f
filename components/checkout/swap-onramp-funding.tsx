'use client';

import { useEffect, useState } from 'react';
import {
  placeSwapFundingOrderAction,
  quoteSwapFundingAction,
  swapProgressAction,
  type ActionError,
} from '@/app/checkout/[chargeId]/swap-actions';
import { Amount } from '@/components/ui/amount';
import { Button } from '@/components/ui/button';
import { formatFiat, formatTokenAmount } from '@/lib/format-amount';
import { FIAT_METHOD_LABELS, type FiatMethod } from '@/lib/onramp/fiat-methods';
import type { SwapFundingQuote } from '@/lib/swap/place-swap-funding-order';
import type { SwapProviderOption } from '@/lib/swap/swap-availability';
import type { SwapProgress } from '@/lib/swap/swap-progress';
import { SwapQuoteDetails } from './swap-quote-details';

const PROGRESS_POLL_MS = 3000;

/**
 * Branch B: buy USDC through the provider that supports the chain here, delivered to the charge's
 * deposit address; the service converts it and the page follows the conversion.
 */
export function SwapOnrampFunding({
  chargeId,
  providers,
  initialProgress,
}: {
  chargeId: string;
  providers: SwapProviderOption[];
  initialProgress: SwapProgress | null;
}) {
  const firstAvailable = providers.find((p) => p.available);
  const [providerId, setProviderId] = useState(firstAvailable?.providerId ?? '');
  const provider = providers.find((p) => p.providerId === providerId);
  const [method, setMethod] = useState<FiatMethod | ''>(firstAvailable?.methods[0] ?? '');
  const [quote, setQuote] = useState<SwapFundingQuote>();
  const [error, setError] = useState<ActionError>();
  const [placing, setPlacing] = useState(false);
  const [embedUrl, setEmbedUrl] = useState<string>();
  const [progress, setProgress] = useState(initialProgress);
  const following = progress !== null && progress.stage !== 'idle';

  useEffect(() => {
    if (!provider?.available || !method) return;
    let current = true;
    void quoteSwapFundingAction({ chargeId, providerId: provider.providerId, paymentMethod: method }).then((result) => {
      if (!current) return;
      if (!result.error) setQuote(result.data);
      else setError(result.error);
    });
    return () => {
      current = false;
    };
  }, [chargeId, provider, method]);

  useEffect(() => {
    if (!following || progress?.stage === 'swapped') return;
    const timer = setInterval(async () => {
      const next = await swapProgressAction(chargeId).catch(() => null);
      if (next) setProgress(next);
    }, PROGRESS_POLL_MS);
    return () => clearInterval(timer);
  }, [chargeId, following, progress?.stage]);

  async function buy(acceptMinimum: boolean) {
    if (!provider || !method) return;
    setPlacing(true);
    setError(undefined);
    // Opened now, in the click, so the browser does not block it; pointed at the provider once the order exists.
    const tab = window.open('', '_blank');
    const result = await placeSwapFundingOrderAction({ chargeId, providerId: provider.providerId, paymentMethod: method, acceptMinimum });
    setPlacing(false);
    if (result.error) {
      tab?.close();
      setError(result.error);
      return;
    }
    if (result.data.checkoutKind === 'embed') {
      tab?.close();
      setEmbedUrl(result.data.checkoutUrl);
    } else if (tab) tab.location.href = result.data.checkoutUrl;
    else window.location.assign(result.data.checkoutUrl);
    setProgress((await swapProgressAction(chargeId)) ?? null);
  }

  return (
    <div className="flex flex-col gap-3">
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-sm text-slate-600">Provider</legend>
        {providers.map((option) => (
          <label
            key={option.providerId}
            className={`flex items-start gap-2 text-sm ${option.available ? '' : 'text-slate-400'}`}
            data-testid={`swap-provider-${option.providerId}`}
          >
            <input
              type="radio"
              name="swap-provider"
              value={option.providerId}
              checked={providerId === option.providerId}
              disabled={!option.available}
              onChange={() => {
                setProviderId(option.providerId);
                setMethod(option.methods[0] ?? '');
                setQuote(undefined);
              }}
              className="mt-1"
            />
            <span>
              {option.displayName}
              {option.available ? (
                <span className="text-slate-500"> (from {formatFiat(option.minimumUsd, 'USD')})</span>
              ) : (
                <span className="block text-xs">{option.reason}</span>
              )}
            </span>
          </label>
        ))}
      </fieldset>
      {provider?.available && (
        <label className="flex flex-col gap-1 text-sm">
          <span className="text-slate-600">Payment method</span>
          <select
            value={method}
            onChange={(event) => {
              setMethod(event.target.value as FiatMethod);
              setQuote(undefined);
            }}
            className="min-h-11 rounded-lg border border-slate-300 bg-white px-3"
          >
            {provider.methods.map((m) => (
              <option key={m} value={m}>
                {FIAT_METHOD_LABELS[m]}
              </option>
            ))}
          </select>
        </label>
      )}
      {quote && (
        <div className="flex flex-col gap-2" data-testid="swap-funding-quote">
          <p className="text-sm text-slate-700">
            Buy{' '}
            <strong className="font-mono">
              <Amount value={quote.fundingAmount} symbol={quote.swap.fundingSymbol} roundUp />
            </strong>
            {quote.onramp && (
              <>
                {' '}
                for about <strong className="whitespace-nowrap">{formatFiat(quote.onramp.total, 'USD')}</strong> (fees included)
              </>
            )}
            : enough for <Amount value={quote.swap.amountOut} symbol={quote.swap.targetSymbol} /> at the current price with the slippage
            limit. {quote.swap.fundingSymbol} the swap does not use stays with the charge, for a refund.
          </p>
          {quote.onrampError && <p className="text-sm text-rose-700">{quote.onrampError}</p>}
          {quote.onramp?.belowMinimum && (
            <p className="text-sm text-amber-800">
              Below {provider?.displayName}&apos;s minimum of {formatFiat(quote.onramp.minimum.fiat, 'USD')} (
              <Amount value={quote.onramp.minimum.crypto} symbol={quote.swap.fundingSymbol} roundUp />
              ).
            </p>
          )}
          <SwapQuoteDetails quote={quote.swap} testId="swap-funding-swap-quote" />
        </div>
      )}
      {error && (
        <div role="alert" className="flex flex-col gap-2 text-sm text-rose-700" data-testid="swap-funding-error">
          <p>{error.message}</p>
          {error.code === 'below_minimum' && error.details?.minimumCrypto && (
            <Button type="button" variant="secondary" onClick={() => buy(true)} disabled={placing}>
              Buy the minimum ({formatTokenAmount(error.details.minimumCrypto, quote?.swap.fundingSymbol ?? 'USDC', { rounding: 'up' })})
              instead
            </Button>
          )}
        </div>
      )}
      <Button type="button" onClick={() => buy(false)} disabled={!provider?.available || !method || placing}>
        {placing ? 'Opening the provider…' : `Buy ${quote?.swap.fundingSymbol ?? 'USDC'} with ${provider?.displayName ?? 'a provider'}`}
      </Button>
      {embedUrl && (
        <iframe src={embedUrl} title="Provider payment" className="h-[36rem] w-full rounded-lg ring-1 ring-slate-200" allow="payment" />
      )}
      {following && progress && (
        <p
          role="status"
          aria-live="polite"
          className="rounded-lg bg-slate-50 p-3 text-sm text-slate-700"
          data-testid="swap-progress"
          data-stage={progress.stage}
        >
          {progress.message}
          {progress.swap?.explorerUrl && (
            <>
              {' '}
              <a href={progress.swap.explorerUrl} target="_blank" rel="noreferrer" className="underline underline-offset-4">
                Transaction
              </a>
            </>
          )}
        </p>
      )}
    </div>
  );
}
