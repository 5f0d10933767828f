/**
 * One local Solana cluster (scripts/stack/solana-cluster.ts) as its own process: the launcher starts one per
 * Solana chain without an RPC URL (scripts/stack/local-solana.ts). Usage: tsx scripts/solana-cluster.mts CHAIN PORT [STATE_DIR]
 * (PORT 0: any free port). Prints "listening <url>" once it answers; SIGTERM or SIGINT saves the state and exits.
 */
import { isChainName } from '@/lib/chains/registry';
import { serveSolanaCluster } from '@/scripts/stack/solana-cluster';

const [chain, port, stateDir] = process.argv.slice(2);
if (!chain || !isChainName(chain) || !port) {
  console.error('usage: tsx scripts/solana-cluster.mts SOLANA|SOLANA_DEVNET PORT [STATE_DIR]');
  process.exit(2);
}
const served = await serveSolanaCluster({ chain, port: Number(port), ...(stateDir ? { stateDir } : {}) });
console.log(`listening ${served.url}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void served.stop().finally(() => process.exit(0)));
}
