import { createPublicClient, fallback, http, type PublicClient, type Transport } from 'viem';
import { assertNoTransactionOpen } from '@/lib/db/transaction-scope';
import { rpcUrls } from '@/lib/env';
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

/**
 * A viem client for the chain's configured (or local) RPC; undefined when the chain has none. With several
 * URLs (RPC_URL_<CHAIN>=https://a,https://b), viem's fallback transport sends each request to the first
 * and, when it fails (down, timeout, 5xx, rate limit), to the next — in the configured order
 * (`rank: false`: the operator's preference, usually the paid provider first, is kept). One retry of the
 * whole list, as with a single URL. Reverts and rejected transactions are answers, never failed over.
 */
export function publicClientFor(chain: ChainName): PublicClient | undefined {
  const urls = rpcUrls(chain);
  if (!urls.length || CHAINS[chain].family !== 'evm') return undefined;
  const key = `${chain}:${urls.join(',')}`;
  let client = clients.get(key);
  if (!client) {
    const transport =
      urls.length === 1
        ? http(urls[0], { timeout: 10_000, retryCount: 1 })
        : fallback(
            urls.map((url) => http(url, { timeout: 10_000 })),
            { rank: false, retryCount: 1 },
          );
    client = createPublicClient({ transport: outsideTransactions(transport) });
    clients.set(key, client);
  }
  return client;
}
