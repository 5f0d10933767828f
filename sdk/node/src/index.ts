export { Chain } from './chain.ts';
export type { ChainName } from './chain.ts';
export { Chargeport } from './client.ts';
export type {
  Charge,
  ChargeData,
  ChargeportOptions,
  CreateChargeParams,
  CreateChargeRequest,
  CreatedRefund,
  FetchLike,
  ListChargesQuery,
  ListEventsQuery,
  Refund,
  RequestOptions,
  StoredWebhookEvent,
  StreamOptions,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './client.ts';
export {
  APIError,
  AuthenticationError,
  ChargeportError,
  ConnectionError,
  IdempotencyError,
  InvalidRequestError,
  PermissionError,
  RateLimitError,
  SignatureVerificationError,
  TimeoutError,
} from './errors.ts';
export type { ChargeportErrorInit, ErrorCode, SdkErrorCode } from './errors.ts';
export { VERSION } from './version.ts';
export type { WebhookEvent, WebhookHeaders } from './webhooks.ts';
