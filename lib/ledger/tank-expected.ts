/**
 * The gas tank's books, shared by ./reconcile-chains.ts (EVM, compared at a block) and ./reconcile-solana.ts
 * (Solana, compared at a slot). The tank is funded from outside, before any record, so its books open at the
 * first run that reads it (ledger_openings: balance and ledger sum there); afterwards its expected balance is
 * that balance plus its ledger entries since.
 */
import { and, eq } from 'drizzle-orm';
import type { ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { ledgerOpenings } from '@/lib/db/schema';
import { log } from '@/lib/log';

type Opening = { blockNumber: bigint; balanceBaseUnits: bigint; ledgerBaseUnits: bigint };

/** The tank's opened books on `chain`, by token. */
export async function tankOpenings(chain: ChainName, tank: string): Promise<Map<string, Opening>> {
  const rows = await getDb()
    .select()
    .from(ledgerOpenings)
    .where(and(eq(ledgerOpenings.chain, chain), eq(ledgerOpenings.address, tank)));
  return new Map(rows.map((row) => [row.token, row]));
}

/**
 * The tank's expected balance of `token` at `at` (a block, or the slot it was read at): its opening balance
 * plus its ledger entries since (funding in, top-ups, fees and rent out). The first run that reads it opens its
 * books there (so it reports no difference that run) and adds them to `openings`. Null when `at` is before the
 * opening (a node behind the one that opened them): not comparable this run.
 */
export async function tankExpected(input: {
  chain: ChainName;
  tank: string;
  token: string;
  at: bigint;
  /** What `at` counts, for the log line: EVM blocks or Solana slots. */
  unit: 'block' | 'slot';
  /** The ledger's sum of the tank's entries up to `at`. */
  ledger: bigint;
  actual: bigint;
  openings: Map<string, Opening>;
}): Promise<bigint | null> {
  const { chain, tank, token, at, unit, ledger, actual, openings } = input;
  let opening = openings.get(token);
  if (!opening) {
    const [row] = await getDb()
      .insert(ledgerOpenings)
      .values({ chain, address: tank, token, blockNumber: at, balanceBaseUnits: actual, ledgerBaseUnits: ledger })
      .onConflictDoNothing()
      .returning();
    if (row)
      log.info('gas tank books opened', {
        chain,
        token,
        [unit === 'block' ? 'atBlock' : 'atSlot']: at.toString(),
        balance: actual.toString(),
      });
    opening = row ?? (await tankOpenings(chain, tank)).get(token)!;
    openings.set(token, opening);
  }
  if (at < opening.blockNumber) return null;
  return opening.balanceBaseUnits + ledger - opening.ledgerBaseUnits;
}
