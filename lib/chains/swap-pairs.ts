/**
 * The swap on-ramp's configured pairs: the charge tokens it can deliver by swapping, and the token the
 * on-ramp buys to fund the swap. The one place that says which (token, chain) pairs exist.
 *
 * Today one pair (spec, "Token on-ramp"): PZP on BNB Smart Chain, funded from USDC on BNB Smart Chain,
 * swapped through a Uniswap V2 Router02-compatible router (PancakeSwap v2 on BSC).
 *  - PZP's address: PZP_BSC_TOKEN_ADDRESS (its mainnet address cannot be checked against the issuer
 *    from here, so it is configuration); unset with a local BSC node: the demo PZP planted there.
 *  - The router: BSC_SWAP_ROUTER_ADDRESS; unset with a local BSC node: the demo pool's router.
 *  - Without both, the pair is not configured: PZP charges are refused and the flow is not offered.
 * PZP is taken to have 18 decimals (the demo token has; BEP-20 tokens nearly always do): check the
 * real token's decimals() before setting PZP_BSC_TOKEN_ADDRESS.
 */
import { getAddress, type Address } from 'viem';
import { CHAINS, normalizeAddress, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { env } from '@/lib/env';
import { DEMO_PZP, LOCAL_SWAP_ADDRESSES } from './provision-local-swap';

export interface SwapPair {
  chain: ChainName;
  /** The token the charge is priced in and the swap delivers. */
  target: TokenInfo;
  /** The token the payer holds or the on-ramp buys, swapped into `target`. */
  funding: TokenInfo;
  /** The Uniswap V2 Router02-compatible router that swaps them. */
  router: Address;
}

/** The configured pairs of this deployment (addresses resolved from configuration or the local node). */
export function configuredSwapPairs(): SwapPair[] {
  const config = env();
  const bscIsLocal = config.LOCAL_CHAINS.includes('BSC');
  const pzpAddress = config.PZP_BSC_TOKEN_ADDRESS ?? (bscIsLocal ? LOCAL_SWAP_ADDRESSES.pzp : undefined);
  const router = config.BSC_SWAP_ROUTER_ADDRESS ?? (bscIsLocal ? LOCAL_SWAP_ADDRESSES.router : undefined);
  const usdc = CHAINS.BSC.tokens.find((t) => t.symbol === 'USDC');
  if (!pzpAddress || !router || !usdc) return [];
  return [
    {
      chain: 'BSC',
      target: {
        symbol: 'PZP',
        name: bscIsLocal && !config.PZP_BSC_TOKEN_ADDRESS ? DEMO_PZP.name : 'PZP',
        address: getAddress(pzpAddress),
        decimals: 18,
        isNative: false,
      },
      funding: usdc,
      router: getAddress(router),
    },
  ];
}

/** The pair whose target is the token at `tokenAddress` on `chain`, if it is one. */
export function swapPairFor(chain: string, tokenAddress: string): SwapPair | undefined {
  const family = CHAINS[chain as ChainName]?.family;
  if (family !== 'evm' || !/^0x[0-9a-fA-F]{40}$/.test(tokenAddress)) return undefined;
  const wanted = normalizeAddress('evm', tokenAddress);
  return configuredSwapPairs().find((pair) => pair.chain === chain && pair.target.address === wanted);
}

/** The swap-pair token at `tokenAddress` on `chain` (createCharge accepts it like a registry token). */
export function swapPairToken(chain: string, tokenAddress: string): TokenInfo | undefined {
  return swapPairFor(chain, tokenAddress)?.target;
}
