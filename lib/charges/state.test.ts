import { describe, expect, it } from 'vitest';
import { IllegalTransitionError } from '@/lib/state-machine';
import { CHARGE_STATUSES, chargeMachine } from './state';

describe('charge state machine', () => {
  it('allows exactly the documented transitions', () => {
    const allowed = CHARGE_STATUSES.flatMap((from) =>
      CHARGE_STATUSES.filter((to) => chargeMachine.can(from, to)).map((to) => `${from}→${to}`),
    );
    expect(allowed.sort()).toEqual(
      ['pending→processing', 'pending→expired', 'pending→canceled', 'processing→succeeded', 'processing→failed'].sort(),
    );
  });

  it('final statuses have no way out', () => {
    expect(CHARGE_STATUSES.filter(chargeMachine.isTerminal).sort()).toEqual(['canceled', 'expired', 'failed', 'succeeded']);
  });

  it('assert throws with both statuses named', () => {
    expect(() => chargeMachine.assert('succeeded', 'pending')).toThrow(IllegalTransitionError);
    expect(() => chargeMachine.assert('expired', 'canceled')).toThrow('A charge cannot go from expired to canceled');
    expect(() => chargeMachine.assert('pending', 'canceled')).not.toThrow();
  });

  it('leadingTo inverts the table', () => {
    expect(chargeMachine.leadingTo('succeeded')).toEqual(['processing']);
    expect(chargeMachine.leadingTo('pending')).toEqual([]);
  });
});
