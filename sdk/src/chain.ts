import type { ChainName } from './types.ts';

/**
 * The supported chain names, for autocompletion: `chain: Chain.POLYGON`. The `satisfies` clause
 * makes this fail to compile when the generated types (and so lib/chains/registry.ts) gain or lose
 * a chain; sdk/test/chain.test.ts checks the same at run time against CHAIN_NAMES.
 */
export const Chain = {
  POLYGON: 'POLYGON',
  POLYGON_AMOY: 'POLYGON_AMOY',
  BSC: 'BSC',
  BSC_TESTNET: 'BSC_TESTNET',
  DFK: 'DFK',
  DFK_TESTNET: 'DFK_TESTNET',
  SOLANA: 'SOLANA',
  SOLANA_DEVNET: 'SOLANA_DEVNET',
} as const satisfies { readonly [Name in ChainName]: Name };

export type Chain = ChainName;
