/**
 * Which chains this server serves. A chain is served when it has an RPC URL — configured, or a local node
 * the launcher started (it sets RPC_URL_<CHAIN>): then its watcher runs and payments on it are seen.
 * Charges on any other chain would ask payers for money nothing watches, so they are refused
 * (`chain_not_configured`) and the checkout and dashboard say the chain is not configured.
 */
import { rpcEnvName, rpcUrl } from '@/lib/env';
import type { ChainName } from './registry';

export function isChainServed(chain: ChainName): boolean {
  return rpcUrl(chain) !== undefined;
}

/** For the operator: what to set so that the chain is served. */
export function chainNotServedReason(chain: ChainName): string {
  return `no RPC endpoint is configured for ${chain} on this server (the operator sets ${rpcEnvName(chain)})`;
}
