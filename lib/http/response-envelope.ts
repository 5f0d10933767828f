/**
 * The wire envelope of the spec: `{ data, error: null }` on success, `{ data: null, error: { code,
 * message, param? } }` with the code's HTTP status on failure. Unknown errors are logged with the
 * request id and answered with a generic 500 that leaks nothing.
 */
import { ZodError } from 'zod';
import { AppError, isAppError } from '@/lib/errors';
import { log } from '@/lib/log';
import { zodToAppError } from './zod-to-app-error';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function ok(data: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(stringify({ data, error: null }), {
    status: init.status ?? 200,
    headers: { ...JSON_HEADERS, ...init.headers },
  });
}

export function fail(error: unknown, requestId: string): Response {
  const appError = toAppError(error, requestId);
  return new Response(stringify({ data: null, error: appError.toBody() }), {
    status: appError.status,
    headers: { ...JSON_HEADERS, 'x-request-id': requestId, ...appError.headers },
  });
}

function toAppError(error: unknown, requestId: string): AppError {
  if (isAppError(error)) return error;
  if (error instanceof ZodError) return zodToAppError(error);
  log.error('unhandled error', { requestId, error });
  return new AppError('internal_error', `Something went wrong on our side. Quote request id ${requestId} to support.`);
}

/** JSON.stringify that writes bigints as decimal strings (they never reach here as numbers). */
function stringify(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));
}
