import { actionError } from '@/lib/action-error';

/** What a form's server action returns: the error to show next to the field, and the values to keep. */
export interface FormState {
  /** `code` is the AppError's stable code (tests and the security table read it; the page shows the message). */
  error?: { message: string; param?: string; code?: string };
  values?: Record<string, string>;
  notice?: string;
}

/** Turns a domain error into form state; anything else (including Next's redirects) is rethrown. */
export function formError(error: unknown, values?: Record<string, string>): FormState {
  const { message, param, code } = actionError(error);
  return { error: { message, param, code }, values };
}
