/**
 * The RPC of a Solana cluster, as every Solana caller gets it: the configured one (RPC_URL_SOLANA / _DEVNET,
 * with fail-over) or one a test injects. Each request first checks that no database transaction is open.
 */
import {
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  type Rpc,
  type RpcTransport,
  type SolanaRpcApiMainnet,
} from '@solana/kit';
import { assertNoTransactionOpen } from '@/lib/db/transaction-scope';
import { rpcUrls } from '@/lib/env';
import { log } from '@/lib/log';
import { CHAINS, type ChainName } from './registry';

/** The RPC of a Solana cluster: the watcher finds payments with it, sweeps send and follow transactions with it. */
export type SolanaRpc = Rpc<SolanaRpcApiMainnet>;

const rpcs = new Map<string, SolanaRpc>();

/**
 * The configured cluster's RPC (RPC_URL_SOLANA / _DEVNET); undefined when the chain has none. Several
 * comma-separated URLs fail over in order: a request that gets no answer from one (down, timeout, HTTP
 * error) goes to the next; an answer, error or not, is final.
 */
export function solanaRpcFor(chain: ChainName): SolanaRpc | undefined {
  const urls = rpcUrls(chain);
  if (!urls.length || CHAINS[chain].family !== 'solana') return undefined;
  const key = urls.join(',');
  let rpc = rpcs.get(key);
  if (!rpc) {
    const transport = failoverTransport(urls.map((url) => createDefaultRpcTransport({ url })));
    rpcs.set(key, (rpc = createSolanaRpcFromTransport(outsideTransactionsTransport(transport))));
  }
  return rpc;
}

function failoverTransport(transports: RpcTransport[]): RpcTransport {
  const transport = async (request: Parameters<RpcTransport>[0]) => {
    let failure: unknown;
    for (const next of transports) {
      try {
        return await next(request);
      } catch (error) {
        if (request.signal?.aborted) throw error;
        failure = error;
      }
    }
    throw failure;
  };
  return transport as RpcTransport;
}

/** A transport whose every request first checks that no database transaction is open (lib/db/transaction-scope.ts). */
export function outsideTransactionsTransport<Transport extends RpcTransport>(transport: Transport): Transport {
  const guarded = (request: Parameters<RpcTransport>[0]) => {
    const { method } = request.payload as { method?: string };
    assertNoTransactionOpen(`Solana RPC ${method ?? 'request'}`, (error) =>
      log.error('chain request inside a database transaction', { error }),
    );
    return transport(request);
  };
  return guarded as Transport;
}

/**
 * Where code that talks to a Solana cluster gets its RPC: the configured one by default, or one injected
 * (tests serve LiteSVM through @solana/kit's RPC this way).
 */
export interface SolanaRpcOptions {
  solanaRpcFor?: (chain: ChainName) => SolanaRpc | undefined;
}

export function resolveSolanaRpc(chain: ChainName, options: SolanaRpcOptions = {}): SolanaRpc | undefined {
  return (options.solanaRpcFor ?? solanaRpcFor)(chain);
}
