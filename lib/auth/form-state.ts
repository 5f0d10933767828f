import { isAppError } from '@/lib/errors';

/** What a form's server action returns: the error to show next to the field, and the values to keep. */
export interface FormState {
  error?: { message: string; param?: string };
  values?: Record<string, string>;
  notice?: string;
}

/** Turns a domain error into form state; anything else (including Next's redirects) is rethrown. */
export function formError(error: unknown, values?: Record<string, string>): FormState {
  if (isAppError(error)) return { error: { message: error.message, param: error.param }, values };
  throw error;
}
