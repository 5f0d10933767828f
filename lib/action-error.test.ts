import { describe, expect, it } from 'vitest';
import { AppError } from '@/lib/errors';
import { actionError } from './action-error';

// The wrappers built on it (userAction, userCall, …) are tested in lib/api/server-actions.test.ts.
describe('actionError: the one error of a server action', () => {
  it('an AppError becomes its body', () => {
    expect(actionError(new AppError('below_minimum', 'Buy at least 20 USDC.', { param: 'amount', details: { minimum: '20' } }))).toEqual({
      code: 'below_minimum',
      message: 'Buy at least 20 USDC.',
      param: 'amount',
      details: { minimum: '20' },
    });
  });

  it('anything else is rethrown (redirects and bugs reach their boundaries) unless a fallback message is given', () => {
    const bug = new Error('password=hunter2 at db.internal:5432');
    expect(() => actionError(bug)).toThrow(bug);
    expect(actionError(bug, { log: 'test action failed', message: 'Try again in a moment.' })).toEqual({
      code: 'internal_error',
      message: 'Try again in a moment.',
    });
  });
});
