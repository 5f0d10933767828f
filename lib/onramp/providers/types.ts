/**
 * The contract between the on-ramp and each fiat provider (MoonPay, Transak, …).
 *
 * The rest of the on-ramp sees only these types: an order in our terms goes in, a checkout URL comes
 * out, and a provider's webhook comes back as a normalised order update or a typed verification
 * failure. Provider codes (currency codes, payment-method ids, statuses) stay inside the adapters.
 *
 * Amounts are exact decimal strings end to end; nothing here goes through a JS float.
 */
import { z } from 'zod';
import { CHAIN_NAMES, getChain, isValidAddress, tokenHasSymbol, type ChainName } from '@/lib/chains/registry';
import { parseAmount } from '@/lib/money';
import { FIAT_METHODS, type FiatMethod } from '@/lib/onramp/fiat-methods';

export const ONRAMP_PROVIDER_IDS = ['moonpay', 'transak', 'sandbox'] as const;
export type OnrampProviderId = (typeof ONRAMP_PROVIDER_IDS)[number];

/** A plain positive decimal ("25", "0.015"); no sign, no exponent, no thousands separators. */
const DECIMAL_TEXT = /^\d+(?:\.\d+)?$/;

/** Decimals accepted on a fiat amount; the provider rounds to the currency's own precision. */
const MAX_FIAT_DECIMALS = 8;

export const onrampOrderInputSchema = z
  .object({
    /** Our order id; travels as MoonPay `externalTransactionId` / Transak `partnerOrderId` and comes back in webhooks. */
    orderId: z.string().trim().min(1).max(128),
    walletAddress: z.string().trim().min(1),
    chain: z.enum(CHAIN_NAMES),
    tokenSymbol: z.string().trim().min(1).max(16),
    /** ISO 4217 code of the currency the buyer pays in, also for crypto-amount orders. */
    fiatCurrency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code such as USD')
      .transform((code) => code.toUpperCase()),
    /** What the buyer asked for: a fiat amount to spend, or a crypto amount to receive. */
    amount: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('fiat'), value: z.string().regex(DECIMAL_TEXT, 'must be a plain decimal such as "25.50"') }),
      z.object({ kind: z.literal('crypto'), value: z.string().regex(DECIMAL_TEXT, 'must be a plain decimal such as "0.015"') }),
    ]),
    /** ISO 3166-1 alpha-2 country the buyer is in (providers differ by country). */
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as US')
      .transform((code) => code.toUpperCase()),
    paymentMethod: z.enum(FIAT_METHODS).optional(),
    /** Where the provider sends the buyer back after the purchase. */
    redirectUrl: z.url({ protocol: /^https?$/ }),
    email: z.email().optional(),
  })
  .superRefine((order, ctx) => {
    const chain = getChain(order.chain);
    if (!chain.tokens.some((token) => tokenHasSymbol(token, order.tokenSymbol))) {
      ctx.addIssue({ code: 'custom', path: ['tokenSymbol'], message: `${order.tokenSymbol} is not a token of ${order.chain}` });
    }
    if (!isValidAddress(chain.family, order.walletAddress)) {
      ctx.addIssue({ code: 'custom', path: ['walletAddress'], message: `not a valid ${chain.family} address` });
    }
    const token = chain.tokens.find((t) => tokenHasSymbol(t, order.tokenSymbol));
    const decimals = order.amount.kind === 'crypto' ? (token?.decimals ?? 0) : MAX_FIAT_DECIMALS;
    const parsed = parseAmount(order.amount.value, decimals);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', path: ['amount', 'value'], message: `invalid amount (${parsed.reason})` });
  });

export type OnrampOrderInput = z.input<typeof onrampOrderInputSchema>;
/** An order after validation: codes upper-cased, token known on the chain, address well-formed. */
export type OnrampOrder = z.output<typeof onrampOrderInputSchema>;

export interface OnrampCheckout {
  /** `redirect`: open the URL in a new tab or window; `embed`: load it in an iframe. */
  kind: 'redirect' | 'embed';
  url: string;
  /** Set when the provider's link stops working (Transak widget URLs: 5 minutes, single use). */
  expiresAt?: Date;
}

export type OnrampOrderStatus = 'pending' | 'completed' | 'failed' | 'expired';

/** A provider's order as the rest of the on-ramp needs it. */
export interface OnrampOrderUpdate {
  providerId: OnrampProviderId;
  /** The provider's own id for the order/transaction. */
  providerOrderId: string;
  /** Our order id echoed back; null when the provider order was not started through us. */
  externalOrderId: string | null;
  status: OnrampOrderStatus;
  /** The provider's raw status, for logs and support; never branch on it outside the adapter. */
  providerStatus: string;
  /** Crypto delivered or to be delivered, exact decimal text. */
  cryptoAmount?: string;
  /** Where the provider sends the crypto, to cross-check with the order. */
  walletAddress?: string;
  /** Our chain and token for the provider's asset, when the currency-code table maps it back. */
  chain?: ChainName;
  tokenSymbol?: string;
  /** The delivery transaction on chain, once the provider has sent it. */
  txHash?: string;
  failureReason?: string;
}

export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface OnrampWebhookRequest {
  headers: WebhookHeaders;
  /** The body exactly as received: signatures cover the bytes, not a re-serialised object. */
  rawBody: string;
  now: Date;
}

export type WebhookFailureCode =
  /** The signature header or signed token is absent. */
  | 'missing_signature'
  /** The signature header or token cannot be parsed. */
  | 'malformed_signature'
  /** A JWT names an algorithm other than the one the provider documents (e.g. `none`, RS256). */
  | 'unsupported_algorithm'
  /** No configured key reproduces the signature: tampered body or wrong key. */
  | 'invalid_signature'
  /** Signed too long ago (timestamp outside tolerance) or the token has expired / is not yet valid. */
  | 'stale'
  /** Authentic, but the payload is not the order shape the docs describe. */
  | 'malformed_payload'
  /** Authentic, but not an on-ramp order event (sell, KYC, …): nothing to apply. */
  | 'ignored_event'
  /** Authentic order event whose status the adapter does not know: log it and look at the docs. */
  | 'unknown_status';

interface WebhookVerificationFailure {
  ok: false;
  code: WebhookFailureCode;
  /**
   * True when the request provably comes from the provider but carries nothing to apply: answer 2xx
   * so the provider stops retrying. False: answer 4xx and apply nothing.
   */
  authentic: boolean;
  message: string;
}

export type VerifyWebhookResult = { ok: true; update: OnrampOrderUpdate } | WebhookVerificationFailure;

/** A provider's price for buying `cryptoAmount`: exact decimal strings in `fiatCurrency`; total = amount × rate + fees. */
export interface OnrampQuote {
  cryptoAmount: string;
  fiatCurrency: string;
  /** Fiat per whole token. */
  rate: string;
  providerFee: string;
  networkFee: string;
  total: string;
  expiresAt: Date;
}

export interface OnrampQuoteInput {
  chain: ChainName;
  tokenSymbol: string;
  cryptoAmount: string;
  fiatCurrency: string;
  paymentMethod: FiatMethod;
}

export interface OnrampProviderAdapter {
  readonly id: OnrampProviderId;
  readonly displayName: string;
  /** Whether the provider sells this token on this chain (the reviewed table in currency-codes.ts). */
  supportsAsset(chain: ChainName, tokenSymbol: string): boolean;
  /** Whether the provider can preselect this payment method for the order's fiat currency. */
  supportsPaymentMethod(method: FiatMethod, fiatCurrency: string): boolean;
  /** The URL that starts the purchase at the provider. Throws OnrampProviderError. */
  buildCheckout(order: OnrampOrderInput, options?: { now?: Date }): Promise<OnrampCheckout>;
  /** Checks the webhook's signature per the provider's docs, then normalises the order in it. */
  verifyWebhook(request: OnrampWebhookRequest): Promise<VerifyWebhookResult>;
  /** The provider's own price, for providers with a quote API. Throws OnrampProviderError. */
  quote?(input: OnrampQuoteInput, options?: { now?: Date }): Promise<OnrampQuote>;
}

/** The fetch the adapters call; injected so tests can assert the exact request. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;
