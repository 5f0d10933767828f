import type { ZodError } from 'zod';
import { AppError } from '@/lib/errors';

/** What a field of each zod type must be, in the words of the API reference. */
const EXPECTED: Record<string, string> = {
  object: 'a JSON object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  date: 'a date-time (ISO 8601, such as 2026-01-31T12:00:00Z)',
};

/** What was sent instead, as the message names it (`null`, `an array`, `a string`, …). */
function sentKind(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  if (typeof input === 'object') return 'an object';
  return typeof input === 'number' || typeof input === 'string' ? `a ${typeof input}` : typeof input;
}

/**
 * The first zod issue becomes the error: its path is `param`, and the message names the field. A field that
 * is absent "is required"; one of the wrong type "must be" what it takes (and what was sent, when the issue
 * reports its input: parseOrThrow asks zod for it); a body that is not an object says so. Zod's own
 * "Invalid input: expected …, received …" never reaches the caller for a type error.
 */
export function zodToAppError(error: ZodError, prefix?: string): AppError {
  const issue = error.issues[0]!;
  const pathParts = [...(prefix ? [prefix] : []), ...issue.path.map(String)];
  const param = pathParts.join('.');
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    const fieldParam = [...pathParts, issue.keys[0]].join('.');
    message = `Unknown field${issue.keys.length > 1 ? 's' : ''} ${keys}${param ? ` in ${param}` : ''}: check the spelling against the API reference.`;
    return new AppError('invalid_request', message, { param: fieldParam });
  }
  if (issue.code === 'invalid_type') {
    // Without reportInput zod leaves `input` out of every issue: then only its message tells an absent field.
    const absent = 'input' in issue ? issue.input === undefined && !('received' in issue) : /received undefined$/.test(issue.message);
    const expected = EXPECTED[issue.expected] ?? issue.expected;
    // Coercions (query numbers, dates) report `received` (NaN, Invalid Date) and no usable input.
    const sent = 'input' in issue && !('received' in issue) ? ` (got ${sentKind(issue.input)})` : '';
    if (!param)
      return new AppError('invalid_request', absent ? 'The request body is required.' : `The request body must be ${expected}${sent}.`);
    message = absent ? 'is required' : `must be ${expected}${sent}`;
  }
  return new AppError('invalid_request', param ? `${param}: ${message}` : message, param ? { param } : {});
}
