import { describe, expect, it } from 'vitest';
import { TRANSFER_OUTCOME_HOOKS } from '@/lib/jobs/transfer-outcome-hooks';
import { TRANSFER_PURPOSES } from './state';
import { outcomeHookFor, PURPOSES_WITH_OUTCOME } from './transfer-outcome';

describe('outcomeHookFor', () => {
  it('gives the purpose its hook, and nothing for a purpose without one', () => {
    expect(outcomeHookFor(TRANSFER_OUTCOME_HOOKS, 'refund')).toBe(TRANSFER_OUTCOME_HOOKS.refund);
    expect(outcomeHookFor({}, 'wallet_send')).toBeUndefined();
    expect(outcomeHookFor({}, 'sweep')).toBeUndefined();
  });

  it('refuses to end a transfer whose owner would not be told: a reconciler without the hook cannot finish it', () => {
    for (const purpose of PURPOSES_WITH_OUTCOME) {
      expect(() => outcomeHookFor({}, purpose)).toThrow(`no outcome hook for a ${purpose} transfer`);
    }
  });

  it('the background table has a hook for every purpose that needs one, and only those', () => {
    expect(Object.keys(TRANSFER_OUTCOME_HOOKS).sort()).toEqual([...PURPOSES_WITH_OUTCOME].sort());
    for (const purpose of PURPOSES_WITH_OUTCOME) expect(TRANSFER_PURPOSES).toContain(purpose);
  });
});
