/**
 * One error type for the whole product. Each code has one HTTP status; the table below is the
 * documented list (docs/api.md "Error codes", the OpenAPI ErrorCode enum). Messages say what to fix; `param`
 * names the offending field as a dotted path when there is one.
 *
 * Status rule: 400 when the request is malformed (missing field, wrong type, not parseable); 422 when
 * it is well-formed but cannot be processed as asked (a token the chain lacks, an amount with too many
 * decimals, a provider that does not sell this); 409 when it conflicts with the current state of a
 * resource; 502/503 when a dependency failed. Provider-internal errors (OnrampProviderError,
 * SandboxApiError) keep their own codes and are mapped to these before they reach a caller.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  unsupported_api_version: 400,
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
  too_many_streams: 429,
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
  refund_destination_not_payer: 403,
  charge_not_settled: 409,
  refund_claim_closed: 409,
  contract_not_found: 422,
  abi_required: 422,
  invalid_abi: 422,
  contract_exists: 409,
  function_not_found: 422,
  argument_not_bindable: 422,
  contract_chain_mismatch: 422,
  contract_is_token: 422,
  function_moves_tokens: 422,
  invalid_price_list: 422,
  fulfilment_exists: 409,
  fulfilment_not_retryable: 409,
  invalid_access_token: 401,
  insufficient_scope: 403,
  price_unavailable: 422,
  step_up_required: 403,
  step_up_failed: 403,
  two_factor_required: 403,
  factor_cooling_down: 403,
  second_factor_required: 401,
  withdrawal_held: 409,
  origin_not_allowed: 403,
  redirect_not_allowed: 403,
  open_charge_limit: 429,
  sms_country_not_allowed: 422,
  email_already_verified: 409,
  invalid_wallet: 422,
  provider_unavailable: 422,
  quote_unavailable: 503,
  below_minimum: 422,
  settles_after_expiry: 422,
  provider_error: 502,
  swap_unavailable: 422,
  slippage_exceeded: 409,
  transfer_not_authorized: 403,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/**
 * When each code happens, for the error table of docs/api.md (scripts/error-table.mts writes it) and the
 * OpenAPI document's ErrorCode enum. A `Record` over every code: a new code without a line here does
 * not compile.
 */
export const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  invalid_request: 'A field is missing, malformed, out of bounds or unknown (`param` names it)',
  invalid_json: 'The body is empty or not JSON',
  unsupported_api_version:
    '`Chargeport-Version` names no known API version; the message lists them (docs/api-changelog.md). Nothing was done',
  missing_api_key: 'No `x-api-key` header',
  invalid_api_key: 'The key is malformed, unknown or revoked',
  test_key_required: '`isTest: true` (or `mode=test`) with a production key; test helpers (`/api/test_helpers/…`) with a production key',
  live_key_required: '`isTest: false`, a direct transfer, or `mode=live` with a test key',
  verification_required: 'Direct transfer (or production key) for a merchant without business verification',
  key_not_permitted: 'A publishable key used for something only secret keys may do',
  unauthenticated: 'Account pages: not signed in',
  code_incorrect: 'Account pages: the one-time code is wrong',
  code_expired: 'Account pages: the one-time code has expired; ask for a new one',
  pin_not_set: 'Paying from balance: the account has no PIN yet',
  pin_incorrect: 'Paying from balance: wrong PIN',
  email_not_verified: 'Account pages: the e-mail address is not verified yet',
  forbidden: "Dashboard: the member's role may not do this; test helpers on a server that turned them off",
  not_found:
    "No such charge (refund, endpoint, event) for this key's merchant and mode, or no such API route (any path under `/api` that no route serves)",
  method_not_allowed: 'The route exists but not with this method; `Allow` lists the methods it takes',
  idempotency_conflict: '`Idempotency-Key` reused with a different request',
  charge_not_cancelable: 'Cancel on a charge that is no longer `pending`',
  payment_in_progress:
    'Cancel (or a second payment method) while a payment of the charge is in flight; the message says which and what happens next',
  account_exists: 'Sign-up: an account with this e-mail address exists; sign in instead',
  use_other_sign_in: 'Sign-in: this account signs in another way (the message says which)',
  pin_locked: 'Too many wrong PINs: locked for a while',
  payload_too_large: 'Body over `API_MAX_BODY_BYTES`',
  unsupported_media_type: 'A body that is not `application/json`',
  unsupported_chain: 'Chain not in the registry, or a test network with a production key',
  chain_not_configured:
    'The chain (or the test network a test charge runs on) has no RPC URL on this server, so nothing would watch it; the message names the variable to set',
  unsupported_token: 'No such token on the chain, symbol mismatch, or a non-native token in a test charge',
  invalid_address: "`tokenAddress` / `toAddress` is not an address of the chain's family",
  amount_mismatch: "`amount` differs from the items' total (or the items' USD prices differ from `pricing.amount`)",
  invalid_amount: 'Zero, too many fractional digits for the token (or more than cents for USD), or too large',
  rate_limited: 'Over the per-key rate limit; see `Retry-After`',
  too_many_streams:
    'Event stream: the key (or the merchant) already has as many streams open as allowed; close one, or retry after `Retry-After`',
  code_attempts_exceeded: 'Account pages: too many wrong codes; ask for a new one',
  internal_error: 'Our fault; the message carries the request id to quote, nothing else',
  service_unavailable:
    'A dependency is not available: e.g. a test-helper payment on a test network for which this server has no funded payer',
  pin_too_simple: 'Setting a PIN: too simple (a run or a repeated digit)',
  pin_already_set: 'Setting a PIN: one is set already; change it instead',
  pin_disabled: 'Paying from balance: PIN payments are turned off for the account',
  phone_in_use: 'Linking a phone: another account has it',
  phone_not_linked: 'Phone sign-in or unlinking: no phone is linked',
  charge_not_payable: 'Paying a charge that is no longer payable (paid, canceled, expired or failed)',
  insufficient_balance: 'Paying from balance, withdrawing or refunding: not enough funds',
  chain_unavailable: 'The chain node did not answer; retry later',
  invalid_webhook_url:
    'Webhook URL refused: live mode needs `https://` to a public address (private, loopback, link-local and metadata addresses, and names resolving to them, are refused)',
  webhook_endpoint_limit: 'Already 16 webhook endpoints in this mode',
  gas_sponsorship_limit: "The gas tank's daily limit for this merchant or payer is reached; retry tomorrow",
  gas_tank_empty: 'The gas tank cannot pay the network fee right now; the operator is alerted',
  amount_below_minimum: "A charge amount below the token's smallest charge (dust), or an amount under a minimum the message names",
  refund_exceeds_refundable: 'The refund is larger than what the charge can still refund',
  refund_destination_required: 'A refund claim link: the payer did not give the address to send it to',
  refund_not_possible: 'The charge has nothing refundable, or its funds cannot be moved from here (direct transfer)',
  refund_destination_not_payer:
    '`toAddress` did not pay this charge: refunds go back to the payer; only an owner may approve another address, from the dashboard with step-up',
  charge_not_settled: 'The charge is still `pending` or `processing`: refund after it succeeds, fails or expires',
  refund_claim_closed: 'The refund claim link was already claimed or has expired',
  price_unavailable:
    '`chargeData.pricing` in USD for a token without a fresh USD rate (none from the price feed in the last 15 minutes); stablecoins are always at par',
  contract_not_found: 'Contracts tab: no contract code at that address on that network',
  abi_required: 'Contracts tab: the contract is not a recognised ERC-20/721/1155; upload its ABI',
  invalid_abi: 'Contracts tab: the uploaded ABI is not a JSON ABI array',
  contract_exists: 'Contracts tab: that contract is already registered',
  function_not_found: 'Contracts tab: the rule names a function the contract does not have',
  argument_not_bindable: 'Contracts tab: an argument of the function cannot be bound from the charge',
  contract_chain_mismatch: "Contracts tab: the rule's contract is on another network than the charge",
  contract_is_token:
    'Contracts tab: the contract is a token (a network or custom token, an ERC-20, or one the service wallet holds); only item contracts are called',
  function_moves_tokens:
    'Contracts tab: the rule names a function whose selector moves or approves tokens (approve, transfer, permit, setApprovalForAll, …)',
  invalid_price_list: "Contracts tab: the rule's price list names an unknown token, a bad price, or an item id the rule does not read",
  fulfilment_exists: 'Contracts tab: the charge already has a fulfilment for that rule',
  fulfilment_not_retryable: 'Contracts tab: only a failed fulfilment can be retried',
  invalid_access_token: 'In-app API: the `Authorization: Bearer` access token is missing, expired or revoked',
  insufficient_scope: 'In-app API: the access token lacks the scope the call needs (`wallet:read`, `payments`)',
  step_up_required:
    'Dashboard: this action (owners and admins, withdrawals, key exports, production keys, live webhooks) needs your PIN or a passkey',
  step_up_failed: 'Dashboard: the PIN or passkey given for this action was wrong',
  two_factor_required:
    'Dashboard: owners of a verified merchant enrol a second factor (authenticator app or passkey) before production keys or withdrawals',
  factor_cooling_down:
    'Live money moves and ownership changes: a passkey or authenticator app added less than FACTOR_COOLING_HOURS ago is not usable yet; the message gives the time',
  second_factor_required: 'Signing in: this account needs its second factor (authenticator code, passkey or recovery code)',
  withdrawal_held: 'Withdrawals by an owner added less than OWNER_WITHDRAWAL_HOLD_HOURS ago are held until the time the message gives',
  origin_not_allowed: 'A publishable key used from an origin outside its allowed origins (dashboard → API keys)',
  redirect_not_allowed: "`successUrl` / `cancelUrl` of a publishable-key charge outside the key's allowed redirect origins",
  open_charge_limit:
    'Too many open (pending) charges created with publishable keys for this merchant and mode: create charges from your server with a secret key, or let some expire or cancel them',
  sms_country_not_allowed: 'Phone number: SMS codes are not sent to that country (SMS_ALLOWED_COUNTRIES)',
  email_already_verified: 'Sign-in-with-Ethereum accounts: the e-mail is verified already; change it from the profile instead',
  invalid_wallet: 'On-ramp: the wallet address is not an address of the chain, or the account has no wallet on it',
  provider_unavailable:
    'On-ramp: the provider is not offered here, or does not sell this token or take this payment method; choose another',
  quote_unavailable: 'On-ramp and swaps: no price right now (no fresh USD rate, or the exchange cannot quote); retry shortly',
  below_minimum: "On-ramp: a purchase below the provider's minimum for the method; `details` carries `minimumFiat` and `minimumCrypto`",
  settles_after_expiry: 'On-ramp: the payment method can take longer to deliver than the charge has left before it expires',
  provider_error: 'On-ramp: the provider refused to start the purchase; the message gives its reason',
  swap_unavailable: 'Swap funding: not offered for this pair, country or provider; the message says why',
  slippage_exceeded: 'Swap funding: the price moved past the maximum you accepted; get a new quote',
  transfer_not_authorized:
    'The transfer gate refused the movement: who asked for it may not send there (e.g. a refund to an address that never paid the charge needs an owner’s approval)',
};

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  param?: string;
  /** Structured facts a client can act on, e.g. the minimum of `below_minimum`. */
  details?: Record<string, string>;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly param?: string;
  /** Extra response headers, e.g. Retry-After on rate_limited. */
  readonly headers?: Record<string, string>;
  readonly details?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { param?: string; headers?: Record<string, string>; details?: Record<string, string> } = {},
  ) {
    super(message);
    this.code = code;
    this.param = options.param;
    this.headers = options.headers;
    this.details = options.details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      ...(this.param === undefined ? {} : { param: this.param }),
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/**
 * A value the caller sent, as a message quotes it: at most 64 characters (then "…"). A message says what
 * to fix; it does not send a 4 000-character id back.
 */
export function inputExcerpt(value: string): string {
  return value.length > 64 ? `${value.slice(0, 64)}…` : value;
}
