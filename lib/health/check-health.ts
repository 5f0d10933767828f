/**
 * Health of the app's dependencies: the database (every call) and each chain with an RPC URL
 * (cached a few seconds so a monitoring or load-balancer probe cannot flood the nodes).
 */
import { CHAIN_NAMES, CHAINS, type ChainName } from '@/lib/chains/registry';
import { getSql } from '@/lib/db/client';
import { rpcUrl } from '@/lib/env';

type DependencyStatus = 'ok' | 'down' | 'not_configured';
export interface HealthReport {
  status: 'ok' | 'degraded';
  db: DependencyStatus;
  chains: Record<ChainName, DependencyStatus>;
}

const CHAIN_CHECK_TTL_MS = 5_000;
const TIMEOUT_MS = 2_000;
let chainCache: { at: number; chains: Record<ChainName, DependencyStatus> } | undefined;

export async function checkHealth(): Promise<HealthReport> {
  const [db, chains] = await Promise.all([checkDatabase(), checkChainsCached()]);
  const healthy = db === 'ok' && Object.values(chains).every((status) => status !== 'down');
  return { status: healthy ? 'ok' : 'degraded', db, chains };
}

async function checkDatabase(): Promise<DependencyStatus> {
  try {
    await withTimeout(getSql()`select 1`.execute(), TIMEOUT_MS);
    return 'ok';
  } catch {
    return 'down';
  }
}

async function checkChainsCached(): Promise<Record<ChainName, DependencyStatus>> {
  if (chainCache && Date.now() - chainCache.at < CHAIN_CHECK_TTL_MS) return chainCache.chains;
  const entries = await Promise.all(CHAIN_NAMES.map(async (chain) => [chain, await checkChain(chain)] as const));
  chainCache = { at: Date.now(), chains: Object.fromEntries(entries) as Record<ChainName, DependencyStatus> };
  return chainCache.chains;
}

async function checkChain(chain: ChainName): Promise<DependencyStatus> {
  const url = rpcUrl(chain);
  if (!url) return 'not_configured';
  const method = CHAINS[chain].family === 'evm' ? 'eth_blockNumber' : 'getHealth';
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const payload = (await response.json()) as { result?: unknown; error?: unknown };
    return response.ok && payload.result !== undefined && !payload.error ? 'ok' : 'down';
  } catch {
    return 'down';
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}

/** Tests switch chains on and off. */
export function clearHealthCache(): void {
  chainCache = undefined;
}
