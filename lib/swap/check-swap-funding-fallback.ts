/**
 * The conversion job's safety net: funding the watcher's signal missed (an RPC that dropped a log, a
 * deployment that was down while it arrived) is still found. Once a minute it walks on through the open
 * charges in expiry order (charges_pending_expiry_idx, from where its last walk stopped, wrapping round) and
 * checks the swap-pair charges it meets, at most FALLBACK_BATCH balance reads and FALLBACK_WALK rows
 * examined per run: a fixed cost whatever the number of open charges. Every open PZP charge is checked
 * once per round: FALLBACK_WALK open charges (of any token), or FALLBACK_BATCH PZP charges, per minute.
 *
 * Where the walk stands is kept per process (a restart begins again with the charges expiring first, the
 * ones that need it most); several instances each walk, which only checks some charges more often.
 */
import { and, asc, gt, gte, inArray, or } from 'drizzle-orm';
import { IN_FLIGHT_HOLD_MS } from '@/lib/charges/payment-in-flight';
import { getDb } from '@/lib/db/client';
import { charges } from '@/lib/db/schema';
import { configuredSwapPairs, swapPairFor } from '@/lib/chains/swap-pairs';
import { convertChargeFunding } from './convert-swap-funding';

/** Open charges examined per run (index rows, no chain read). */
const FALLBACK_WALK = 500;
/** Swap-pair charges checked per run (one balance read each). */
export const FALLBACK_BATCH = 20;

/** Where the walk stands: the last open charge examined. */
export interface FallbackCursor {
  position?: { expiresAt: Date; id: string };
}

const processCursor: FallbackCursor = {};

/** One run: returns the charges checked (for tests and logs). */
export async function checkSwapFundingFallback(now = new Date(), cursor: FallbackCursor = processCursor): Promise<string[]> {
  if (!configuredSwapPairs().length) return [];
  const floor = new Date(now.getTime() - IN_FLIGHT_HOLD_MS);
  const at = cursor.position && cursor.position.expiresAt > floor ? cursor.position : undefined;
  const rows = await getDb()
    .select({ id: charges.id, chain: charges.chain, tokenAddress: charges.tokenAddress, expiresAt: charges.expiresAt })
    .from(charges)
    .where(
      and(
        inArray(charges.status, ['pending', 'processing']),
        at
          ? and(gte(charges.expiresAt, at.expiresAt), or(gt(charges.expiresAt, at.expiresAt), gt(charges.id, at.id)))
          : gt(charges.expiresAt, floor),
      ),
    )
    .orderBy(asc(charges.expiresAt), asc(charges.id))
    .limit(FALLBACK_WALK);

  const checked: string[] = [];
  let last: (typeof rows)[number] | undefined;
  for (const row of rows) {
    if (checked.length === FALLBACK_BATCH) break;
    last = row;
    if (!swapPairFor(row.chain, row.tokenAddress)) continue;
    await convertChargeFunding(row.id, now);
    checked.push(row.id);
  }
  // The end of the open charges: the next run starts again from the first.
  cursor.position = rows.length < FALLBACK_WALK && last === rows.at(-1) ? undefined : last && { expiresAt: last.expiresAt, id: last.id };
  return checked;
}
