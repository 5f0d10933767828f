/**
 * Sandpiper Pay, the sandbox on-ramp provider (served on loopback by lib/sandbox-provider and
 * app/sandbox-provider): to the on-ramp it is one more provider, reached over HTTP like the others.
 *
 * Protocol ({origin} is where the provider runs, APP_URL in development and tests):
 *   Quote   — GET {origin}/sandbox-provider/api/quote?chain&tokenSymbol&cryptoAmount|fiatAmount&fiatCurrency&paymentMethod
 *             → 200 { data: { cryptoAmount, fiatCurrency, rate, providerFee, networkFee, total, expiresAt } }
 *   Session — POST {origin}/sandbox-provider/api/sessions, `Authorization: Bearer <secret>`, JSON
 *             { partnerOrderId, walletAddress, chain, tokenSymbol, cryptoAmount, fiatCurrency, fiatAmount,
 *               paymentMethod, country, redirectUrl, email? } → 201 { data: { sessionId, url, expiresAt } }
 *   Webhook — POST to us with `Sandbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`,
 *             body { id, type: "order.updated", createdAt, data: { orderId, partnerOrderId, status:
 *             PROCESSING|COMPLETED|FAILED, chain, tokenSymbol, cryptoAmount, walletAddress, txHash?,
 *             failureReason?, updatedAt } }.
 * Amounts are exact decimal strings both ways.
 */
import { z } from 'zod';
import { getChain, isChainName, tokenHasSymbol, type ChainName } from '@/lib/chains/registry';
import { FIAT_METHODS, type FiatMethod } from '@/lib/onramp/fiat-methods';
import { OnrampProviderError } from './errors';
import type {
  FetchLike,
  OnrampCheckout,
  OnrampOrderStatus,
  OnrampProviderAdapter,
  OnrampQuote,
  OnrampQuoteInput,
  OnrampWebhookRequest,
  VerifyWebhookResult,
  WebhookFailureCode,
} from './types';
import {
  buildQuery,
  constantTimeEqual,
  exactPositiveDecimal,
  headerValue,
  hmacSha256,
  normaliseDecimal,
  parseJsonExactly,
  requestProviderJson,
  validateOrder,
} from './wire';

const SANDBOX_DISPLAY_NAME = 'Sandpiper Pay';
export const SANDBOX_SIGNATURE_HEADER = 'Sandbox-Signature';
/** Currencies the provider prices in (its price table's). */
const SANDBOX_FIAT_CURRENCIES = ['USD', 'EUR', 'GBP'] as const;
const REQUEST_TIMEOUT_MS = 10_000;

const sandboxConfigSchema = z.object({
  /** The origin the provider is served from (APP_URL here); its paths live under /sandbox-provider. */
  baseUrl: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, '')),
  /** The partner API key, which also signs the webhooks. */
  secret: z.string().min(32),
  /** How old a webhook signature may be: 5 minutes, as with Stripe-style signatures. */
  webhookToleranceSeconds: z.number().int().min(1).default(300),
  /** The provider the sandbox stands in for (ADR 0008), named on its payment screen. */
  standingInFor: z.string().min(1).max(40).optional(),
});
export type SandboxConfig = z.input<typeof sandboxConfigSchema> & { fetch?: FetchLike };

// ── Signatures ──────────────────────────────────────────────────────────────────────────────────

/** The `Sandbox-Signature` header value for a body sent at `timestamp` (unix seconds). */
export function signSandboxWebhook(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${hmacSha256(secret, `${timestamp}.${body}`).toString('hex')}`;
}

/** `t=…,v1=…[,v1=…]`: one timestamp, one or more hex signatures (several while a secret rotates). */
export function parseSandboxSignatureHeader(header: string): { timestamp: number; signatures: string[] } | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const element of header.split(',')) {
    const at = element.indexOf('=');
    if (at <= 0) return undefined;
    const name = element.slice(0, at).trim();
    const value = element.slice(at + 1).trim();
    if (name === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return undefined;
      timestamp = Number(value);
    } else if (name === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return undefined;
      signatures.push(value.toLowerCase());
    }
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures };
}

// ── Webhooks ────────────────────────────────────────────────────────────────────────────────────

const SANDBOX_STATUS_MAP = {
  PROCESSING: 'pending',
  COMPLETED: 'completed',
  FAILED: 'failed',
} as const satisfies Record<string, OnrampOrderStatus>;
type SandboxOrderStatus = keyof typeof SANDBOX_STATUS_MAP;

const sandboxEventSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  createdAt: z.string().optional(),
  data: z.unknown(),
});
const nullableText = z.string().nullish();
const sandboxOrderSchema = z.object({
  orderId: z.string().min(1),
  partnerOrderId: nullableText,
  status: z.string().min(1),
  chain: nullableText,
  tokenSymbol: nullableText,
  // A JSON number would arrive as its exact text (parseJsonExactly); the protocol sends strings.
  cryptoAmount: nullableText,
  walletAddress: nullableText,
  txHash: nullableText,
  failureReason: nullableText,
  updatedAt: nullableText,
});

export function verifySandboxWebhook(
  request: OnrampWebhookRequest,
  keys: { secret: string; toleranceSeconds: number },
): VerifyWebhookResult {
  const header = headerValue(request.headers, SANDBOX_SIGNATURE_HEADER);
  if (!header) return failure('missing_signature', false, `no ${SANDBOX_SIGNATURE_HEADER} header`);
  const parsed = parseSandboxSignatureHeader(header);
  if (!parsed) return failure('malformed_signature', false, `${SANDBOX_SIGNATURE_HEADER} is not t=<timestamp>,v1=<hex>`);

  // Signature first, so a forger learns nothing from which check failed.
  const expected = hmacSha256(keys.secret, `${parsed.timestamp}.${request.rawBody}`).toString('hex');
  if (!parsed.signatures.some((signature) => constantTimeEqual(expected, signature))) {
    return failure('invalid_signature', false, 'signature mismatch');
  }
  const ageSeconds = Math.abs(request.now.getTime() / 1000 - parsed.timestamp);
  if (ageSeconds > keys.toleranceSeconds) return failure('stale', false, `signed ${Math.round(ageSeconds)} s away from now`);

  let event: z.infer<typeof sandboxEventSchema>;
  try {
    const result = sandboxEventSchema.safeParse(parseJsonExactly(request.rawBody));
    if (!result.success) return failure('malformed_payload', true, 'not a Sandpiper Pay event');
    event = result.data;
  } catch {
    return failure('malformed_payload', true, 'body is not JSON');
  }
  if (event.type !== 'order.updated') return failure('ignored_event', true, `event ${event.type} is not an order update`);
  const order = sandboxOrderSchema.safeParse(event.data);
  if (!order.success) return failure('malformed_payload', true, 'order.updated without the documented order fields');

  const data = order.data;
  const status = Object.hasOwn(SANDBOX_STATUS_MAP, data.status) ? SANDBOX_STATUS_MAP[data.status as SandboxOrderStatus] : undefined;
  if (!status) return failure('unknown_status', true, `Sandpiper Pay status ${data.status} is not in the documented list`);

  const chain = data.chain && isChainName(data.chain) ? data.chain : undefined;
  const cryptoAmount = exactPositiveDecimal(data.cryptoAmount);
  return {
    ok: true,
    update: {
      providerId: 'sandbox',
      providerOrderId: data.orderId,
      externalOrderId: data.partnerOrderId || null,
      status,
      providerStatus: data.status,
      ...(cryptoAmount ? { cryptoAmount } : {}),
      ...(data.walletAddress ? { walletAddress: data.walletAddress } : {}),
      ...(chain && data.tokenSymbol ? { chain, tokenSymbol: data.tokenSymbol } : {}),
      ...(data.txHash ? { txHash: data.txHash } : {}),
      ...(status === 'failed' ? { failureReason: data.failureReason || 'failed at Sandpiper Pay' } : {}),
    },
  };
}

function failure(code: WebhookFailureCode, authentic: boolean, message: string): VerifyWebhookResult {
  return { ok: false, code, authentic, message };
}

// ── HTTP ────────────────────────────────────────────────────────────────────────────────────────

function callProvider(fetchImpl: FetchLike, url: string, init: RequestInit): Promise<unknown> {
  return requestProviderJson({ id: 'sandbox', name: SANDBOX_DISPLAY_NAME }, fetchImpl, url, init, REQUEST_TIMEOUT_MS);
}

const decimalString = z.string().regex(/^\d+(?:\.\d+)?$/);
const quoteResponseSchema = z.object({
  data: z.object({
    cryptoAmount: decimalString,
    fiatCurrency: z.string(),
    rate: decimalString,
    providerFee: decimalString,
    networkFee: decimalString,
    total: decimalString,
    expiresAt: z.iso.datetime({ offset: true }),
  }),
});
const sessionResponseSchema = z.object({
  data: z.object({ sessionId: z.string().min(1), url: z.string(), expiresAt: z.iso.datetime({ offset: true }) }),
});

function badResponse(what: string): OnrampProviderError {
  return new OnrampProviderError(
    'sandbox',
    'provider_bad_response',
    `${SANDBOX_DISPLAY_NAME}’s ${what} answer is not the documented shape.`,
  );
}

// ── Adapter ─────────────────────────────────────────────────────────────────────────────────────

function supportsAsset(chain: ChainName, tokenSymbol: string): boolean {
  const info = getChain(chain);
  return info.family === 'evm' && info.tokens.some((token) => tokenHasSymbol(token, tokenSymbol));
}

function supportsPaymentMethod(method: FiatMethod, fiatCurrency: string): boolean {
  return FIAT_METHODS.includes(method) && (SANDBOX_FIAT_CURRENCIES as readonly string[]).includes(fiatCurrency.toUpperCase());
}

export function createSandboxAdapter(config: SandboxConfig): OnrampProviderAdapter {
  const settings = sandboxConfigSchema.parse(config);
  const fetchImpl: FetchLike = config.fetch ?? ((input, init) => fetch(input, init));
  const apiBase = `${settings.baseUrl}/sandbox-provider/api`;

  async function requestQuote(
    input: Omit<OnrampQuoteInput, 'cryptoAmount'> & { amount: { kind: 'crypto' | 'fiat'; value: string } },
  ): Promise<OnrampQuote> {
    const query = buildQuery([
      ['chain', input.chain],
      ['tokenSymbol', input.tokenSymbol],
      [input.amount.kind === 'crypto' ? 'cryptoAmount' : 'fiatAmount', normaliseDecimal(input.amount.value)],
      ['fiatCurrency', input.fiatCurrency.toUpperCase()],
      ['paymentMethod', input.paymentMethod],
    ]);
    const body = await callProvider(fetchImpl, `${apiBase}/quote${query}`, { method: 'GET', headers: { accept: 'application/json' } });
    const parsed = quoteResponseSchema.safeParse(body);
    if (!parsed.success) throw badResponse('quote');
    return { ...parsed.data.data, expiresAt: new Date(parsed.data.data.expiresAt) };
  }

  function checkSupported(input: { chain: ChainName; tokenSymbol: string; fiatCurrency: string; paymentMethod: FiatMethod }): void {
    if (!supportsAsset(input.chain, input.tokenSymbol)) {
      throw new OnrampProviderError(
        'sandbox',
        'unsupported_asset',
        `${SANDBOX_DISPLAY_NAME} does not sell ${input.tokenSymbol} on ${input.chain}.`,
      );
    }
    if (!supportsPaymentMethod(input.paymentMethod, input.fiatCurrency)) {
      throw new OnrampProviderError(
        'sandbox',
        'unsupported_payment_method',
        `${SANDBOX_DISPLAY_NAME} does not take ${input.paymentMethod} in ${input.fiatCurrency}.`,
      );
    }
  }

  return {
    id: 'sandbox',
    displayName: SANDBOX_DISPLAY_NAME,
    supportsAsset,
    supportsPaymentMethod,
    async quote(input) {
      checkSupported(input);
      return requestQuote({ ...input, amount: { kind: 'crypto', value: input.cryptoAmount } });
    },
    async buildCheckout(input): Promise<OnrampCheckout> {
      const order = validateOrder('sandbox', input);
      // Without a preference the card tab opens: it settles at once, where a bank transfer would not.
      const paymentMethod = order.paymentMethod ?? 'card';
      checkSupported({ ...order, paymentMethod });
      if (order.amount.kind === 'fiat' && !/^\d+(?:\.\d{1,2})?$/.test(normaliseDecimal(order.amount.value))) {
        throw new OnrampProviderError('sandbox', 'invalid_order', 'Invalid on-ramp order: amount.value has more than 2 decimals.', {
          param: 'amount.value',
        });
      }
      // The session carries both amounts, so the order is priced first with the provider's own quote.
      const quote = await requestQuote({ ...order, paymentMethod, amount: order.amount });
      const body = await callProvider(fetchImpl, `${apiBase}/sessions`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${settings.secret}` },
        body: JSON.stringify({
          partnerOrderId: order.orderId,
          walletAddress: order.walletAddress,
          chain: order.chain,
          tokenSymbol: order.tokenSymbol,
          cryptoAmount: quote.cryptoAmount,
          fiatCurrency: order.fiatCurrency,
          fiatAmount: quote.total,
          paymentMethod,
          country: order.country,
          redirectUrl: order.redirectUrl,
          ...(order.email ? { email: order.email } : {}),
          ...(settings.standingInFor ? { standingInFor: settings.standingInFor } : {}),
        }),
      });
      const parsed = sessionResponseSchema.safeParse(body);
      // Buyers are only ever sent to the provider's own payment screen, whatever the answer says.
      if (!parsed.success || !parsed.data.data.url.startsWith(`${settings.baseUrl}/sandbox-provider/pay/`)) throw badResponse('session');
      return { kind: 'redirect', url: parsed.data.data.url, expiresAt: new Date(parsed.data.data.expiresAt) };
    },
    async verifyWebhook(request) {
      return verifySandboxWebhook(request, { secret: settings.secret, toleranceSeconds: settings.webhookToleranceSeconds });
    },
  };
}
