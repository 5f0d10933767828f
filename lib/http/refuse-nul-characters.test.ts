import { describe, expect, it } from 'vitest';
import { AppError } from '@/lib/errors';
import { refuseNulCharacters } from './refuse-nul-characters';

function refusal(run: () => unknown): { code: string; message: string; param?: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, message: error.message, ...(error.param ? { param: error.param } : {}) };
    throw error;
  }
  throw new Error('not refused');
}

describe('refuseNulCharacters: PostgreSQL stores no U+0000, so no input text may carry one', () => {
  it('passes anything without one through unchanged', () => {
    const body = { a: 'x', b: [1, 'y', { c: null }], d: true, é: 'ünïcødé 💥' };
    expect(refuseNulCharacters(body, { in: 'body' })).toBe(body);
  });

  it('a body or query string with one is 400 invalid_request naming the field', () => {
    expect(refusal(() => refuseNulCharacters({ chargeData: { metadata: { orderId: 'a\u0000' } } }, { in: 'body' }))).toEqual({
      code: 'invalid_request',
      message: 'chargeData.metadata.orderId: contains a NUL character (\\u0000), which no field accepts.',
      param: 'chargeData.metadata.orderId',
    });
    expect(refusal(() => refuseNulCharacters({ items: ['ok', '\u0000'] }, { in: 'body' })).param).toBe('items.1');
    expect(refusal(() => refuseNulCharacters({ 'k\u0000': 1 }, { in: 'body' })).param).toBe('k\\u0000');
    expect(refusal(() => refuseNulCharacters('\u0000', { in: 'body' }))).toEqual({
      code: 'invalid_request',
      message: 'The request body contains a NUL character (\\u0000), which no field accepts.',
    });
    expect(refusal(() => refuseNulCharacters({ starting_after: 'ch_\u0000' }, { in: 'query' })).param).toBe('starting_after');
  });

  it('a path parameter with one names nothing: 404 not_found', () => {
    expect(refusal(() => refuseNulCharacters({ chargeId: 'ch_\u0000' }, { in: 'path' }))).toEqual({
      code: 'not_found',
      message: 'chargeId: contains a NUL character (\\u0000), which no id has.',
      param: 'chargeId',
    });
  });
});
