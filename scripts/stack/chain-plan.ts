/**
 * Which chains the launcher runs on local nodes — anvil for EVM chains, a LiteSVM cluster for Solana
 * (solana-cluster.ts) — and what it says about the others.
 *
 * Local nodes run with the chains' real chain ids (genesis hashes on Solana) and demo tokens at the real token
 * addresses (docs/adr/0002), so in production they would fake a mainnet: there they start only with an explicit
 * LOCAL_CHAIN_NODES=true (demos, end-to-end tests of the production build), with a warning. A chain with
 * neither an RPC URL nor a local node is not served: createCharge refuses it (lib/chains/served.ts).
 */
import { CHAIN_NAMES, type ChainName } from '@/lib/chains/registry';
import { rpcEnvName, type Env } from '@/lib/env';

export interface ChainPlan {
  /** Chains without an RPC URL that get a local node: anvil for EVM chains, a LiteSVM cluster for Solana. */
  localChains: ChainName[];
  /** Chains with neither: not served. */
  unserved: ChainName[];
  /** What the launcher prints; lines starting with WARNING are warnings. */
  messages: string[];
}

export function planChains(
  config: Pick<Env, 'NODE_ENV' | 'LOCAL_CHAIN_NODES'> & Partial<Record<`RPC_URL_${ChainName}`, string>>,
  /** Chains that get no local node even so (STACK_SKIP_LOCAL_CHAINS: the e2e stack keeps one chain unserved). */
  skip: readonly string[] = [],
): ChainPlan {
  const withoutRpc = CHAIN_NAMES.filter((chain) => !config[rpcEnvName(chain)]);
  const localChains = config.LOCAL_CHAIN_NODES ? withoutRpc.filter((chain) => !skip.includes(chain)) : [];
  const unserved = withoutRpc.filter((chain) => !localChains.includes(chain));
  const messages: string[] = [];
  if (config.NODE_ENV === 'production' && localChains.length) {
    messages.push(
      `WARNING: LOCAL_CHAIN_NODES=true in production: ${localChains.join(', ')} run on local nodes (anvil, and LiteSVM for Solana) ` +
        'with their real chain ids and demo tokens at the real token addresses. Nothing paid on them is real. Only for demos and tests of the production build.',
    );
  }
  if (unserved.length) {
    const hint = config.NODE_ENV !== 'production' && !config.LOCAL_CHAIN_NODES;
    messages.push(
      `Not served (no RPC URL): ${unserved.join(', ')}. Charges on them are refused (chain_not_configured); ` +
        `set ${unserved.map(rpcEnvName).join(', ')} to serve them${hint ? ' (or unset LOCAL_CHAIN_NODES for local nodes)' : ''}.`,
    );
  }
  return { localChains, unserved, messages };
}
