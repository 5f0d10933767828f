/**
 * The SDK's public types, all derived from the generated OpenAPI types (./generated/openapi.ts) so
 * they follow the API's zod schemas. Nothing here restates a field by hand.
 */
import type { components, operations, webhooks } from './generated/openapi.ts';

type Schemas = components['schemas'];

/** A chain name the API accepts, e.g. `'POLYGON'` or its test network `'POLYGON_AMOY'`. */
export type ChainName = Schemas['Charge']['chain'];

/**
 * What a charge is for: token, chain, amount and/or items, redirect URLs, destination, metadata.
 * The document types `chain` as a string (so the API can answer `unsupported_chain` itself); the SDK
 * narrows it to the chains the API knows, so a misspelt chain fails to compile.
 */
export type ChargeData = Omit<Schemas['ChargeData'], 'chain'> & { chain: ChainName };

/** The spec's nested form: `{ chargeData, isTest?, isDirectTransfer? }` — the createCharge body, with a typed chain. */
export type CreateChargeRequest = Omit<operations['createCharge']['requestBody']['content']['application/json'], 'chargeData'> & {
  chargeData: ChargeData;
};

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

type PayloadOf<T> = T extends { post: { requestBody?: { content: { 'application/json': infer P } } } } ? P : never;
/** A webhook's payload, one member per event type: narrow on `event.type`. */
export type WebhookEvent = { [K in keyof webhooks]: PayloadOf<webhooks[K]> }[keyof webhooks];
