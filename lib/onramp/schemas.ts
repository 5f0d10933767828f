/**
 * The wire format of the on-ramp's public routes (the on-ramp and order pages call them): one zod schema
 * per request and response, used by the routes, the OpenAPI document (lib/api/openapi/register-onramp-paths.ts)
 * and, through the response validation of the route tests, held to what the routes really answer.
 */
import { z } from 'zod';
import { CHAIN_NAMES } from '@/lib/chains/registry';
import { FIAT_METHODS } from './fiat-methods';
import { ONRAMP_ORDER_STATUSES } from './orders/state';
import { ONRAMP_PROVIDER_IDS } from './providers/types';

/** GET /api/onramp/quote */
export const onrampQuoteQuerySchema = z.object({
  provider: z.enum(ONRAMP_PROVIDER_IDS).meta({ description: 'The on-ramp provider.' }),
  chain: z.enum(CHAIN_NAMES).meta({ description: 'The chain the tokens arrive on.' }),
  token: z.string().trim().min(1).max(16).meta({ description: 'The token symbol.', example: 'USDC' }),
  method: z.enum(FIAT_METHODS).meta({ description: 'How the buyer pays.' }),
  amount_kind: z.enum(['crypto', 'usd']).meta({ description: '`amount` in tokens or in US dollars.' }),
  amount: z.string().trim().min(1).max(64).meta({ description: 'A positive decimal.', example: '25' }),
});

export const onrampQuoteSchema = z
  .object({
    providerId: z.string(),
    tokenSymbol: z.string(),
    cryptoAmount: z.string().meta({ description: 'What arrives, exact decimal text.' }),
    cryptoBaseUnits: z.string(),
    fiatCurrency: z.string(),
    rate: z.string().meta({ description: 'Fiat per whole token.' }),
    subtotal: z.string(),
    providerFee: z.string(),
    networkFee: z.string(),
    total: z.string(),
    minimum: z.object({ fiat: z.string(), crypto: z.string() }),
    belowMinimum: z.boolean(),
    expiresAt: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'OnrampQuote' });

export const onrampOrderSchema = z
  .object({
    id: z.string(),
    status: z.enum(ONRAMP_ORDER_STATUSES),
    providerName: z.string(),
    chain: z.enum(CHAIN_NAMES),
    chainName: z.string(),
    tokenSymbol: z.string(),
    cryptoAmount: z.string(),
    requestedAmount: z.string(),
    raisedToMinimum: z.boolean(),
    deliveredAmount: z.string().nullable(),
    walletAddress: z.string(),
    walletLabel: z.string().nullable(),
    fiatTotal: z.string(),
    fiatCurrency: z.string(),
    paymentMethod: z.string(),
    deliveryTxHash: z.string().nullable(),
    explorerUrl: z.string().nullable(),
    failureReason: z.string().nullable(),
    checkoutUrl: z.string().nullable().meta({ description: "The provider's screen, while the buyer can still (re)open it." }),
    chargeId: z.string().nullable(),
    createdAt: z.string().meta({ format: 'date-time' }),
    timeline: z.array(
      z.object({ toStatus: z.string(), at: z.string().meta({ format: 'date-time' }), providerStatus: z.string().nullable() }),
    ),
  })
  .meta({ id: 'OnrampOrder' });

/** POST /api/onramp/webhooks/{providerId}: what the provider reads (2xx stops its retries). */
export const providerWebhookAnswerSchema = z
  .object({
    received: z.boolean(),
    outcome: z.enum(['applied', 'unchanged', 'duplicate', 'unknown_order', 'mismatch', 'ignored', 'rejected', 'unknown_provider']),
  })
  .meta({ id: 'OnrampProviderWebhookAnswer' });
