/**
 * The scanner's cursor per (chain, consumer): the last block scanned, the ends of recent windows
 * (checkpoints) to find where a re-organisation forked, and the time up to which every block was scanned.
 */
import { and, eq } from 'drizzle-orm';
import { BlockNotFoundError, type PublicClient } from 'viem';
import type { ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { scannerCursors, type ScannerCheckpoint } from '@/lib/db/schema';
import type { ScannerConsumerName } from './types';

/** Window ends kept: a re-organisation up to this many polls deep is rewound exactly to its fork. */
const CHECKPOINTS_KEPT = 128;

export type ScannerCursor = typeof scannerCursors.$inferSelect;

export async function loadCursor(tx: DbOrTx, chain: ChainName, consumer: ScannerConsumerName): Promise<ScannerCursor | undefined> {
  const [cursor] = await tx
    .select()
    .from(scannerCursors)
    .where(and(eq(scannerCursors.chain, chain), eq(scannerCursors.consumer, consumer)));
  return cursor;
}

/**
 * The fork base last found per (chain, consumer), with the checkpoints it was found among. A poll that finds
 * the fork and then fails (a provider error later in the poll) saves no cursor, so the next poll meets the
 * same checkpoints: it checks the remembered base with one block read instead of searching again (7 reads
 * for 128 checkpoints), which matters most when the provider is the one failing.
 */
const rememberedForkBases = new Map<string, { checkpoints: string; base: ScannerCheckpoint }>();

const checkpointsKey = (checkpoints: readonly ScannerCheckpoint[]) =>
  `${checkpoints.length}:${checkpoints.at(-1)?.n}:${checkpoints.at(-1)?.h}`;

async function blockHashAt(client: PublicClient, number: string): Promise<string | undefined> {
  const block = await client.getBlock({ blockNumber: BigInt(number) }).catch((error: unknown) => {
    if (error instanceof BlockNotFoundError) return null;
    throw error;
  });
  return block?.hash;
}

/**
 * The newest checkpoint still on the canonical chain (the fork base), by binary search: checkpoints
 * below the fork are all canonical, those above it none. Undefined when none is (deeper than kept).
 * With `rememberAs`, a base found for the same checkpoints before is reused once its block is confirmed
 * unchanged: a block whose hash still matches is canonical, and so scanning from it is right whatever
 * happened above it since (at worst a block or two more is scanned again, which recording tolerates).
 */
export async function findForkBase(
  client: PublicClient,
  checkpoints: readonly ScannerCheckpoint[],
  rememberAs?: string,
): Promise<bigint | undefined> {
  const key = checkpointsKey(checkpoints);
  const remembered = rememberAs === undefined ? undefined : rememberedForkBases.get(rememberAs);
  if (remembered?.checkpoints === key && (await blockHashAt(client, remembered.base.n)) === remembered.base.h) {
    return BigInt(remembered.base.n);
  }
  let low = 0;
  let high = checkpoints.length - 1;
  let base: ScannerCheckpoint | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const point = checkpoints[middle]!;
    if ((await blockHashAt(client, point.n)) === point.h) {
      base = point;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  if (rememberAs !== undefined) {
    if (base) rememberedForkBases.set(rememberAs, { checkpoints: key, base });
    else rememberedForkBases.delete(rememberAs);
  }
  return base === undefined ? undefined : BigInt(base.n);
}

export async function saveCursor(
  tx: DbOrTx,
  {
    chain,
    consumer,
    previous,
    from,
    to,
    toHash,
    scannedUntil,
  }: {
    chain: ChainName;
    consumer: ScannerConsumerName;
    previous: ScannerCursor | undefined;
    /** The window scanned: checkpoints at or above `from` were re-scanned (or orphaned) and are replaced. */
    from: bigint;
    to: bigint;
    toHash: string;
    scannedUntil: Date;
  },
): Promise<void> {
  const checkpoints = [...(previous?.checkpoints ?? []).filter((point) => BigInt(point.n) < from), { n: to.toString(), h: toHash }].slice(
    -CHECKPOINTS_KEPT,
  );
  const values = { lastBlock: to, lastBlockHash: toHash, checkpoints, scannedUntil, updatedAt: new Date() };
  await tx
    .insert(scannerCursors)
    .values({ chain, consumer, ...values })
    .onConflictDoUpdate({ target: [scannerCursors.chain, scannerCursors.consumer], set: values });
}

/** Nothing new above the cursor (a quiet chain): every block up to `scannedUntil` is known to be scanned. */
export async function advanceScannedUntil(tx: DbOrTx, cursor: ScannerCursor, scannedUntil: Date): Promise<void> {
  if (cursor.scannedUntil && cursor.scannedUntil >= scannedUntil) return;
  await tx
    .update(scannerCursors)
    .set({ scannedUntil, updatedAt: new Date() })
    .where(and(eq(scannerCursors.chain, cursor.chain), eq(scannerCursors.consumer, cursor.consumer)));
}
