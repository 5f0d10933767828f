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
 * comma-separated URLs fail over in order: a request that gets no answer from one (down, no answer within
 * 10 s, HTTP error) goes to the next; an answer, error or not, is final.
 */
export function solanaRpcFor(chain: ChainName): SolanaRpc | undefined {
  const urls = rpcUrls(chain);
  if (!urls.length || CHAINS[chain].family !== 'solana') return undefined;
  const key = urls.join(',');
  let rpc = rpcs.get(key);
  if (!rpc) {
    const transport = failoverTransport(urls.map((url) => withTimeout(createDefaultRpcTransport({ url }), SOLANA_RPC_TIMEOUT_MS)));
    rpcs.set(key, (rpc = createSolanaRpcFromTransport(outsideTransactionsTransport(transport))));
  }
  return rpc;
}

/** As the EVM clients' (lib/chains/clients.ts): a provider holding a request open must not hold the job (a sweep, the reconciler) forever. */
const SOLANA_RPC_TIMEOUT_MS = 10_000;

/** Aborts a request with no answer after `ms` (then the next URL is tried, as for any transport error). */
function withTimeout(transport: RpcTransport, ms: number): RpcTransport {
  const timed = (request: Parameters<RpcTransport>[0]) => {
    const timeout = AbortSignal.timeout(ms);
    return transport({ ...request, signal: request.signal ? AbortSignal.any([request.signal, timeout]) : timeout });
  };
  return timed as RpcTransport;
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
