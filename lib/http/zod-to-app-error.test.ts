import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zodToAppError } from './zod-to-app-error';

const schema = z
  .object({
    url: z.string(),
    enabled: z.boolean().optional(),
    limit: z.coerce.number().int().optional(),
    since: z.coerce.date().optional(),
    nested: z.object({ name: z.string() }).optional(),
  })
  .strict();

/** As parseOrThrow parses: zod reports each issue's input. */
function messageOf(value: unknown, options: { reportInput: boolean } = { reportInput: true }): { message: string; param?: string } {
  const result = schema.safeParse(value, options);
  if (result.success) throw new Error('parsed');
  const error = zodToAppError(result.error);
  return { message: error.message, ...(error.param ? { param: error.param } : {}) };
}

describe('zodToAppError: the message says what is wrong with which field', () => {
  it('an absent field is required', () => {
    expect(messageOf({})).toEqual({ message: 'url: is required', param: 'url' });
    expect(messageOf({ url: 'x', nested: {} })).toEqual({ message: 'nested.name: is required', param: 'nested.name' });
  });

  it('a field of the wrong type says what it must be and what was sent, never "is required"', () => {
    expect(messageOf({ url: 1 })).toEqual({ message: 'url: must be a string (got a number)', param: 'url' });
    expect(messageOf({ url: null })).toEqual({ message: 'url: must be a string (got null)', param: 'url' });
    expect(messageOf({ url: 'x', enabled: 'yes' })).toEqual({ message: 'enabled: must be true or false (got a string)', param: 'enabled' });
    expect(messageOf({ url: 'x', nested: [] })).toEqual({ message: 'nested: must be a JSON object (got an array)', param: 'nested' });
  });

  it('query coercions: a number or a date that is none', () => {
    expect(messageOf({ url: 'x', limit: 'abc' })).toEqual({ message: 'limit: must be a number', param: 'limit' });
    expect(messageOf({ url: 'x', since: 'tuesday-ish' }).message).toMatch(/^since: must be a date-time \(ISO 8601/);
  });

  it('without the input reported (a ZodError thrown elsewhere), an absent field is still told from a wrong one', () => {
    expect(messageOf({}, { reportInput: false })).toEqual({ message: 'url: is required', param: 'url' });
    expect(messageOf({ url: 1 }, { reportInput: false })).toEqual({ message: 'url: must be a string', param: 'url' });
  });

  it('a body that is not an object says so, without a param', () => {
    expect(messageOf([])).toEqual({ message: 'The request body must be a JSON object (got an array).' });
    expect(messageOf(null)).toEqual({ message: 'The request body must be a JSON object (got null).' });
    expect(messageOf('x')).toEqual({ message: 'The request body must be a JSON object (got a string).' });
    expect(messageOf(42)).toEqual({ message: 'The request body must be a JSON object (got a number).' });
  });
});
