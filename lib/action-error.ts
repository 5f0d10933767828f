/**
 * The one way a server action turns an error into its result: an AppError becomes `{ code, message,
 * param?, details? }` for the page to show; anything else is either rethrown (the default, so Next's
 * redirect()/notFound() and bugs reach their boundaries) or, when the action gives a `fallback`
 * message, logged and answered as `internal_error` with that message (no internals leak). Actions use it
 * through their wrapper (lib/api/server-actions.ts).
 */
import { isAppError, type ErrorBody } from '@/lib/errors';
import { log } from '@/lib/log';

interface Fallback {
  message: string;
  log: string;
  context?: Record<string, unknown>;
}

export function actionError(error: unknown, fallback?: Fallback): ErrorBody {
  if (isAppError(error)) return error.toBody();
  if (!fallback) throw error;
  log.error(fallback.log, { ...fallback.context, error });
  return { code: 'internal_error', message: fallback.message };
}

/**
 * What an action called from client code (not a form's `useActionState`, which keeps `FormState`)
 * returns: the API's `{ data, error }` envelope, so the caller branches on `error` and reads its code.
 */
export type ActionResult<T> = { data: T; error?: undefined } | { data?: undefined; error: ErrorBody };
