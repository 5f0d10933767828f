/**
 * Errors of Sandpiper Pay's API. The provider is its own company with its own wire format
 * (`{ error: { code, message, param? } }`), so it does not reuse Chargeport's AppError codes.
 */
const SANDBOX_API_ERROR_STATUS = {
  unauthorized: 401,
  invalid_request: 400,
  invalid_json: 400,
  unsupported_asset: 400,
  unsupported_currency: 400,
  amount_too_small: 400,
  not_found: 404,
  duplicate_order: 409,
  session_finished: 409,
  session_expired: 410,
  payload_too_large: 413,
} as const;

export type SandboxApiErrorCode = keyof typeof SANDBOX_API_ERROR_STATUS;

export class SandboxApiError extends Error {
  override name = 'SandboxApiError';
  readonly code: SandboxApiErrorCode;
  readonly param?: string;

  constructor(code: SandboxApiErrorCode, message: string, param?: string) {
    super(message);
    this.code = code;
    this.param = param;
  }

  get status(): number {
    return SANDBOX_API_ERROR_STATUS[this.code];
  }
}

export function isSandboxApiError(error: unknown): error is SandboxApiError {
  return error instanceof SandboxApiError;
}

/** The first zod issue as a 400 that names the field: "chain: must be one of POLYGON, …". */
export function invalidRequest(error: {
  issues: readonly { path: readonly PropertyKey[]; message: string; code: string; keys?: readonly string[] }[];
}): SandboxApiError {
  const issue = error.issues[0];
  if (!issue) return new SandboxApiError('invalid_request', 'The request is invalid.');
  if (issue.code === 'unrecognized_keys' && issue.keys?.length) {
    return new SandboxApiError('invalid_request', `Unknown field ${issue.keys.join(', ')}.`, issue.keys[0]);
  }
  const param = issue.path.map(String).join('.');
  const message = issue.code === 'invalid_type' && /received undefined/.test(issue.message) ? 'is required' : issue.message;
  return new SandboxApiError('invalid_request', param ? `${param}: ${message}` : message, param || undefined);
}
