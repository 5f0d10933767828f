/**
 * The SDK's public types, all derived from the generated OpenAPI types (./generated/openapi.ts) so
 * they follow the API's zod schemas. Nothing here restates a field by hand.
 */
import type { components, operations } from './generated/openapi.ts';

type Schemas = components['schemas'];

/** The spec's nested form: `{ chargeData, isTest?, isDirectTransfer? }` — exactly the createCharge body. */
export type CreateChargeRequest = operations['createCharge']['requestBody']['content']['application/json'];

/** What a charge is for: token, chain, amount and/or items, redirect URLs, destination, metadata. */
export type ChargeData = Schemas['ChargeData'];

/** One line of the purchase. `amount` is the unit price in whole tokens. */
export type ChargeItem = Schemas['ChargeItem'];

/**
 * The spec's flat form: the fields of `chargeData` at the top level. The key decides test or live;
 * use the nested form to send `isTest` or `isDirectTransfer`.
 */
export type FlatCreateChargeParams = ChargeData & { chargeData?: never };

/** Either form of the spec's `createCharge(parameters)`; the SDK tells them apart by `chargeData`. */
export type CreateChargeParams = CreateChargeRequest | FlatCreateChargeParams;

/** `{ chargeId, paymentUrl }`: the `data` of a 200 answer, without the `{ data, error }` envelope. */
export type CreateChargeResult = operations['createCharge']['responses'][200]['content']['application/json']['data'];

/** A stored charge, as `GET /api/charges/{chargeId}` returns it. */
export type Charge = operations['getCharge']['responses'][200]['content']['application/json']['data'];

export type ChargeStatus = Schemas['ChargeStatus'];

/** The wire shape of `error` in a failed answer. */
export type ApiErrorBody = Schemas['Error'];

/** A chain name the API accepts, e.g. `'POLYGON'` or its test network `'POLYGON_AMOY'`. */
export type ChainName = Charge['chain'];
