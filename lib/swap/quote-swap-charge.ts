/**
 * The swap on-ramp's fresh quote for a charge, the same wherever it is asked (the held-funds branch, the
 * funding order's quote, the conversion of delivered funding): what the pool asks now in the funding token for
 * exactly the amount due, with the slippage limit on top (SWAP_SLIPPAGE_BPS).
 */
import type { Address, PublicClient } from 'viem';
import type { SwapPair } from '@/lib/chains/swap-pairs';
import { quoteExactOut, type ExactOutQuote } from '@/lib/chains/uniswap-v2-router';
import { env } from '@/lib/env';

export async function quoteSwapCharge(client: PublicClient, charge: { pair: SwapPair; due: bigint }): Promise<ExactOutQuote> {
  const { pair, due } = charge;
  return quoteExactOut(client, {
    router: pair.router,
    path: [pair.funding.address as Address, pair.target.address as Address],
    amountOut: due,
    slippageBps: env().SWAP_SLIPPAGE_BPS,
  });
}
