import type { ErrorBody } from '@/lib/errors';

/** What a form's server action returns (lib/api/server-actions.ts builds it): the error to show next to the field, and the values to keep. */
export interface FormState {
  /** The AppError's body (lib/action-error.ts): `code` is stable (tests and the security table read it), the page shows `message`. */
  error?: ErrorBody;
  values?: Record<string, string>;
  notice?: string;
}
