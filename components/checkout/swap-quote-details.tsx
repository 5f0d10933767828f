'use client';

import { useEffect, useState } from 'react';
import { Amount } from '@/components/ui/amount';
import type { SwapQuoteView } from '@/lib/swap/quote-view';

/** Seconds since `iso`, ticking: the quote's age, so the payer sees how fresh the price is. */
export function useAgeSeconds(iso: string | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!iso) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [iso]);
  return iso ? Math.max(0, Math.floor((now - new Date(iso).getTime()) / 1000)) : 0;
}

/** The swap quote as a list: what arrives, what it may cost at most, price, slippage limit, age. Exact amounts: this is the detail. */
export function SwapQuoteDetails({ quote, testId }: { quote: SwapQuoteView; testId: string }) {
  const age = useAgeSeconds(quote.quotedAt);
  const percent = `${(quote.slippageBps / 100).toFixed(quote.slippageBps % 100 === 0 ? 0 : 2)}%`;
  return (
    <dl className="grid min-w-0 grid-cols-[auto_1fr] gap-x-3 gap-y-1 rounded-lg bg-slate-50 p-3 text-sm" data-testid={testId}>
      <dt className="text-slate-500">You get</dt>
      <dd className="text-right font-mono">
        <Amount value={quote.amountOut} symbol={quote.targetSymbol} exact testId="swap-amount-out" />
      </dd>
      <dt className="text-slate-500">You pay</dt>
      <dd className="text-right font-mono">
        ≈ <Amount value={quote.amountIn} symbol={quote.fundingSymbol} exact />
      </dd>
      <dt className="text-slate-500">At most</dt>
      <dd className="text-right font-mono">
        <Amount value={quote.amountInMax} symbol={quote.fundingSymbol} exact testId="swap-amount-in-max" />
      </dd>
      <dt className="text-slate-500">Price</dt>
      <dd className="text-right font-mono">
        <Amount value={quote.price} symbol={quote.fundingSymbol} exact /> per {quote.targetSymbol}
      </dd>
      <dt className="text-slate-500">Slippage limit</dt>
      <dd className="text-right">{percent}</dd>
      <dt className="text-slate-500">Quoted</dt>
      <dd className="text-right" data-testid="swap-quote-age">
        {age < 2 ? 'just now' : `${age} s ago`}
      </dd>
    </dl>
  );
}
