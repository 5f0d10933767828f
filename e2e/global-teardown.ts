/**
 * The suite's last word: `npm run admin -- reconcile` against the e2e stack (its database, its local chains
 * and Solana clusters, the gas tank included), after every journey and before the stack stops (Playwright
 * runs the global teardown before it stops its web servers). The run fails when any balance the service
 * holds keys for differs from its books, or a chain could not be reconciled; the report names chain,
 * address, token, expected and actual (docs/adr/0033-every-address-in-the-books.md, "After the e2e suite").
 *
 * Reconciliation compares at a block every record has reached; right after the last journey a sweep may
 * still be on its way (its addresses are skipped as busy) or a scanner a block behind. So it runs again, a
 * few seconds apart, until every EVM chain is compared at or past its head when the suite ended and nothing
 * is busy — or RECONCILE_SETTLE_MS has passed: then what is still busy is reported (not compared, so no
 * difference) and the last run's differences decide.
 */
import { createPublicClient, http } from 'viem';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { e2eStackNodes, reconcileE2eStack, sleep, summary, type Reconciliation } from './reconciliation';

const SETTLE_MS = Number(process.env.RECONCILE_SETTLE_MS ?? 180_000);

export default async function reconcileAfterTheSuite(): Promise<void> {
  const nodes = e2eStackNodes();
  if (!nodes) return;
  const heads = await evmHeads(nodes);
  const started = Date.now();
  let results = reconcileE2eStack();
  while (!settled(results, heads) && Date.now() - started < SETTLE_MS) {
    await sleep(5_000);
    results = reconcileE2eStack();
  }
  console.log(`[e2e] reconciliation after the suite (${Math.round((Date.now() - started) / 1000)} s):\n${summary(results)}`);
  const differences = results.flatMap((r) => r.discrepancies);
  const failed = results.filter((r) => r.error);
  if (!differences.length && !failed.length) return;
  const table = differences.map(
    (d) =>
      `  ${d.chain} ${d.address} (${d.holder}) ${d.symbol}: expected ${d.expected}, actual ${d.actual}, difference ${d.difference} (base units, ${d.decimals} decimals)${d.chargeIds.length ? `; charges ${d.chargeIds.join(', ')}` : ''}`,
  );
  throw new Error(
    `Reconciliation after the e2e suite: ${differences.length} differences, ${failed.length} chains not reconciled\n${[...table, ...failed.map((r) => `  ${r.chain}: ${r.error}`)].join('\n')}`,
  );
}

/** Every EVM chain compared at or past its head when the suite ended, nothing busy, no chain in error. */
function settled(results: Reconciliation[], heads: Map<ChainName, bigint>): boolean {
  return results.every((r) => !r.error && r.busy === 0 && (r.atBlock === null || BigInt(r.atBlock) >= (heads.get(r.chain) ?? 0n)));
}

async function evmHeads(urls: Partial<Record<ChainName, string>>): Promise<Map<ChainName, bigint>> {
  const heads = new Map<ChainName, bigint>();
  for (const [chain, url] of Object.entries(urls) as [ChainName, string][]) {
    if (CHAINS[chain].family !== 'evm') continue;
    heads.set(chain, await createPublicClient({ transport: http(url) }).getBlockNumber({ cacheTime: 0 }));
  }
  return heads;
}
