/**
 * @chargeport/web — create Chargeport charges from a browser (publishable key) or a server (secret
 * key), read them back, let the buyer pay in a popup without leaving the page (`pay`), and verify
 * webhooks on your server (`verifyWebhook`). See
 * sdk/README.md.
 */
export { Chargeport, createClient, redirectToCheckout } from './client.ts';
export type { ChargeportOptions, CreateChargeOptions, FetchLike } from './client.ts';
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
  isChargeportError,
} from './errors.ts';
export type { ApiErrorCode, ChargeportErrorInit, SdkErrorCode } from './errors.ts';
export { Chain } from './chain.ts';
export { pay } from './pay.ts';
export type { PayOptions, PayResult, PayStatus, PayTarget } from './pay.ts';
export type { ChargeportUser, SignInConfig, WalletBalances } from './sign-in.ts';
export { VERSION } from './version.ts';
export { verifyWebhook } from './webhooks.ts';
export type { VerifyWebhookOptions, WebhookErrorCode, WebhookHeadersInit } from './webhooks.ts';
export { CHECKOUT_MESSAGE_TYPE } from './checkout-message.ts';
export type { CheckoutMessage, CheckoutRef, FinalCheckoutStatus } from './checkout-message.ts';
export type {
  ApiErrorBody,
  Charge,
  ChainName,
  ChargeData,
  ChargeItem,
  ChargeStatus,
  CreateChargeParams,
  CreateChargeRequest,
  CreateChargeResult,
  FlatCreateChargeParams,
  WebhookEvent,
} from './types.ts';
