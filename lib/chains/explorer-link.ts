/**
 * "View transaction" links: the chain's block explorer page of a transaction, only where that explorer
 * can know it. A chain served by a local development node (LOCAL_CHAINS: anvil standing in for Polygon)
 * has no public explorer: polygonscan would answer "not found", so no link is given.
 */
import { env } from '@/lib/env';
import { CHAINS, explorerTxUrl, isChainName } from './registry';

export function explorerLink(chain: string, txHash: string | null | undefined): string | undefined {
  if (!txHash || !isChainName(chain) || env().LOCAL_CHAINS.includes(chain)) return undefined;
  return explorerTxUrl(CHAINS[chain], txHash);
}
