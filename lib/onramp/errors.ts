/**
 * Errors of the on-ramp domain (quotes, orders): a stable `code` the page and the API branch on, a
 * message the buyer can act on, the HTTP status a route answers with, and structured details.
 */
export type OnrampErrorCode =
  | 'invalid_request'
  | 'invalid_amount'
  | 'invalid_wallet'
  | 'unsupported_token'
  | 'provider_unavailable'
  | 'quote_unavailable'
  | 'below_minimum'
  | 'settles_after_expiry'
  | 'provider_error'
  | 'order_not_found'
  | 'unauthenticated'
  | 'rate_limited';

const STATUS: Record<OnrampErrorCode, number> = {
  invalid_request: 400,
  invalid_amount: 400,
  invalid_wallet: 400,
  unsupported_token: 400,
  provider_unavailable: 409,
  quote_unavailable: 503,
  below_minimum: 422,
  settles_after_expiry: 422,
  provider_error: 502,
  order_not_found: 404,
  unauthenticated: 401,
  rate_limited: 429,
};

export class OnrampError extends Error {
  override name = 'OnrampError';
  readonly status: number;
  constructor(
    readonly code: OnrampErrorCode,
    message: string,
    readonly details?: Record<string, string>,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

export function isOnrampError(error: unknown): error is OnrampError {
  return error instanceof OnrampError;
}
