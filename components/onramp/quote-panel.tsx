'use client';

import { Amount } from '@/components/ui/amount';
import { useId, useState } from 'react';
import { ExpiryCountdown } from '@/components/checkout/expiry-countdown';
import type { OnrampQuoteView } from '@/lib/onramp/quote-onramp';
import { formatFiat } from '@/lib/format-amount';
import type { ScheduledState } from './quote-scheduler';
import { QuoteFailure } from './quote-request';

/** "1 USDC = $1.00"; rates finer than cents are shown as they are. */
function formatRate(quote: OnrampQuoteView): string {
  return `1 ${quote.tokenSymbol} = ${formatFiat(quote.rate, quote.fiatCurrency)}`;
}

/**
 * The quote: the total prominent, the breakdown behind 'Show payment details' (on-ramp rule 1).
 * While a new quote is on its way the previous one is not shown: its total would be wrong.
 */
export function QuotePanel({ state, arrivesAt, hint }: { state: ScheduledState<OnrampQuoteView>; arrivesAt: string; hint?: string }) {
  const [showDetails, setShowDetails] = useState(false);
  const detailsId = useId();

  switch (state.status) {
    case 'idle':
      return (
        <p className="text-sm text-slate-500" data-testid="quote-idle">
          {hint ?? 'Enter an amount to see the price.'}
        </p>
      );
    case 'loading':
      return (
        <p className="flex items-center gap-2 text-sm text-slate-600" role="status" data-testid="quote-loading">
          <span aria-hidden className="size-4 animate-spin rounded-full border-2 border-slate-300 border-t-brand-600" />
          Getting a quote…
        </p>
      );
    case 'error':
      return (
        <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-900 ring-1 ring-rose-200" data-testid="quote-error">
          {state.error instanceof QuoteFailure ? state.error.message : 'No quote right now: check your connection and try again.'}
        </p>
      );
    case 'ready': {
      const quote = state.output;
      return (
        <div className="flex flex-col gap-2" data-testid="quote">
          <div className="flex items-baseline justify-between gap-3">
            <span className="font-medium">Total</span>
            <span className="font-mono text-2xl font-semibold tabular-nums" data-testid="quote-total">
              {formatFiat(quote.total, quote.fiatCurrency)}
            </span>
          </div>
          <p className="text-right text-sm text-slate-600">
            for <Amount value={quote.cryptoAmount} symbol={quote.tokenSymbol} testId="quote-receive" />
          </p>
          <button
            type="button"
            className="self-start text-sm font-semibold text-brand-600 underline underline-offset-4"
            aria-expanded={showDetails}
            aria-controls={detailsId}
            onClick={() => setShowDetails((shown) => !shown)}
          >
            {showDetails ? 'Hide payment details' : 'Show payment details'}
          </button>
          {showDetails && (
            <dl id={detailsId} className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm" data-testid="quote-details">
              <dt className="text-slate-600">Rate</dt>
              <dd className="text-right font-mono tabular-nums">{formatRate(quote)}</dd>
              <dt className="text-slate-600">Tokens</dt>
              <dd className="text-right font-mono tabular-nums">{formatFiat(quote.subtotal, quote.fiatCurrency)}</dd>
              <dt className="text-slate-600">Provider fee</dt>
              <dd className="text-right font-mono tabular-nums" data-testid="quote-provider-fee">
                {formatFiat(quote.providerFee, quote.fiatCurrency)}
              </dd>
              <dt className="text-slate-600">Network fee</dt>
              <dd className="text-right font-mono tabular-nums" data-testid="quote-network-fee">
                {formatFiat(quote.networkFee, quote.fiatCurrency)}
              </dd>
              <dt className="text-slate-600">You receive</dt>
              <dd className="text-right" data-testid="quote-arrives">
                <Amount value={quote.cryptoAmount} symbol={quote.tokenSymbol} className="font-mono" /> {arrivesAt}
              </dd>
              <dt className="text-slate-600">Quote</dt>
              <dd className="text-right text-slate-600">
                <ExpiryCountdown expiresAt={quote.expiresAt} />
              </dd>
            </dl>
          )}
        </div>
      );
    }
  }
}
