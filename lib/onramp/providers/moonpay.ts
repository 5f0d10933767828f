/**
 * MoonPay on-ramp: a signed widget URL to start the purchase, and signed order webhooks back.
 *
 * Widget URL — https://dev.moonpay.com/docs/ramps-sdk-buy-params (on-ramp widget parameters) and
 * https://dev.moonpay.com/docs/on-ramp-how-to (hosts: https://buy.moonpay.com, sandbox
 * https://buy-sandbox.moonpay.com).
 *
 * URL signing — https://dev.moonpay.com/widget/on-ramp/customization/url-signing (and the earlier
 * https://dev.moonpay.com/v1.0/docs/ramps-sdk-url-signing, same algorithm):
 *   signature = base64(HMAC-SHA256(secretKey, new URL(originalUrl).search))   // search includes '?'
 *   signedUrl = `${originalUrl}&signature=${encodeURIComponent(signature)}`
 * "All query parameter values … need to be URL encoded before generating the signature", the
 * signature "must be appended at the end of the URL", and it is mandatory with walletAddress/email.
 * The docs also warn that gateways which reorder parameters break the signature, so the query is
 * built once, in a fixed order, and signed exactly as sent.
 *
 * Webhooks — https://dev.moonpay.com/api-reference/widget/webhooks/signature and
 * https://dev.moonpay.com/api-reference/platform/webhooks/overview: header `Moonpay-Signature-V2:
 * t=<unix seconds>,s=<lowercase hex>`; split on ',' then on '='; signed text `${t}.${rawBody}`;
 * HMAC-SHA256 with the webhook API key; compare in constant time. Events (transaction_created,
 * transaction_updated, transaction_failed) and the body `{ data: <transaction> }`:
 * https://dev.moonpay.com/api-reference/widget/webhooks/buy. Transaction statuses:
 * https://dev.moonpay.com/reference/getbuytransaction.
 */
import { z } from 'zod';
import { assetForMoonPayCode, moonPayCurrencyCode } from './currency-codes';
import { OnrampProviderError } from './errors';
import type {
  OnrampCheckout,
  OnrampOrder,
  OnrampOrderInput,
  OnrampOrderStatus,
  OnrampProviderAdapter,
  OnrampWebhookRequest,
  VerifyWebhookResult,
  WebhookFailureCode,
} from './types';
import type { FiatMethod } from '@/lib/onramp/fiat-methods';
import {
  buildQuery,
  constantTimeEqual,
  exactPositiveDecimal,
  headerValue,
  hmacSha256,
  normaliseDecimal,
  parseJsonExactly,
  validateOrder,
} from './wire';

const MOONPAY_WIDGET_HOSTS = {
  production: 'https://buy.moonpay.com',
  sandbox: 'https://buy-sandbox.moonpay.com',
} as const;

const moonPayConfigSchema = z.object({
  environment: z.enum(['production', 'sandbox']),
  /** Publishable key (pk_live_… / pk_test_…), the widget's `apiKey`. */
  publishableKey: z.string().min(1),
  /** Secret key (sk_live_… / sk_test_…): signs widget URLs. Never sent anywhere. */
  secretKey: z.string().min(1),
  /** Webhook API key from the dashboard's Developers page: verifies Moonpay-Signature-V2. */
  webhookKey: z.string().min(1),
  /**
   * How old a webhook signature may be. MoonPay's webhook docs set no window; 300 s is the window of
   * Stripe's equivalent scheme (docs/anchors) and allows for MoonPay's retries being re-signed.
   */
  webhookToleranceSeconds: z.number().int().min(1).default(300),
  /** How the checkout opens; the widget works in a new tab or an iframe. */
  presentation: z.enum(['redirect', 'embed']).default('redirect'),
});
export type MoonPayConfig = z.input<typeof moonPayConfigSchema>;

// ── URL signing ─────────────────────────────────────────────────────────────────────────────────

/** base64 HMAC-SHA256 of the URL's query string (with its leading '?'), as MoonPay's docs compute it. */
export function moonPayUrlSignature(url: string, secretKey: string): string {
  return hmacSha256(secretKey, new URL(url).search).toString('base64');
}

/** The URL with `&signature=…` appended last, URL-encoded, per the docs. */
export function signMoonPayUrl(url: string, secretKey: string): string {
  return `${url}&signature=${encodeURIComponent(moonPayUrlSignature(url, secretKey))}`;
}

// ── Widget URL ──────────────────────────────────────────────────────────────────────────────────

/**
 * MoonPay's `paymentMethod` ids (values of a transaction's paymentMethod in
 * https://dev.moonpay.com/reference/getbuytransaction, and the preselect list of
 * https://dev.moonpay.com/platform/guides/pay-with-widget). Bank transfer depends on the currency:
 * SEPA for EUR, Faster Payments for GBP, ACH for USD. Apple Pay is offered by the widget on Apple
 * devices but no documented preselect id was found, so it is supported without preselecting.
 */
export function moonPayPaymentMethod(method: FiatMethod, fiatCurrency: string): { supported: false } | { supported: true; id?: string } {
  switch (method) {
    case 'card':
      return { supported: true, id: 'credit_debit_card' };
    case 'google_pay':
      return { supported: true, id: 'google_pay' };
    case 'apple_pay':
      return { supported: true };
    case 'bank_transfer': {
      const id = ({ EUR: 'sepa_bank_transfer', GBP: 'gbp_bank_transfer', USD: 'ach_bank_transfer' } as Record<string, string>)[
        fiatCurrency.toUpperCase()
      ];
      return id ? { supported: true, id } : { supported: false };
    }
  }
}

/**
 * The signed widget URL for an order. Parameters, in this order: apiKey, currencyCode (locks the
 * token), walletAddress, baseCurrencyCode, baseCurrencyAmount (fiat orders) or quoteCurrencyAmount
 * (crypto orders), paymentMethod, email, externalTransactionId (our order id, echoed in webhooks),
 * redirectURL; then signature. Currency codes are lower case as MoonPay lists them.
 */
export function buildMoonPayWidgetUrl(input: OnrampOrderInput, config: MoonPayConfig): string {
  const settings = moonPayConfigSchema.parse(config);
  const order = validateOrder('moonpay', input);
  const currencyCode = moonPayCurrencyCode(order.chain, order.tokenSymbol);
  if (!currencyCode) {
    throw new OnrampProviderError('moonpay', 'unsupported_asset', `MoonPay does not sell ${order.tokenSymbol} on ${order.chain}.`);
  }
  const method = order.paymentMethod ? moonPayPaymentMethod(order.paymentMethod, order.fiatCurrency) : { supported: true as const };
  if (!method.supported) {
    throw new OnrampProviderError(
      'moonpay',
      'unsupported_payment_method',
      `MoonPay does not take ${order.paymentMethod} in ${order.fiatCurrency}.`,
    );
  }
  const query = buildQuery([
    ['apiKey', settings.publishableKey],
    ['currencyCode', currencyCode],
    ['walletAddress', order.walletAddress],
    ['baseCurrencyCode', order.fiatCurrency.toLowerCase()],
    ...amountParams(order),
    ['paymentMethod', 'id' in method ? method.id : undefined],
    ['email', order.email],
    ['externalTransactionId', order.orderId],
    ['redirectURL', order.redirectUrl],
  ]);
  return signMoonPayUrl(`${MOONPAY_WIDGET_HOSTS[settings.environment]}/${query}`, settings.secretKey);
}

function amountParams(order: OnrampOrder): [string, string][] {
  const value = normaliseDecimal(order.amount.value);
  return order.amount.kind === 'fiat' ? [['baseCurrencyAmount', value]] : [['quoteCurrencyAmount', value]];
}

// ── Webhooks ────────────────────────────────────────────────────────────────────────────────────

const MOONPAY_SIGNATURE_HEADER = 'Moonpay-Signature-V2';

/** Every documented buy-transaction status → ours. waitingPayment: bank transfer not received yet; waitingAuthorization: 3DS. */
export const MOONPAY_STATUS_MAP = {
  waitingPayment: 'pending',
  pending: 'pending',
  waitingAuthorization: 'pending',
  completed: 'completed',
  failed: 'failed',
} as const satisfies Record<string, OnrampOrderStatus>;
type MoonPayTransactionStatus = keyof typeof MOONPAY_STATUS_MAP;

const MOONPAY_BUY_EVENTS = ['transaction_created', 'transaction_updated', 'transaction_failed'] as const;

const nullableText = z.string().nullish();
const moonPayWebhookSchema = z.object({
  type: z.string().optional(),
  data: z.object({
    id: z.string().min(1),
    status: z.string().min(1),
    externalTransactionId: nullableText,
    walletAddress: nullableText,
    cryptoTransactionId: nullableText,
    failureReason: nullableText,
    // JSON numbers arrive as their exact text (parseJsonExactly).
    quoteCurrencyAmount: z.string().nullish(),
    currency: z.object({ code: z.string() }).partial().nullish(),
  }),
});

/** Parses `t=…,s=…` as the docs describe: split on ',', then each element on its first '='. */
export function parseMoonPaySignatureHeader(header: string): { timestamp: number; signature: string } | undefined {
  const fields = new Map<string, string>();
  for (const element of header.split(',')) {
    const at = element.indexOf('=');
    if (at <= 0) return undefined;
    fields.set(element.slice(0, at).trim(), element.slice(at + 1).trim());
  }
  const t = fields.get('t');
  const s = fields.get('s');
  if (!t || !/^\d{1,12}$/.test(t) || !s || !/^[0-9a-fA-F]{64}$/.test(s)) return undefined;
  return { timestamp: Number(t), signature: s.toLowerCase() };
}

export function verifyMoonPayWebhook(
  request: OnrampWebhookRequest,
  keys: { webhookKey: string; toleranceSeconds: number },
): VerifyWebhookResult {
  const header = headerValue(request.headers, MOONPAY_SIGNATURE_HEADER);
  if (!header) return failure('missing_signature', false, `no ${MOONPAY_SIGNATURE_HEADER} header`);
  const parsed = parseMoonPaySignatureHeader(header);
  if (!parsed) return failure('malformed_signature', false, `${MOONPAY_SIGNATURE_HEADER} is not t=<timestamp>,s=<hex>`);

  // Signature first, so an attacker learns nothing from which check failed on a forged request.
  const expected = hmacSha256(keys.webhookKey, `${parsed.timestamp}.${request.rawBody}`).toString('hex');
  if (!constantTimeEqual(expected, parsed.signature)) return failure('invalid_signature', false, 'signature mismatch');

  const ageSeconds = Math.abs(request.now.getTime() / 1000 - parsed.timestamp);
  if (ageSeconds > keys.toleranceSeconds) return failure('stale', false, `signed ${Math.round(ageSeconds)} s away from now`);

  let body: z.infer<typeof moonPayWebhookSchema>;
  try {
    const result = moonPayWebhookSchema.safeParse(parseJsonExactly(request.rawBody));
    if (!result.success) return failure('malformed_payload', true, 'not a MoonPay transaction event');
    body = result.data;
  } catch {
    return failure('malformed_payload', true, 'body is not JSON');
  }
  if (body.type !== undefined && !(MOONPAY_BUY_EVENTS as readonly string[]).includes(body.type)) {
    return failure('ignored_event', true, `event ${body.type} is not a buy transaction event`);
  }
  const transaction = body.data;
  const status = Object.hasOwn(MOONPAY_STATUS_MAP, transaction.status)
    ? MOONPAY_STATUS_MAP[transaction.status as MoonPayTransactionStatus]
    : undefined;
  if (!status) return failure('unknown_status', true, `MoonPay status ${transaction.status} is not in the documented list`);

  const asset = transaction.currency?.code ? assetForMoonPayCode(transaction.currency.code) : undefined;
  const cryptoAmount = exactPositiveDecimal(transaction.quoteCurrencyAmount);
  return {
    ok: true,
    update: {
      providerId: 'moonpay',
      providerOrderId: transaction.id,
      externalOrderId: transaction.externalTransactionId || null,
      status,
      providerStatus: transaction.status,
      ...(cryptoAmount ? { cryptoAmount } : {}),
      ...(transaction.walletAddress ? { walletAddress: transaction.walletAddress } : {}),
      ...(asset ? { chain: asset.chain, tokenSymbol: asset.tokenSymbol } : {}),
      ...(transaction.cryptoTransactionId ? { txHash: transaction.cryptoTransactionId } : {}),
      ...(status === 'failed' ? { failureReason: transaction.failureReason || 'failed at MoonPay' } : {}),
    },
  };
}

function failure(code: WebhookFailureCode, authentic: boolean, message: string): VerifyWebhookResult {
  return { ok: false, code, authentic, message };
}

// ── Adapter ─────────────────────────────────────────────────────────────────────────────────────

export function createMoonPayAdapter(config: MoonPayConfig): OnrampProviderAdapter {
  const settings = moonPayConfigSchema.parse(config);
  return {
    id: 'moonpay',
    displayName: 'MoonPay',
    supportsAsset: (chain, tokenSymbol) => moonPayCurrencyCode(chain, tokenSymbol) !== undefined,
    supportsPaymentMethod: (method, fiatCurrency) => moonPayPaymentMethod(method, fiatCurrency).supported,
    async buildCheckout(order): Promise<OnrampCheckout> {
      return { kind: settings.presentation, url: buildMoonPayWidgetUrl(order, settings) };
    },
    async verifyWebhook(request) {
      return verifyMoonPayWebhook(request, { webhookKey: settings.webhookKey, toleranceSeconds: settings.webhookToleranceSeconds });
    },
  };
}
