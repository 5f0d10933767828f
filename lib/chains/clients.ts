import { createPublicClient, http, type PublicClient } from 'viem';
import { CHAINS, type ChainName } from './registry';
import { env, rpcUrl } from '@/lib/env';

const clients = new Map<string, PublicClient>();

/** A viem client for the chain's configured (or local) RPC; undefined when the chain has none. */
export function publicClientFor(chain: ChainName): PublicClient | undefined {
  const url = rpcUrl(chain);
  if (!url || CHAINS[chain].family !== 'evm') return undefined;
  const key = `${chain}:${url}`;
  let client = clients.get(key);
  if (!client) {
    client = createPublicClient({ transport: http(url, { timeout: 10_000, retryCount: 1 }) });
    clients.set(key, client);
  }
  return client;
}

/** Confirmations before a payment counts: the chain's setting, or 1 on a local development node. */
export function requiredConfirmations(chain: ChainName): number {
  return env().LOCAL_CHAINS.includes(chain) ? 1 : CHAINS[chain].confirmations;
}
