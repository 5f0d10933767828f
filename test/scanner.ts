/**
 * Charge expiry waits until the chain's watcher has scanned every block up to expiresAt
 * (lib/scanner/scanned-past.ts). Tests that expire charges run the watcher up to the head first; another
 * test file may hold its lock for a moment, so this retries.
 */
import { publicClientFor } from '@/lib/chains/clients';
import type { ChainName } from '@/lib/chains/registry';
import { pollChain } from '@/lib/payments/poll-chain';

export async function scanChargesToHead(chain: ChainName): Promise<void> {
  const head = await publicClientFor(chain)!.getBlockNumber({ cacheTime: 0 });
  for (let attempt = 0; attempt < 100; attempt++) {
    const result = await pollChain(chain);
    if (result && (result.scanned === null || result.scanned.to >= head)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the ${chain} charge watcher did not reach block ${head}`);
}
