import { actionError } from '@/lib/action-error';
import type { ErrorBody } from '@/lib/errors';

/** What a form's server action returns: the error to show next to the field, and the values to keep. */
export interface FormState {
  /** The AppError's body (lib/action-error.ts): `code` is stable (tests and the security table read it), the page shows `message`. */
  error?: ErrorBody;
  values?: Record<string, string>;
  notice?: string;
}

/** Turns a domain error into form state; anything else (including Next's redirects) is rethrown. */
export function formError(error: unknown, values?: Record<string, string>): FormState {
  return { error: actionError(error), values };
}
