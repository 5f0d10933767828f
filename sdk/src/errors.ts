/**
 * Codes the SDK itself produces, besides the API's own `error.code` values (missing_api_key,
 * unsupported_chain, key_not_permitted, … — see the API reference):
 * - `invalid_response`: the answer was not the API's JSON envelope (e.g. a proxy's HTML error page);
 * - `network_error`: no answer at all (DNS, connection refused, CORS rejection, offline);
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
  cause?: unknown;
}

/** Every failure of the SDK: the API's `error` member, or one of the SDK's own codes. */
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
}

export function isChargeportError(error: unknown): error is ChargeportError {
  return error instanceof ChargeportError;
}
