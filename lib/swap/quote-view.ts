/** A swap quote as the checkout shows it: exact decimal text, never floats. */
import { formatAmount } from '@/lib/money';
import type { SwapPair } from '@/lib/chains/swap-pairs';
import type { ExactOutQuote } from '@/lib/chains/uniswap-v2-router';

export interface SwapQuoteView {
  targetSymbol: string;
  fundingSymbol: string;
  /** Exactly what arrives (the amount due). */
  amountOut: string;
  /** What the pool asks now. */
  amountIn: string;
  /** The most the swap may take: amountIn + the slippage limit. */
  amountInMax: string;
  /** amountInMax in base units: what the payer accepts when confirming. */
  amountInMaxBaseUnits: string;
  /** Funding token per one target token, 6 decimals (rounded down). */
  price: string;
  slippageBps: number;
  /** ISO time of the quote: the page shows its age. */
  quotedAt: string;
}

export function swapQuoteView(pair: SwapPair, quote: ExactOutQuote): SwapQuoteView {
  const micro =
    (quote.amountIn * 10n ** BigInt(pair.target.decimals) * 1_000_000n) / (quote.amountOut * 10n ** BigInt(pair.funding.decimals));
  return {
    targetSymbol: pair.target.symbol,
    fundingSymbol: pair.funding.symbol,
    amountOut: formatAmount(quote.amountOut, pair.target.decimals),
    amountIn: formatAmount(quote.amountIn, pair.funding.decimals),
    amountInMax: formatAmount(quote.amountInMax, pair.funding.decimals),
    amountInMaxBaseUnits: quote.amountInMax.toString(),
    price: formatAmount(micro, 6),
    slippageBps: quote.slippageBps,
    quotedAt: quote.quotedAt.toISOString(),
  };
}
