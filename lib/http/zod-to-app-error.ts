import type { ZodError } from 'zod';
import { AppError } from '@/lib/errors';

/** The first zod issue becomes the error: its path is `param`, and the message names the field. */
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
  if (issue.code === 'invalid_type' && issue.input === undefined) message = 'is required';
  return new AppError('invalid_request', param ? `${param}: ${message}` : message, param ? { param } : {});
}
