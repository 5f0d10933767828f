/**
 * findForkBase against a chain stood in for by its block hashes: the binary search finds the newest checkpoint
 * still canonical, and a base found before for the same checkpoints is confirmed with one read, not searched
 * for again (a poll that failed after the search saves nothing, so the next one meets the same checkpoints).
 */
import { BlockNotFoundError, type PublicClient } from 'viem';
import { describe, expect, it } from 'vitest';
import type { ScannerCheckpoint } from '@/lib/db/schema';
import { findForkBase } from './cursor';

/** A chain of `length` blocks whose hashes are `${tag}-${n}` from `forkAt` on and `a-${n}` below it. */
function chain(options: { length: number; forkAt?: number; tag?: string }) {
  let reads = 0;
  const hashAt = (n: number) => `${n >= (options.forkAt ?? Infinity) ? (options.tag ?? 'b') : 'a'}-${n}`;
  const client = {
    getBlock: async ({ blockNumber }: { blockNumber: bigint }) => {
      reads++;
      const n = Number(blockNumber);
      if (n >= options.length) throw new BlockNotFoundError({ blockNumber });
      return { number: blockNumber, hash: hashAt(n) };
    },
  } as unknown as PublicClient;
  return { client, reads: () => reads };
}

/** Checkpoints every 10 blocks of the original chain `a`: 128 of them, blocks 0 … 1270. */
const CHECKPOINTS: ScannerCheckpoint[] = Array.from({ length: 128 }, (_, i) => ({ n: String(i * 10), h: `a-${i * 10}` }));

describe('findForkBase', () => {
  it('finds the newest checkpoint below the fork by binary search, or none when the fork is deeper than all', async () => {
    const forked = chain({ length: 1300, forkAt: 905 });
    expect(await findForkBase(forked.client, CHECKPOINTS)).toBe(900n);
    expect(forked.reads()).toBeLessThanOrEqual(8);
    expect(await findForkBase(chain({ length: 1300, forkAt: 0 }).client, CHECKPOINTS)).toBeUndefined();
    // The chain now ends below the newest checkpoints: those are gone, the ones below still hold.
    expect(await findForkBase(chain({ length: 1000 }).client, CHECKPOINTS)).toBe(990n);
  });

  it('remembered: the same checkpoints again cost one read while the base holds, a new search once it does not', async () => {
    const first = chain({ length: 1300, forkAt: 905 });
    expect(await findForkBase(first.client, CHECKPOINTS, 'POLYGON:test-remember')).toBe(900n);
    expect(first.reads()).toBeGreaterThan(5);

    // The poll failed after the search; the next meets the same checkpoints and the same chain.
    const again = chain({ length: 1300, forkAt: 905 });
    expect(await findForkBase(again.client, CHECKPOINTS, 'POLYGON:test-remember')).toBe(900n);
    expect(again.reads()).toBe(1);

    // A deeper re-organisation since: the remembered base is no longer canonical, so it searches again.
    const deeper = chain({ length: 1300, forkAt: 455, tag: 'c' });
    expect(await findForkBase(deeper.client, CHECKPOINTS, 'POLYGON:test-remember')).toBe(450n);
    expect(deeper.reads()).toBeGreaterThan(5);

    // Other checkpoints (the cursor moved on), or another consumer: no reuse.
    const moved = [...CHECKPOINTS.slice(1), { n: '1280', h: 'a-1280' }];
    const other = chain({ length: 1300, forkAt: 455, tag: 'c' });
    expect(await findForkBase(other.client, moved, 'POLYGON:test-remember')).toBe(450n);
    expect(other.reads()).toBeGreaterThan(5);
    const otherConsumer = chain({ length: 1300, forkAt: 455, tag: 'c' });
    expect(await findForkBase(otherConsumer.client, CHECKPOINTS, 'POLYGON:someone-else')).toBe(450n);
    expect(otherConsumer.reads()).toBeGreaterThan(5);
  });
});
