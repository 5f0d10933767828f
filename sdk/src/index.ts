/**
 * @chargeport/web — create Chargeport charges from a browser (publishable key) or a server (secret
 * key) and read them back. See sdk/README.md.
 */
export { Chargeport, createClient, redirectToCheckout } from './client.js';
export type { ChargeportOptions, CreateChargeOptions, FetchLike } from './client.js';
export { ChargeportError, isChargeportError } from './errors.js';
export type { ChargeportErrorInit, SdkErrorCode } from './errors.js';
export { Chain } from './chain.js';
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
} from './types.js';
