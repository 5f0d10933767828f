/**
 * Every failure of @chargeport/node: the API's `error` member (`code` is one of the API's stable codes,
 * `ErrorCode`), or one of the SDK's own codes with status 0:
 * - `network_error`: no answer (connection refused, DNS) after the retries;
 * - `timeout`: no answer within `timeoutMs` after the retries;
 * - `invalid_response`: the answer was not the API's JSON envelope;
 * - `invalid_webhook_signature` / `invalid_webhook_payload` / `invalid_webhook_secret`: constructEvent refused.
 */
import type { components } from './generated/openapi.ts';

export type ErrorCode = components['schemas']['ErrorCode'];
export type SdkErrorCode =
  'network_error' | 'timeout' | 'invalid_response' | 'invalid_webhook_signature' | 'invalid_webhook_payload' | 'invalid_webhook_secret';

export class ChargeportError extends Error {
  override name = 'ChargeportError';
  /** HTTP status of the answer; 0 when there was none. */
  readonly status: number;
  readonly code: ErrorCode | SdkErrorCode;
  /** Dotted path of the offending field (`chargeData.chain`), when a field is at fault. */
  readonly param?: string;
  /** The answer's `x-request-id`: quote it to support. */
  readonly requestId?: string;

  constructor(init: {
    status: number;
    code: ErrorCode | SdkErrorCode;
    message: string;
    param?: string;
    requestId?: string;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    if (init.param !== undefined) this.param = init.param;
    if (init.requestId !== undefined) this.requestId = init.requestId;
  }
}
