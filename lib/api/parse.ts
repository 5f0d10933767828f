import type { z } from 'zod';
import { refuseNulCharacters } from '@/lib/http/refuse-nul-characters';
import { zodToAppError } from '@/lib/http/zod-to-app-error';

/**
 * Validate with a domain schema; the first problem becomes invalid_request naming the field. zod reports
 * each issue's input, so the message can tell an absent field from one of the wrong type.
 */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, prefix?: string): z.output<T> {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw zodToAppError(result.error, prefix);
  return result.data;
}

export function searchParamsObject(request: Request): Record<string, string> {
  return refuseNulCharacters(Object.fromEntries(new URL(request.url).searchParams.entries()), { in: 'query' });
}
