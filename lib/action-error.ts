/**
 * The one way a server action turns an error into its result: an AppError becomes `{ code, message,
 * param?, details? }` for the form to show; anything else is either rethrown (the default, so Next's
 * redirect()/notFound() and bugs reach their boundaries) or, when the action gives a `fallback`
 * message, logged and answered as `internal_error` with that message (no internals leak).
 */
import { isAppError, type ErrorBody } from '@/lib/errors';
import { log } from '@/lib/log';

export function actionError(error: unknown, fallback?: { message: string; log: string; context?: Record<string, unknown> }): ErrorBody {
  if (isAppError(error)) return error.toBody();
  if (!fallback) throw error;
  log.error(fallback.log, { ...fallback.context, error });
  return { code: 'internal_error', message: fallback.message };
}
