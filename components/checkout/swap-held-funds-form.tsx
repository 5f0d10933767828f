'use client';

import Link from 'next/link';
import { useActionState, useState } from 'react';
import {
  quoteHeldFundsAction,
  swapHeldFundsAction,
  type ActionError,
  type SwapHeldFundsState,
} from '@/app/checkout/[chargeId]/swap-actions';
import { PinField } from '@/components/account/pin-fields';
import { Amount } from '@/components/ui/amount';
import { Button } from '@/components/ui/button';
import { formatTokenAmount } from '@/lib/format-amount';
import type { HeldFundsQuote } from '@/lib/swap/swap-held-funds';
import { SwapQuoteDetails, useAgeSeconds } from './swap-quote-details';

/** Past this age the quote is refreshed before the payer confirms (the server re-quotes anyway). */
const STALE_AFTER_S = 60;

/** Branch A: the quote first, then the PIN; the server refuses if the pool moved past the maximum shown. */
export function SwapHeldFundsForm({ chargeId, signInHref, signedIn }: { chargeId: string; signInHref: string; signedIn: boolean }) {
  const [quote, setQuote] = useState<HeldFundsQuote>();
  const [quoteError, setQuoteError] = useState<ActionError>();
  const [loading, setLoading] = useState(false);
  const [state, action, pending] = useActionState<SwapHeldFundsState, FormData>(swapHeldFundsAction, {});
  const age = useAgeSeconds(quote?.quotedAt);

  async function refresh() {
    setLoading(true);
    const result = await quoteHeldFundsAction(chargeId);
    setLoading(false);
    if (!result.error) {
      setQuote(result.data);
      setQuoteError(undefined);
    } else setQuoteError(result.error);
  }

  if (!signedIn) {
    return (
      <Link href={signInHref} className="text-sm font-semibold text-brand-600 underline underline-offset-4">
        Sign in to swap USDC you hold
      </Link>
    );
  }
  if (state.txHash) {
    return (
      <p role="status" className="text-sm text-slate-700" data-testid="swap-sent">
        Swap sent. Waiting for the network… <span className="break-all font-mono text-xs">{state.txHash}</span>
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-3">
      {quote && (
        <p className="text-sm text-slate-600">
          Your balance: <Amount value={quote.balance} symbol={quote.fundingSymbol} className="font-mono" testId="swap-usdc-balance" />
        </p>
      )}
      {quoteError && (
        <p role="alert" className="text-sm text-rose-700" data-testid="swap-quote-error">
          {quoteError.message}
        </p>
      )}
      {quote && <SwapQuoteDetails quote={quote} testId="swap-held-quote" />}
      <Button type="button" variant="secondary" onClick={refresh} disabled={loading}>
        {loading ? 'Getting a quote…' : quote ? 'Refresh quote' : 'Get a quote'}
      </Button>
      {quote &&
        (quote.enough ? (
          <form action={action} className="flex flex-col gap-3" noValidate>
            <input type="hidden" name="chargeId" value={chargeId} />
            <input type="hidden" name="maxAmountIn" value={quote.amountInMaxBaseUnits} />
            <PinField label="PIN to swap" name="pin" error={state.error?.message} />
            {state.error?.code === 'slippage_exceeded' && (
              <p className="text-sm text-slate-600">Refresh the quote to see the new maximum.</p>
            )}
            <Button type="submit" disabled={pending || loading || age >= STALE_AFTER_S}>
              {pending
                ? 'Swapping…'
                : age >= STALE_AFTER_S
                  ? 'Quote expired: refresh it'
                  : `Swap at most ${formatTokenAmount(quote.amountInMax, quote.fundingSymbol, { rounding: 'up' })} and pay`}
            </Button>
          </form>
        ) : (
          <p role="alert" className="text-sm text-rose-700" data-testid="swap-not-enough">
            Not enough {quote.fundingSymbol}: this swap may take up to{' '}
            <Amount value={quote.amountInMax} symbol={quote.fundingSymbol} roundUp />; your wallet holds{' '}
            <Amount value={quote.balance} symbol={quote.fundingSymbol} />.
          </p>
        ))}
    </div>
  );
}
