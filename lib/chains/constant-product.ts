/**
 * The constant-product (x · y = k) math of a Uniswap V2-style pool, in exact bigint base units: the
 * reference the router adapter's quotes are checked against, and the slippage bound the service signs.
 *
 * Fee: 0.25%, PancakeSwap v2's (its pair keeps k with balances × 10000 − input × 25; its library
 * quotes with 9975 / 10000). The local demo pool (contracts/DemoSwap.sol) uses the same numbers, so a
 * swap quoted here costs the same on the local chain as on PancakeSwap v2.
 */
const FEE_DENOMINATOR = 10_000n;
/** What is left of an input after PancakeSwap v2's 0.25% fee: 9975 / 10000. */
const INPUT_AFTER_FEE = 9_975n;
const BPS_DENOMINATOR = 10_000n;

/** UniswapV2Library.getAmountOut with PancakeSwap's fee: what `amountIn` buys (rounded down). */
export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountIn <= 0n) throw new RangeError('amountIn must be positive');
  if (reserveIn <= 0n || reserveOut <= 0n) throw new RangeError('the pool has no liquidity');
  const amountInWithFee = amountIn * INPUT_AFTER_FEE;
  return (amountInWithFee * reserveOut) / (reserveIn * FEE_DENOMINATOR + amountInWithFee);
}

/** UniswapV2Library.getAmountIn with PancakeSwap's fee: the least input that buys exactly `amountOut` (rounded up, +1 as the library does). */
export function getAmountIn(amountOut: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountOut <= 0n) throw new RangeError('amountOut must be positive');
  if (reserveIn <= 0n || reserveOut <= amountOut) throw new RangeError('the pool cannot deliver that much');
  return (reserveIn * amountOut * FEE_DENOMINATOR) / ((reserveOut - amountOut) * INPUT_AFTER_FEE) + 1n;
}

/** The most input accepted for a quote: `amountIn` plus `slippageBps` basis points, rounded up. */
export function maxInputWithSlippage(amountIn: bigint, slippageBps: number): bigint {
  if (!Number.isInteger(slippageBps) || slippageBps < 0) throw new RangeError('slippageBps must be a non-negative integer');
  const scaled = amountIn * (BPS_DENOMINATOR + BigInt(slippageBps));
  return (scaled + BPS_DENOMINATOR - 1n) / BPS_DENOMINATOR;
}

/**
 * Whether a pair's k check passes after a swap (UniswapV2Pair.swap with PancakeSwap's fee): balances
 * after, minus 0.25% of each input, multiply to at least the reserves before.
 */
export function keepsInvariant(input: {
  reserve0: bigint;
  reserve1: bigint;
  balance0: bigint;
  balance1: bigint;
  amount0In: bigint;
  amount1In: bigint;
}): boolean {
  const adjusted0 = input.balance0 * FEE_DENOMINATOR - input.amount0In * (FEE_DENOMINATOR - INPUT_AFTER_FEE);
  const adjusted1 = input.balance1 * FEE_DENOMINATOR - input.amount1In * (FEE_DENOMINATOR - INPUT_AFTER_FEE);
  return adjusted0 * adjusted1 >= input.reserve0 * input.reserve1 * FEE_DENOMINATOR * FEE_DENOMINATOR;
}
