/**
 * Before the first journey: one reconciliation of the fresh e2e stack, once its scanners have run on every
 * chain. The gas tank is funded at stack start, before the wallet indexer watches it, so its books open at
 * the first reconciliation that reads it (lib/ledger/reconcile-chains.ts, ledger_openings): opened here,
 * everything the journeys do to the tank is compared by the reconciliation after the suite (global-teardown.ts).
 */
import { e2eStackNodes, reconcileE2eStack, sleep, summary } from './reconciliation';

export default async function openTheBooks(): Promise<void> {
  if (!e2eStackNodes()) return;
  const started = Date.now();
  let results = reconcileE2eStack();
  while (results.some((r) => r.error) && Date.now() - started < 90_000) {
    await sleep(3_000);
    results = reconcileE2eStack();
  }
  console.log(`[e2e] reconciliation before the suite (${Math.round((Date.now() - started) / 1000)} s):\n${summary(results)}`);
  // Not thrown here: the journeys still run, and the reconciliation after them reports every difference.
  const differences = results.flatMap((r) => r.discrepancies);
  if (differences.length) console.warn(`[e2e] the fresh stack already differs from its books at ${differences.length} balances`);
}
