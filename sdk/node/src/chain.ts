import type { components } from './generated/openapi.ts';

/** A chain name the API accepts, e.g. `'POLYGON'` or its test network `'POLYGON_AMOY'`. */
export type ChainName = components['schemas']['Charge']['chain'];

/**
 * The chain names, for autocompletion (`chain: Chain.POLYGON`) and for checking a name read at run
 * time (the CLI's `--chain`). The `satisfies` clause fails to compile when the generated types gain
 * or lose a chain.
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
