import { CHAINS, EVM_NATIVE_TOKEN_ADDRESS, SOLANA_NATIVE_MINT, type ChainName, type TokenInfo } from '@/lib/chains/registry';

/**
 * The token a charge is priced in, as stored on the charge: the registry's entry when it has one (with
 * its price data), else the merchant's custom token (Tokens tab) from the charge's own columns.
 */
export function tokenOfCharge(charge: { chain: string; tokenAddress: string; tokenSymbol: string; tokenDecimals: number }): TokenInfo {
  const chain = CHAINS[charge.chain as ChainName];
  const known = chain.tokens.find((t) => t.address.toLowerCase() === charge.tokenAddress.toLowerCase());
  if (known) return known;
  return {
    symbol: charge.tokenSymbol,
    name: charge.tokenSymbol,
    address: charge.tokenAddress,
    decimals: charge.tokenDecimals,
    isNative: charge.tokenAddress === EVM_NATIVE_TOKEN_ADDRESS || charge.tokenAddress === SOLANA_NATIVE_MINT,
  };
}
