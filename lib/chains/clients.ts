import { createPublicClient, http, type PublicClient, type Transport } from 'viem';
import { assertNoTransactionOpen } from '@/lib/db/transaction-scope';
import { env, rpcUrl } from '@/lib/env';
import { log } from '@/lib/log';
import { CHAINS, type ChainName } from './registry';

const clients = new Map<string, PublicClient>();

/** A transport whose every request first checks that no database transaction is open (lib/db/transaction-scope.ts). */
export function outsideTransactions(transport: Transport): Transport {
  return (params) => {
    const inner = transport(params);
    const request: typeof inner.request = (args, options) => {
      assertNoTransactionOpen(`RPC ${args.method}`, (error) => log.error('chain request inside a database transaction', { error }));
      return inner.request(args, options);
    };
    return { ...inner, request };
  };
}

/** A viem client for the chain's configured (or local) RPC; undefined when the chain has none. */
export function publicClientFor(chain: ChainName): PublicClient | undefined {
  const url = rpcUrl(chain);
  if (!url || CHAINS[chain].family !== 'evm') return undefined;
  const key = `${chain}:${url}`;
  let client = clients.get(key);
  if (!client) {
    client = createPublicClient({ transport: outsideTransactions(http(url, { timeout: 10_000, retryCount: 1 })) });
    clients.set(key, client);
  }
  return client;
}

/** Confirmations before a payment counts: the chain's setting, or 1 on a local development node. */
export function requiredConfirmations(chain: ChainName): number {
  return env().LOCAL_CHAINS.includes(chain) ? 1 : CHAINS[chain].confirmations;
}
