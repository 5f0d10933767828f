/**
 * Failures while starting a purchase at a provider. Adapters throw OnrampProviderError; callers map
 * it to the product's one error envelope with toAppError(), which never repeats the provider's own
 * response text to the buyer (that stays in `detail`, for logs).
 */
import { AppError } from '@/lib/errors';
import type { OnrampProviderId } from './types';

export type OnrampProviderErrorCode =
  /** The order fails validation (address, amount, token on chain, …). */
  | 'invalid_order'
  /** The provider does not sell this token on this chain (see currency-codes.ts). */
  | 'unsupported_asset'
  /** The provider cannot take this payment method for this fiat currency. */
  | 'unsupported_payment_method'
  /** The provider refused our credentials (401/403): refresh the access token or fix the keys. */
  | 'provider_unauthorized'
  /** The provider rejected the request (other 4xx). */
  | 'provider_rejected'
  /** The provider could not be reached, timed out, or answered 5xx. */
  | 'provider_unavailable'
  /** A 2xx answer that is not the documented shape. */
  | 'provider_bad_response';

export class OnrampProviderError extends Error {
  override name = 'OnrampProviderError';
  readonly code: OnrampProviderErrorCode;
  readonly providerId: OnrampProviderId;
  /** HTTP status of the provider's answer, when there was one. */
  readonly status?: number;
  /** The provider's error text or the validation issue, truncated; for logs only. */
  readonly detail?: string;
  /** Dotted path of the offending order field, for invalid_order. */
  readonly param?: string;

  constructor(
    providerId: OnrampProviderId,
    code: OnrampProviderErrorCode,
    message: string,
    options: { status?: number; detail?: string; param?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.providerId = providerId;
    this.code = code;
    this.status = options.status;
    this.detail = options.detail?.slice(0, 500);
    this.param = options.param;
  }

  /** The product error for the buyer/merchant: specific for our own validation, generic for provider trouble. */
  toAppError(): AppError {
    switch (this.code) {
      case 'invalid_order':
        return new AppError('invalid_request', this.message, this.param === undefined ? {} : { param: this.param });
      case 'unsupported_asset':
        return new AppError('unsupported_token', this.message);
      case 'unsupported_payment_method':
        return new AppError('invalid_request', this.message, { param: 'paymentMethod' });
      case 'provider_unauthorized':
      case 'provider_rejected':
      case 'provider_unavailable':
      case 'provider_bad_response':
        return new AppError(
          'service_unavailable',
          'The payment provider is not available right now. Try again or choose another provider.',
        );
    }
  }
}

export function isOnrampProviderError(error: unknown): error is OnrampProviderError {
  return error instanceof OnrampProviderError;
}
