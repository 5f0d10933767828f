/**
 * The wire format of charges: one zod schema per request and response, used by the route handlers,
 * the OpenAPI document (lib/api/openapi.ts) and, through it, the SDK's generated types.
 *
 * These schemas check shape and format. Rules that need the chain registry or the key (token known
 * on the chain, decimals, test vs live) live in create-charge.ts.
 */
import { z } from 'zod';
import { CHAIN_NAMES } from '@/lib/chains/registry';
import { PAYMENT_STATUSES } from '@/lib/db/schema/payments';
import { CHARGE_STATUSES } from './state';
import { cleanDisplayText } from '@/lib/text';
import { ERROR_CODES } from '@/lib/errors';

import { queryTimestampSchema, timestampSchema } from '@/lib/timestamp-schema';

export const LIMITS = {
  items: 100,
  nameLength: 200,
  urlLength: 2048,
  addressLength: 100,
  symbolLength: 20,
  metadataKeys: 20,
  metadataKeyLength: 40,
  metadataValueLength: 500,
  /** Digits in a decimal amount, integer and fraction together. */
  amountDigits: 80,
} as const;

const httpUrl = z
  .string()
  .max(LIMITS.urlLength, `must be at most ${LIMITS.urlLength} characters`)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

/** A positive decimal, as a JSON number or a string ("12.5"). Checked against the token's decimals later. */
export const decimalAmountSchema = z
  .union([z.string(), z.number()])
  .transform((value) => (typeof value === 'number' ? numberToDecimalText(value) : value.trim()))
  .refine((text) => text.length <= LIMITS.amountDigits + 1, `must have at most ${LIMITS.amountDigits} digits`)
  .refine((text) => /^\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text), 'must be a positive decimal number such as 12.5')
  .meta({
    description: 'A positive decimal amount in whole tokens, as a number or a string; at most as many fractional digits as the token has.',
    example: '12.5',
  });

/** JSON numbers reach here only when they are safe to print (the lossless body parser keeps others as text). */
function numberToDecimalText(value: number): string {
  return Number.isFinite(value) ? String(value) : 'NaN';
}

const chargeItemSchema = z
  .object({
    // Shown to the buyer: bidi, control and invisible characters removed (lib/text.ts).
    name: z
      .string()
      .overwrite(cleanDisplayText)
      .min(1, 'is required')
      .max(LIMITS.nameLength, `must be at most ${LIMITS.nameLength} characters`),
    image: httpUrl.optional(),
    amount: decimalAmountSchema,
    quantity: z
      .number({ error: 'must be a positive integer' })
      .int('must be a positive integer')
      .positive('must be a positive integer')
      .max(1_000_000, 'must be at most 1000000'),
  })
  .strict()
  .meta({ id: 'ChargeItem', description: 'One line of the purchase: unit price in tokens and quantity.' });

const metadataSchema = z
  .record(
    z.string().min(1).max(LIMITS.metadataKeyLength, `keys must be at most ${LIMITS.metadataKeyLength} characters`),
    z.string().max(LIMITS.metadataValueLength, `values must be at most ${LIMITS.metadataValueLength} characters`),
  )
  .refine((record) => Object.keys(record).length <= LIMITS.metadataKeys, `must have at most ${LIMITS.metadataKeys} keys`)
  .meta({ description: 'Your own key/value pairs (order id, user id, …), returned with the charge and in webhooks.' });

/** `chargeData.pricing`: the price in US dollars, converted to the token at creation (lib/pricing/current-usd-rate.ts). */
const pricingRequestSchema = z
  .object({
    currency: z.literal('USD').meta({ description: 'Only USD for now.' }),
    amount: decimalAmountSchema.meta({
      description: 'The price in US dollars, at most 2 fractional digits (cents), as a string or a number.',
      example: '4.99',
    }),
  })
  .strict()
  .meta({
    id: 'PricingRequest',
    description:
      "Price the charge in US dollars instead of token amounts: at creation the amount is converted to the token with the token's current USD rate (stablecoins at par), rounded up to the token's smallest unit, and the rate is recorded on the charge and locked for its lifetime. With `items`, their `amount`s are USD unit prices that must add up to `pricing.amount`. Not with `chargeData.amount`. Refused with `price_unavailable` when the token has no fresh rate, and with `amount_below_minimum` when the converted total is below the token's smallest charge.",
  });

const chargeDataSchema = z
  .object({
    symbol: z.string().trim().min(1, 'is required').max(LIMITS.symbolLength),
    chain: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(40)
      .meta({ description: `Chain name in upper case: ${CHAIN_NAMES.join(', ')}.`, example: 'POLYGON' }),
    tokenAddress: z.string().trim().min(1, 'is required').max(LIMITS.addressLength).meta({
      description: 'Token contract (EVM) or mint (Solana). Native coin: the all-zero address on EVM, the wrapped-SOL mint on Solana.',
    }),
    successUrl: httpUrl.optional(),
    cancelUrl: httpUrl.optional(),
    items: z.array(chargeItemSchema).max(LIMITS.items, `must have at most ${LIMITS.items} items`).optional(),
    amount: decimalAmountSchema.optional(),
    pricing: pricingRequestSchema.optional(),
    toAddress: z.string().trim().min(1).max(LIMITS.addressLength).optional(),
    metadata: metadataSchema.optional(),
  })
  .strict()
  .meta({
    id: 'ChargeData',
    description:
      'What the charge is for. Give `items`, or `amount` alone (token amounts), or `pricing` (US dollars, optionally with `items` priced in USD).',
  });

export const createChargeBodySchema = z
  .object({
    chargeData: chargeDataSchema,
    isTest: z.boolean().optional().meta({ description: "true: a test charge on the chain's test network; needs a test key." }),
    isDirectTransfer: z
      .boolean()
      .optional()
      .meta({ description: 'true: tokens go to chargeData.toAddress; needs a production key of a verified merchant.' }),
  })
  .strict()
  .meta({ id: 'CreateChargeRequest' });

export type CreateChargeBody = z.infer<typeof createChargeBodySchema>;

export const createChargeResultSchema = z
  .object({
    paymentUrl: z.url().meta({
      description: 'The hosted checkout for this charge: send the buyer here.',
      example: 'https://pay.example.com/checkout/ch_4Vd9TQ1aQm2xA7bC3dE5fG',
    }),
    chargeId: z.string().meta({ example: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG' }),
  })
  .meta({ id: 'CreateChargeResult' });

const errorCodeSchema = z.enum(ERROR_CODES).meta({
  id: 'ErrorCode',
  description: 'Stable machine-readable code: the closed list of lib/errors.ts (README, "Error codes"). New codes may be added.',
});

export const errorSchema = z
  .object({
    code: errorCodeSchema,
    message: z.string(),
    param: z.string().optional().meta({ description: 'Dotted path of the offending field.' }),
    details: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'Structured facts a client can act on, e.g. the minimum of `below_minimum`.' }),
  })
  .meta({ id: 'Error' });

const chargeStatusSchema = z.enum(CHARGE_STATUSES).meta({ id: 'ChargeStatus' });

const chargePaymentSchema = z
  .object({
    id: z.string(),
    chain: z.enum(CHAIN_NAMES),
    txHash: z.string().meta({ description: "The transaction that paid into the charge's deposit address." }),
    fromAddress: z.string(),
    amount: z.string().meta({ description: 'Whole tokens, exact decimal text.' }),
    amountBaseUnits: z.string(),
    status: z
      .enum(PAYMENT_STATUSES)
      .meta({ description: 'pending: seen, confirming; confirmed: counted; dropped: left the chain (reorg).' }),
    isLate: z
      .boolean()
      .meta({ description: 'Arrived after the charge expired, failed or was canceled: recorded for refund, not counted.' }),
    blockNumber: z.string(),
    createdAt: timestampSchema,
  })
  .meta({ id: 'ChargePayment', description: "A transfer seen on chain into the charge's deposit address." });

export type ChargePaymentResource = z.infer<typeof chargePaymentSchema>;

const chargePricingSchema = z
  .object({
    currency: z.literal('USD'),
    amount: z.string().meta({ description: 'The price asked, in US dollars.', example: '4.99' }),
    rate: z.string().meta({
      description: "US dollars per whole token used for the conversion, locked for the charge's lifetime (exact decimal text).",
      example: '0.2345',
    }),
    rateSource: z
      .enum(['par', 'price_feed'])
      .meta({ description: 'par: a USD stablecoin (1 token = 1 USD); price_feed: the last price of the feed.' }),
    rateAt: timestampSchema.meta({ description: 'When the rate was fetched (for par: when the charge was created).' }),
  })
  .meta({ id: 'ChargePricing', description: 'How a USD price became the token amount: the rate recorded at creation.' });

export const chargeSchema = z
  .object({
    id: z.string(),
    object: z.literal('charge'),
    mode: z.enum(['test', 'live']),
    status: chargeStatusSchema,
    chain: z.enum(CHAIN_NAMES),
    token: z.object({ symbol: z.string(), address: z.string(), decimals: z.number().int() }),
    amount: z.string().meta({ description: 'Total in whole tokens, exact decimal text.' }),
    amountBaseUnits: z.string().meta({ description: "Total in the token's base units (integer text)." }),
    items: z.array(
      z.object({
        name: z.string(),
        image: z.string().optional(),
        amount: z.string(),
        quantity: z.number().int(),
        lineTotal: z.string(),
      }),
    ),
    destination: z.enum(['merchant_wallet', 'to_address', 'direct_transfer']),
    toAddress: z.string().nullable(),
    isDirectTransfer: z.boolean(),
    successUrl: z.string().nullable(),
    cancelUrl: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    pricing: chargePricingSchema.nullable().meta({ description: 'Set when the charge was priced in US dollars (`chargeData.pricing`).' }),
    paidUnderAllowance: z.boolean().meta({
      description:
        "true when the buyer's payment from their Chargeport balance was made under a spending allowance they approved for you (one tap, no PIN each time; within a daily budget). false for a PIN payment, a wallet transfer, a card, or no payment yet. Added 2026-11-27.",
    }),
    paymentUrl: z
      .url()
      .meta({ description: 'The hosted checkout of the charge.', example: 'https://pay.example.com/checkout/ch_4Vd9TQ1aQm2xA7bC3dE5fG' }),
    expiresAt: timestampSchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
    timeline: z
      .array(z.object({ status: chargeStatusSchema, type: z.string(), at: timestampSchema }))
      .optional()
      .meta({ description: 'Every status change, oldest first (single-charge responses only).' }),
    payments: z.array(chargePaymentSchema).optional().meta({
      description: 'Transfers into the charge, oldest first, with their transaction hashes (single-charge responses and webhooks).',
    }),
  })
  .meta({ id: 'Charge' });

export type ChargeResource = z.infer<typeof chargeSchema>;

export const listChargesQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    starting_after: z.string().optional().meta({ description: 'A charge id: return charges created before it.' }),
    status: chargeStatusSchema.optional(),
    mode: z.enum(['test', 'live']).optional().meta({ description: "Must match the key's mode; keys only see their own mode." }),
    created_gte: queryTimestampSchema
      .optional()
      .meta({ type: 'string', format: 'date-time', description: 'Only charges created at or after this time.' }),
    created_lt: queryTimestampSchema
      .optional()
      .meta({ type: 'string', format: 'date-time', description: 'Only charges created before this time.' }),
  })
  .strict();

export type ListChargesQuery = z.infer<typeof listChargesQuerySchema>;

export const chargeListSchema = z
  .object({ object: z.literal('list'), data: z.array(chargeSchema), has_more: z.boolean() })
  .meta({ id: 'ChargeList' });

/** An attempt to pay a charge that failed (payment.failed carries it). */
export const failedPaymentAttemptSchema = z
  .object({
    id: z.string().meta({ description: 'The transfer (otx_…) or fiat on-ramp order (ord_…) that failed.' }),
    method: z.enum(['balance', 'fiat']).optional().meta({
      description:
        "balance: a payment from the consumer's service wallet; fiat: a card / bank / wallet-pay purchase through an on-ramp provider.",
    }),
    chain: z.string(),
    txHash: z.string().nullable(),
    reason: z.string(),
  })
  .meta({ id: 'FailedPaymentAttempt' });
export type FailedPaymentAttempt = z.infer<typeof failedPaymentAttemptSchema>;

/** A payment of a succeeded charge that left the chain after it counted (charge.payment_reversed carries it). */
export const reversedPaymentSchema = z
  .object({
    txHash: z.string().meta({ description: 'The transaction that paid, no longer on the chain.' }),
    amountBaseUnits: z.string().meta({ description: "What it had paid, in the token's base units (integer text)." }),
    chain: z.enum(CHAIN_NAMES),
    blockNumber: z.string().meta({ description: 'The block it had been counted in (integer text).' }),
  })
  .meta({ id: 'ReversedPayment' });
export type ReversedPayment = z.infer<typeof reversedPaymentSchema>;
