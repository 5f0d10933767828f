/**
 * Which chains move value through EIP-7702 smart accounts (docs/adr/0035): the fact per chain (does it
 * run EIP-7702?), the operator's switch (SMART_ACCOUNT_CHAINS), and the check at start that the EntryPoint
 * v0.8 and Simple7702Account have code there. A chain failing any of the three keeps today's top-up path.
 */
import type { PublicClient } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { ENTRY_POINT_V08_ADDRESS, SIMPLE_7702_ACCOUNT_ADDRESS } from '@/lib/chains/smart-account-contracts';
import { CHAIN_NAMES, CHAINS, type ChainName } from '@/lib/chains/registry';
import { env } from '@/lib/env';
import { SMART_ACCOUNT_SUPPORT } from './smart-account-support';

export interface SmartAccountStatus {
  chain: ChainName;
  /** sponsored: relayed smart-account calls, no top-ups; topup: today's path; fee_payer: Solana's. */
  path: 'sponsored' | 'topup' | 'fee_payer';
  /** Why not sponsored (null when it is). */
  reason: string | null;
}

/** The code check per chain: a positive answer is kept (the contracts do not go away), a negative one a minute. */
const deployed = new Map<ChainName, boolean>();
const absentSince = new Map<ChainName, number>();
const RECHECK_ABSENT_MS = 60_000;

async function contractsDeployed(client: PublicClient): Promise<boolean> {
  const [entryPoint, implementation] = await Promise.all([
    client.getCode({ address: ENTRY_POINT_V08_ADDRESS }),
    client.getCode({ address: SIMPLE_7702_ACCOUNT_ADDRESS }),
  ]);
  return (entryPoint ?? '0x') !== '0x' && (implementation ?? '0x') !== '0x';
}

/** Whether `chain`'s EVM transfers take the sponsored path now; with the reason when they do not. */
export async function smartAccountStatus(chain: ChainName): Promise<SmartAccountStatus> {
  const facts = SMART_ACCOUNT_SUPPORT[chain];
  if (facts.mode === 'fee_payer') return { chain, path: 'fee_payer', reason: facts.fact };
  if (facts.mode !== 'eip7702') return { chain, path: 'topup', reason: facts.fact };
  if (!env().SMART_ACCOUNT_CHAINS.includes(chain)) return { chain, path: 'topup', reason: 'not listed in SMART_ACCOUNT_CHAINS' };
  if (!deployed.get(chain)) {
    const absent = `EntryPoint v0.8 (${ENTRY_POINT_V08_ADDRESS}) or Simple7702Account (${SIMPLE_7702_ACCOUNT_ADDRESS}) has no code there`;
    const since = absentSince.get(chain);
    if (since !== undefined && Date.now() - since < RECHECK_ABSENT_MS) return { chain, path: 'topup', reason: absent };
    const client = publicClientFor(chain);
    if (!client) return { chain, path: 'topup', reason: 'no RPC URL' };
    const ok = await contractsDeployed(client).catch(() => undefined);
    if (ok === undefined) return { chain, path: 'topup', reason: `${CHAINS[chain].displayName} did not answer the code check` };
    if (!ok) {
      absentSince.set(chain, Date.now());
      return { chain, path: 'topup', reason: absent };
    }
    deployed.set(chain, true);
  }
  return { chain, path: 'sponsored', reason: null };
}

/** Every chain's path, for the start-up log and /api/health. */
export async function smartAccountStatuses(): Promise<SmartAccountStatus[]> {
  return Promise.all(CHAIN_NAMES.map(smartAccountStatus));
}
