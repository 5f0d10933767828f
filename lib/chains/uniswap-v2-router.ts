/**
 * The swap adapter: speaks the Uniswap V2 Router02 ABI (PancakeSwap v2 on BSC, the demo router on the
 * local node) for exact-output swaps — the charge says how much of the target token must arrive.
 *
 *  - quoteExactOut: getAmountsIn(amountOut, path) → the input the pool wants now, and the most input the
 *    service will sign for (that plus the slippage limit);
 *  - buildExactOutSwap: the calls to sign — approve(router, amountInMax) when the allowance is short,
 *    then swapTokensForExactTokens(amountOut, amountInMax, path, to, deadline). The router reverts with
 *    EXCESSIVE_INPUT_AMOUNT if the price moved past the limit, or EXPIRED after the deadline: the payer's
 *    funds then stay where they were.
 */
import { encodeFunctionData, erc20Abi, parseAbi, type Address, type Hex, type PublicClient } from 'viem';
import { maxInputWithSlippage } from './constant-product';
import { AppError } from '@/lib/errors';

/** The Router02 functions the service calls, with their real signatures. */
export const uniswapV2Router02Abi = parseAbi([
  'function factory() view returns (address)',
  'function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)',
  'function getAmountsIn(uint256 amountOut, address[] path) view returns (uint256[] amounts)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)',
  'function swapTokensForExactTokens(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline) returns (uint256[] amounts)',
]);

/** How long a signed swap stays valid on chain (Router02's `deadline`). */
const SWAP_DEADLINE_SECONDS = 10 * 60;
/** Gas limits: approve is estimated when possible; the swap cannot be estimated before its approve is mined. */
const GAS = { approve: 80_000n, swap: 300_000n } as const;

export interface ExactOutQuote {
  router: Address;
  path: Address[];
  amountOut: bigint;
  /** What the pool asks now. */
  amountIn: bigint;
  /** amountIn plus the slippage limit, rounded up: the most the swap may take. */
  amountInMax: bigint;
  slippageBps: number;
  quotedAt: Date;
}

export async function quoteExactOut(
  client: PublicClient,
  input: { router: Address; path: Address[]; amountOut: bigint; slippageBps: number },
): Promise<ExactOutQuote> {
  let amounts: readonly bigint[];
  try {
    amounts = await client.readContract({
      address: input.router,
      abi: uniswapV2Router02Abi,
      functionName: 'getAmountsIn',
      args: [input.amountOut, input.path],
    });
  } catch {
    throw new AppError(
      'quote_unavailable',
      'The exchange cannot quote this swap right now (no pool, not enough liquidity, or the network is unreachable). Try again shortly.',
    );
  }
  const amountIn = amounts[0]!;
  return {
    router: input.router,
    path: input.path,
    amountOut: input.amountOut,
    amountIn,
    amountInMax: maxInputWithSlippage(amountIn, input.slippageBps),
    slippageBps: input.slippageBps,
    quotedAt: new Date(),
  };
}

export interface ContractCall {
  to: Address;
  data: Hex;
  gas: bigint;
}

/**
 * The transactions of one exact-output swap from `from`: approve (only when the router's allowance is
 * below `amountInMax`) and swapTokensForExactTokens delivering `amountOut` to `recipient`.
 */
export async function buildExactOutSwap(
  client: PublicClient,
  input: { from: Address; router: Address; path: Address[]; amountOut: bigint; amountInMax: bigint; recipient: Address; deadline: bigint },
): Promise<{ approve?: ContractCall; swap: ContractCall }> {
  const tokenIn = input.path[0]!;
  const allowance = await client.readContract({
    address: tokenIn,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [input.from, input.router],
  });
  const swap: ContractCall = {
    to: input.router,
    data: encodeFunctionData({
      abi: uniswapV2Router02Abi,
      functionName: 'swapTokensForExactTokens',
      args: [input.amountOut, input.amountInMax, input.path, input.recipient, input.deadline],
    }),
    gas: GAS.swap,
  };
  if (allowance >= input.amountInMax) {
    swap.gas = await client.estimateGas({ account: input.from, to: swap.to, data: swap.data }).then(
      (gas) => (gas * 12n) / 10n,
      () => GAS.swap,
    );
    return { swap };
  }
  // Exactly the most the swap may take: no standing allowance is left for the router beyond this swap.
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [input.router, input.amountInMax] });
  const gas = await client.estimateGas({ account: input.from, to: tokenIn, data }).then(
    (g) => (g * 12n) / 10n,
    () => GAS.approve,
  );
  return { approve: { to: tokenIn, data, gas }, swap };
}

/** The deadline to sign into a swap now (seconds since the epoch, as Router02 compares with block.timestamp). */
export function swapDeadline(now = new Date()): bigint {
  return BigInt(Math.floor(now.getTime() / 1000) + SWAP_DEADLINE_SECONDS);
}
