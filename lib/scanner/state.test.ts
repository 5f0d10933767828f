import { describe, expect, it } from 'vitest';
import { decideRecheck, dropAfterBlocks, MEMPOOL_GRACE_BLOCKS, type OnChainSighting } from './state';

const inBlock: OnChainSighting = { kind: 'in_block' };
const ahead: OnChainSighting = { kind: 'reincluded_ahead' };
const gone: OnChainSighting = { kind: 'missing', inMempool: false };
const queued: OnChainSighting = { kind: 'missing', inMempool: true };

describe('re-checking a pending transfer', () => {
  it.each([
    // [what, block, missing since, sighting, head, depth, decision]
    ['deep enough in its block → confirmed', 100n, null, inBlock, 102n, 3, { action: 'confirm' }],
    ['not deep enough yet → kept', 100n, null, inBlock, 101n, 3, { action: 'keep' }],
    ['back in its block after a miss → the miss is forgotten', 100n, 101n, inBlock, 101n, 3, { action: 'clear_missing' }],
    ['re-included ahead of the scan → kept', 100n, null, ahead, 104n, 3, { action: 'keep' }],
    ['re-included ahead after a miss → the miss is forgotten', 100n, 103n, ahead, 104n, 3, { action: 'clear_missing' }],
    ['first miss → remembered, never dropped', 100n, null, gone, 104n, 3, { action: 'mark_missing', sinceBlock: 104n }],
    ['missing for fewer blocks than the depth → kept', 100n, 104n, gone, 106n, 3, { action: 'keep' }],
    ['missing for the depth → dropped', 100n, 104n, gone, 107n, 3, { action: 'drop' }],
    ['missing on a depth-1 chain: still two blocks of re-checks', 100n, 104n, gone, 105n, 1, { action: 'keep' }],
    ['in a mempool for the depth → kept (it may be mined late)', 100n, 104n, queued, 107n, 3, { action: 'keep' }],
  ] as const)('%s', (_what, blockNumber, missingSinceBlock, sighting, latest, confirmations, decision) => {
    expect(decideRecheck({ blockNumber, missingSinceBlock, sighting, latest, confirmations })).toEqual(decision);
  });

  it('a transaction held in a mempool is dropped only after a grace period past the depth', () => {
    expect(dropAfterBlocks(3, true)).toBe(3n + MEMPOOL_GRACE_BLOCKS);
    expect(
      decideRecheck({
        blockNumber: 1n,
        missingSinceBlock: 10n,
        sighting: queued,
        latest: 10n + 3n + MEMPOOL_GRACE_BLOCKS,
        confirmations: 3,
      }),
    ).toEqual({
      action: 'drop',
    });
  });
});
