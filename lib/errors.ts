/**
 * One error type for the whole product. Each code has one HTTP status; the table below is the
 * documented list (README "Error codes"). Messages say what to fix; `param` names the offending
 * field as a dotted path when there is one.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  test_key_required: 403,
  live_key_required: 403,
  verification_required: 403,
  key_not_permitted: 403,
  unauthenticated: 401,
  code_incorrect: 400,
  code_expired: 400,
  pin_not_set: 403,
  pin_incorrect: 403,
  email_not_verified: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  charge_not_cancelable: 409,
  payment_in_progress: 409,
  account_exists: 409,
  use_other_sign_in: 409,
  pin_locked: 423,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unsupported_chain: 422,
  chain_not_configured: 422,
  unsupported_token: 422,
  invalid_address: 422,
  amount_mismatch: 422,
  invalid_amount: 422,
  rate_limited: 429,
  code_attempts_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
  pin_too_simple: 400,
  pin_already_set: 409,
  pin_disabled: 423,
  phone_in_use: 409,
  phone_not_linked: 409,
  charge_not_payable: 409,
  insufficient_balance: 422,
  chain_unavailable: 503,
  invalid_webhook_url: 400,
  webhook_endpoint_limit: 409,
  gas_sponsorship_limit: 429,
  gas_tank_empty: 503,
  amount_below_minimum: 422,
  refund_exceeds_refundable: 422,
  refund_destination_required: 422,
  refund_not_possible: 409,
  step_up_required: 403,
  step_up_failed: 403,
  two_factor_required: 403,
  second_factor_required: 401,
  withdrawal_held: 409,
  origin_not_allowed: 403,
  redirect_not_allowed: 403,
  open_charge_limit: 429,
  sms_country_not_allowed: 422,
  email_already_verified: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  param?: string;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly param?: string;
  /** Extra response headers, e.g. Retry-After on rate_limited. */
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { param?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.code = code;
    this.param = options.param;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return this.param === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, param: this.param };
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
