import { describe, expect, it } from 'vitest';
import { AppError } from '@/lib/errors';
import { actionError, actionResult } from './action-error';

describe('actionError / actionResult: the one result of a server action', () => {
  it('an AppError becomes its body; data comes back as { data }', async () => {
    expect(await actionResult(async () => ({ orderId: 'ord_1' }))).toEqual({ data: { orderId: 'ord_1' } });
    expect(
      await actionResult(async () => {
        throw new AppError('below_minimum', 'Buy at least 20 USDC.', { param: 'amount', details: { minimum: '20' } });
      }),
    ).toEqual({ error: { code: 'below_minimum', message: 'Buy at least 20 USDC.', param: 'amount', details: { minimum: '20' } } });
  });

  it('anything else is rethrown (redirects and bugs reach their boundaries) unless a fallback message is given', async () => {
    const bug = new Error('password=hunter2 at db.internal:5432');
    expect(() => actionError(bug)).toThrow(bug);
    await expect(actionResult(async () => Promise.reject(bug))).rejects.toBe(bug);
    const answered = await actionResult(async () => Promise.reject(bug), { log: 'test action failed', message: 'Try again in a moment.' });
    expect(answered).toEqual({ error: { code: 'internal_error', message: 'Try again in a moment.' } });
  });
});
