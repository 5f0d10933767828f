import { env } from '@/lib/env';
import { CHAINS, type ChainName } from './registry';

/** Confirmations before a payment counts: the chain's setting, or 1 on a local development node. */
export function requiredConfirmations(chain: ChainName): number {
  return env().LOCAL_CHAINS.includes(chain) ? 1 : CHAINS[chain].confirmations;
}
