/**
 * Codes the SDK itself produces, besides the API's own `error.code` values (missing_api_key,
 * unsupported_chain, key_not_permitted, … — see the API reference):
 * - `invalid_response`: the answer was not the API's JSON envelope (e.g. a proxy's HTML error page);
 * - `network_error`: no answer at all (DNS, connection refused, CORS rejection, offline);
 * - `timeout`: no answer within `timeoutMs`;
 * - `secret_key_in_browser`: a secret key was given to the client in a browser;
 * - `popup_blocked`: `pay()` could not open the checkout window;
 * - `payment_in_progress`: `pay()` was called while another payment window was open;
 * - `invalid_webhook_signature` / `invalid_webhook_payload` / `invalid_webhook_secret`: `verifyWebhook()` refused a request;
 * - `not_signed_in` / `sign_in_canceled` / `sign_in_failed`: "Sign in with Chargeport" (`signIn()`) did not give a session.
 */
import type { components } from './generated/openapi.ts';

export type SdkErrorCode =
  | 'invalid_response'
  | 'network_error'
  | 'timeout'
  | 'secret_key_in_browser'
  | 'popup_blocked'
  | 'payment_in_progress'
  | 'invalid_webhook_signature'
  | 'invalid_webhook_payload'
  | 'invalid_webhook_secret'
  | 'not_signed_in'
  | 'sign_in_canceled'
  | 'sign_in_failed';

/** The API's stable error codes (generated from the OpenAPI document's ErrorCode enum). */
export type ApiErrorCode = components['schemas']['ErrorCode'];

export interface ChargeportErrorInit {
  /** HTTP status of the answer; 0 when there was none. */
  status: number;
  code: ApiErrorCode | SdkErrorCode;
  message: string;
  param?: string;
  requestId?: string;
  /** Seconds from the answer's `Retry-After` header (rate limits). */
  retryAfter?: number;
  cause?: unknown;
}

/**
 * Every failure of the SDK: the API's `error` member, or one of the SDK's own codes. Catch a
 * subclass to handle one kind (as Stripe's SDKs do), or this class for all of them.
 */
export class ChargeportError extends Error {
  override name = 'ChargeportError';
  /** HTTP status of the answer; 0 when there was none (network error, refused before sending). */
  readonly status: number;
  /** The API's stable `error.code` (e.g. `unsupported_chain`) or an {@link SdkErrorCode}. */
  readonly code: ApiErrorCode | SdkErrorCode;
  /** Dotted path of the offending field, e.g. `chargeData.chain`, when a field is at fault. */
  readonly param?: string;
  /** The `x-request-id` of the answer: quote it to support. */
  readonly requestId?: string;

  constructor(init: ChargeportErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    if (init.param !== undefined) this.param = init.param;
    if (init.requestId !== undefined) this.requestId = init.requestId;
  }

  /** The subclass for this status and code: what the client throws. */
  static generate(init: ChargeportErrorInit): ChargeportError {
    const { code, status } = init;
    if (code === 'timeout') return new TimeoutError(init);
    if (code === 'network_error') return new ConnectionError(init);
    if (code === 'invalid_webhook_signature' || code === 'invalid_webhook_payload' || code === 'invalid_webhook_secret')
      return new SignatureVerificationError(init);
    if (code === 'idempotency_conflict') return new IdempotencyError(init);
    if (status === 401) return new AuthenticationError(init);
    if (status === 403) return new PermissionError(init);
    if (status === 429) return new RateLimitError(init);
    if (status >= 500 || code === 'invalid_response' || code === 'internal_error') return new APIError(init);
    if (status >= 400) return new InvalidRequestError(init);
    return new ChargeportError(init);
  }
}

/** 401: no key, or a key nobody issued (`missing_api_key`, `invalid_api_key`). */
export class AuthenticationError extends ChargeportError {
  override name = 'AuthenticationError';
}

/** 403: the key may not do this (`key_not_permitted`, `test_key_required`, `origin_not_allowed`, …). */
export class PermissionError extends ChargeportError {
  override name = 'PermissionError';
}

/** 400, 404, 409, 422 and other 4xx: the request cannot succeed as sent; `param` names the field. Do not retry unchanged. */
export class InvalidRequestError extends ChargeportError {
  override name = 'InvalidRequestError';
}

/** 409 `idempotency_conflict`: the same `Idempotency-Key` was sent with other parameters. */
export class IdempotencyError extends ChargeportError {
  override name = 'IdempotencyError';
}

/** 429: too many requests; retry after `retryAfter` seconds (the client already did, `maxRetries` times). */
export class RateLimitError extends ChargeportError {
  override name = 'RateLimitError';
  /** Seconds the API asked to wait (`Retry-After`), when it said. */
  readonly retryAfter?: number;

  constructor(init: ChargeportErrorInit) {
    super(init);
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }
}

/** 5xx, or an answer that is not the API's JSON (`invalid_response`): a problem on Chargeport's side or on the way. Safe to retry with the same idempotency key. */
export class APIError extends ChargeportError {
  override name = 'APIError';
}

/** No answer arrived (`network_error`): offline, DNS, refused, or blocked by CORS. */
export class ConnectionError extends ChargeportError {
  override name = 'ConnectionError';
}

/** No answer within `timeoutMs` (`timeout`). */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
}

/** `verifyWebhook` refused a request (`invalid_webhook_*`): answer 400 and do not act on it. */
export class SignatureVerificationError extends ChargeportError {
  override name = 'SignatureVerificationError';
}

export function isChargeportError(error: unknown): error is ChargeportError {
  return error instanceof ChargeportError;
}
