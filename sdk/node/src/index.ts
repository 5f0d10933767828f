export { Chargeport } from './client.ts';
export type {
  Charge,
  ChargeportOptions,
  CreatedRefund,
  FetchLike,
  Refund,
  RequestOptions,
  StoredWebhookEvent,
  StreamOptions,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './client.ts';
export { ChargeportError } from './errors.ts';
export type { ErrorCode, SdkErrorCode } from './errors.ts';
export type { WebhookEvent, WebhookHeaders } from './webhooks.ts';
