import { describe, expect, it } from 'vitest';
import { CHARGE_STATUSES, IllegalTransitionError, assertTransition, canTransition, isFinal, statusesLeadingTo } from './state';

describe('charge state machine', () => {
  it('allows exactly the documented transitions', () => {
    const allowed = CHARGE_STATUSES.flatMap((from) => CHARGE_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}→${to}`));
    expect(allowed.sort()).toEqual(
      ['pending→processing', 'pending→expired', 'pending→canceled', 'processing→succeeded', 'processing→failed'].sort(),
    );
  });

  it('final statuses have no way out', () => {
    expect(CHARGE_STATUSES.filter(isFinal).sort()).toEqual(['canceled', 'expired', 'failed', 'succeeded']);
  });

  it('assertTransition throws with both statuses named', () => {
    expect(() => assertTransition('succeeded', 'pending')).toThrow(IllegalTransitionError);
    expect(() => assertTransition('expired', 'canceled')).toThrow('A charge cannot go from expired to canceled');
    expect(() => assertTransition('pending', 'canceled')).not.toThrow();
  });

  it('statusesLeadingTo inverts the table', () => {
    expect(statusesLeadingTo('succeeded')).toEqual(['processing']);
    expect(statusesLeadingTo('pending')).toEqual([]);
  });
});
