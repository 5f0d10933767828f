import { describe, expect, it } from 'vitest';
import { SWAP_EXECUTION_STATUSES, swapExecutionMachine } from './state';

describe('the swap execution state machine', () => {
  it('ends in confirmed or failed, and never leaves them', () => {
    const { table } = swapExecutionMachine;
    expect(Object.keys(table).sort()).toEqual([...SWAP_EXECUTION_STATUSES].sort());
    expect(table.confirmed).toEqual([]);
    expect(table.failed).toEqual([]);
    expect(swapExecutionMachine.leadingTo('confirmed').sort()).toEqual(['broadcast', 'signed']);
    expect(swapExecutionMachine.leadingTo('signed')).toEqual([]);
  });
});
