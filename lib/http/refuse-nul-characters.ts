import { AppError } from '@/lib/errors';

/**
 * Input text never carries a NUL character (U+0000): PostgreSQL cannot store one in text, json or jsonb, so
 * one that got through would fail its INSERT or SELECT as a 500 (or be kept, in a `json` column). Every
 * string of a request is checked here at the boundary, and the first that carries one is refused, naming
 * where it is: in a JSON body or the query, 400 invalid_request; in a path parameter (a `%00` in the URL
 * reaches the handler decoded), 404 not_found, as any id that names nothing. Returns `value`, so a reader
 * can wrap what it hands on.
 */
export function refuseNulCharacters<T>(value: T, options: { in: 'body' | 'query' | 'path' }): T {
  const path = pathOfNul(value, []);
  if (!path) return value;
  const param = path.join('.');
  if (options.in === 'path') {
    throw new AppError('not_found', `${param}: contains a NUL character (\\u0000), which no id has.`, { param });
  }
  throw new AppError(
    'invalid_request',
    `${param ? `${param}: contains` : 'The request body contains'} a NUL character (\\u0000), which no field accepts.`,
    param ? { param } : {},
  );
}

function pathOfNul(value: unknown, path: string[]): string[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, inner] of Object.entries(value)) {
    const at = key.includes('\u0000') ? [...path, key.replaceAll('\u0000', '\\u0000')] : pathOfNul(inner, [...path, key]);
    if (at) return at;
  }
  return null;
}
