/**
 * Transak on-ramp: a widget URL created by our backend, and JWT-signed order webhooks back.
 *
 * Partner access token — https://docs.transak.com/api/public/refresh-access-token and
 * https://docs.transak.com/guides/how-to-create-partner-access-token:
 *   POST {api}/partners/api/v2/refresh-token, header `api-secret`, JSON body {"apiKey"} →
 *   {"data":{"accessToken","expiresAt"}} (unix seconds, valid 7 days). Calling it again invalidates
 *   the previous token, so it is called only when the stored token has expired.
 *   {api} = https://api-stg.transak.com (staging) / https://api.transak.com (production).
 *
 * Widget URL — https://docs.transak.com/api/public/create-widget-url and
 * https://docs.transak.com/guides/migration-to-api-based-transak-widget-url (query parameters in the
 * widget URL are deprecated; the backend must create the URL):
 *   POST {gateway}/api/v2/auth/session, header `access-token`, JSON body {"widgetParams":{…}} with
 *   apiKey and referrerDomain mandatory → {"data":{"widgetUrl"}}; the URL is single-use and expires
 *   5 minutes after creation. {gateway} = https://api-gateway-stg.transak.com /
 *   https://api-gateway.transak.com. Parameter names: https://docs.transak.com/docs/query-parameters
 *   (and the SDK's QueryParams type, github.com/Transak/transak-sdk src/Types/query-params.types.d.ts).
 *
 * Webhooks — https://docs.transak.com/guides/how-to-decrypt-webhook-payload: the body's `data` field
 * is a JWT signed with the partner access token (HS256, what `jwt.verify(data, accessToken)` checks);
 * verify it, then read `webhookData` and `eventID`. Events and statuses:
 * https://docs.transak.com/docs/webhooks-order and https://docs.transak.com/guides/track-order-status.
 */
import { LosslessNumber, stringify } from 'lossless-json';
import { z } from 'zod';
import { assetForTransakCode, transakAssetCode } from './currency-codes';
import { OnrampProviderError } from './errors';
import { verifyHs256Jwt } from './jwt-hs256';
import type {
  FetchLike,
  OnrampCheckout,
  OnrampOrderInput,
  OnrampOrderStatus,
  OnrampProviderAdapter,
  OnrampWebhookRequest,
  VerifyWebhookResult,
  WebhookFailureCode,
} from './types';
import type { FiatMethod } from '@/lib/onramp/fiat-methods';
import { exactPositiveDecimal, normaliseDecimal, parseJsonExactly, requestProviderJson, validateOrder } from './wire';

const TRANSAK_API_HOSTS = { staging: 'https://api-stg.transak.com', production: 'https://api.transak.com' } as const;
const TRANSAK_GATEWAY_HOSTS = {
  staging: 'https://api-gateway-stg.transak.com',
  production: 'https://api-gateway.transak.com',
} as const;
export type TransakEnvironment = keyof typeof TRANSAK_API_HOSTS;

/** "A widgetUrl is valid for 5 minutes and can only be used once." */
const TRANSAK_WIDGET_URL_LIFETIME_MS = 5 * 60 * 1000;
const REQUEST_TIMEOUT_MS = 10_000;

const transakConfigSchema = z.object({
  environment: z.enum(['staging', 'production']),
  apiKey: z.string().min(1),
  /** Our domain as whitelisted with Transak; mandatory in widgetParams. */
  referrerDomain: z.string().min(1),
  /** Seconds of clock skew allowed on the webhook JWT's exp/nbf. */
  webhookClockToleranceSeconds: z.number().int().min(0).default(30),
  presentation: z.enum(['redirect', 'embed']).default('redirect'),
});
export type TransakConfig = z.input<typeof transakConfigSchema>;

export interface TransakDependencies {
  fetch: FetchLike;
  /** The stored partner access token (mint one with refreshTransakAccessToken when it has expired). */
  accessToken: () => Promise<string>;
  /** Tokens that may have signed a webhook: the current one, plus the replaced one right after a refresh. */
  webhookAccessTokens: () => Promise<readonly string[]>;
}

// ── HTTP ────────────────────────────────────────────────────────────────────────────────────────

function postJson(fetchImpl: FetchLike, url: string, headers: Record<string, string>, body: string): Promise<unknown> {
  return requestProviderJson(
    { id: 'transak', name: 'Transak' },
    fetchImpl,
    url,
    { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json', ...headers }, body },
    REQUEST_TIMEOUT_MS,
  );
}

// ── Access token ────────────────────────────────────────────────────────────────────────────────

const refreshTokenResponseSchema = z.object({
  data: z.object({ accessToken: z.string().min(1), expiresAt: z.string().regex(/^\d+$/) }),
});

/** Mints a partner access token. Invalidates the previous one: call only when it has expired. */
export async function refreshTransakAccessToken(input: {
  fetch: FetchLike;
  environment: TransakEnvironment;
  apiKey: string;
  apiSecret: string;
}): Promise<{ accessToken: string; expiresAt: Date }> {
  const body = await postJson(
    input.fetch,
    `${TRANSAK_API_HOSTS[input.environment]}/partners/api/v2/refresh-token`,
    { 'api-secret': input.apiSecret },
    JSON.stringify({ apiKey: input.apiKey }),
  );
  const parsed = refreshTokenResponseSchema.safeParse(body);
  if (!parsed.success)
    throw new OnrampProviderError('transak', 'provider_bad_response', 'Transak’s token answer is not the documented shape.');
  return { accessToken: parsed.data.data.accessToken, expiresAt: new Date(Number(parsed.data.data.expiresAt) * 1000) };
}

// ── Widget URL ──────────────────────────────────────────────────────────────────────────────────

/**
 * Transak `paymentMethod` ids: credit_debit_card, sepa_bank_transfer (EUR) and gbp_bank_transfer
 * (GBP) appear in Transak's docs and order samples. Apple Pay is a documented card-flow option
 * ("Create Widget URL (Cards, Apple Pay)") and Google Pay is offered in the widget, but no preselect
 * id for either is documented, so they are offered without preselecting. Bank transfer in other
 * currencies is not documented: not offered.
 */
export function transakPaymentMethod(method: FiatMethod, fiatCurrency: string): { supported: false } | { supported: true; id?: string } {
  switch (method) {
    case 'card':
      return { supported: true, id: 'credit_debit_card' };
    case 'apple_pay':
    case 'google_pay':
      return { supported: true };
    case 'bank_transfer': {
      const id = ({ EUR: 'sepa_bank_transfer', GBP: 'gbp_bank_transfer' } as Record<string, string>)[fiatCurrency.toUpperCase()];
      return id ? { supported: true, id } : { supported: false };
    }
  }
}

export type TransakWidgetParams = Record<string, string | boolean | LosslessNumber>;

/**
 * widgetParams for an order. Amounts are JSON numbers written from the exact decimal text
 * (LosslessNumber), never via a float. partnerOrderId carries our order id into the webhooks.
 */
export function transakWidgetParams(input: OnrampOrderInput, config: { apiKey: string; referrerDomain: string }): TransakWidgetParams {
  const order = validateOrder('transak', input);
  const asset = transakAssetCode(order.chain, order.tokenSymbol);
  if (!asset)
    throw new OnrampProviderError('transak', 'unsupported_asset', `Transak does not sell ${order.tokenSymbol} on ${order.chain}.`);
  const method = order.paymentMethod ? transakPaymentMethod(order.paymentMethod, order.fiatCurrency) : { supported: true as const };
  if (!method.supported) {
    throw new OnrampProviderError(
      'transak',
      'unsupported_payment_method',
      `Transak does not take ${order.paymentMethod} in ${order.fiatCurrency}.`,
    );
  }
  const amount = new LosslessNumber(normaliseDecimal(order.amount.value));
  const params: TransakWidgetParams = {
    apiKey: config.apiKey,
    referrerDomain: config.referrerDomain,
    productsAvailed: 'BUY',
    network: asset.network,
    cryptoCurrencyCode: asset.cryptoCurrencyCode,
    walletAddress: order.walletAddress,
    disableWalletAddressForm: true,
    fiatCurrency: order.fiatCurrency,
    ...(order.amount.kind === 'fiat' ? { fiatAmount: amount } : { cryptoAmount: amount }),
    ...('id' in method && method.id ? { defaultPaymentMethod: method.id } : {}),
    countryCode: order.country,
    ...(order.email ? { email: order.email } : {}),
    partnerOrderId: order.orderId,
    redirectURL: order.redirectUrl,
  };
  return params;
}

const widgetUrlResponseSchema = z.object({ data: z.object({ widgetUrl: z.string() }) });

/** Creates the single-use widget URL (the only network call of a checkout). */
async function createTransakWidgetUrl(input: {
  fetch: FetchLike;
  environment: TransakEnvironment;
  accessToken: string;
  widgetParams: TransakWidgetParams;
  now: Date;
}): Promise<{ widgetUrl: string; expiresAt: Date }> {
  const body = await postJson(
    input.fetch,
    `${TRANSAK_GATEWAY_HOSTS[input.environment]}/api/v2/auth/session`,
    { 'access-token': input.accessToken },
    stringify({ widgetParams: input.widgetParams }) ?? '{}',
  );
  const parsed = widgetUrlResponseSchema.safeParse(body);
  const widgetUrl = parsed.success ? parsed.data.data.widgetUrl : undefined;
  if (!widgetUrl || !isTransakHttpsUrl(widgetUrl)) {
    throw new OnrampProviderError('transak', 'provider_bad_response', 'Transak’s widget answer is not the documented shape.');
  }
  return { widgetUrl, expiresAt: new Date(input.now.getTime() + TRANSAK_WIDGET_URL_LIFETIME_MS) };
}

/** Buyers are only ever sent to Transak's own https hosts, whatever the answer says. */
function isTransakHttpsUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && (url.hostname === 'transak.com' || url.hostname.endsWith('.transak.com'));
  } catch {
    return false;
  }
}

// ── Webhooks ────────────────────────────────────────────────────────────────────────────────────

/** Every documented on-ramp order status → ours. */
export const TRANSAK_STATUS_MAP = {
  AWAITING_PAYMENT_FROM_USER: 'pending',
  PAYMENT_DONE_MARKED_BY_USER: 'pending',
  PROCESSING: 'pending',
  PENDING_DELIVERY_FROM_TRANSAK: 'pending',
  ON_HOLD_PENDING_DELIVERY_FROM_TRANSAK: 'pending',
  COMPLETED: 'completed',
  CANCELLED: 'failed',
  FAILED: 'failed',
  REFUNDED: 'failed',
  EXPIRED: 'expired',
} as const satisfies Record<string, OnrampOrderStatus>;
type TransakOrderStatus = keyof typeof TRANSAK_STATUS_MAP;

/** The docs' description of each unsuccessful status, as the failure reason. */
const TRANSAK_FAILURE_REASONS: Partial<Record<TransakOrderStatus, string>> = {
  CANCELLED: 'The order was cancelled.',
  FAILED: 'The payment failed (for example, the card was declined).',
  REFUNDED: 'The payment was refunded because the crypto could not be delivered.',
  EXPIRED: 'The buyer did not pay within the time allowed.',
};

const transakWebhookBodySchema = z.object({ data: z.string().min(1) });
const transakOrderEventSchema = z.object({
  eventID: z.string().min(1),
  webhookData: z.object({
    id: z.string().min(1),
    status: z.string().min(1),
    partnerOrderId: z.string().nullish(),
    isBuyOrSell: z.string().nullish(),
    walletAddress: z.string().nullish(),
    network: z.string().nullish(),
    cryptoCurrency: z.string().nullish(),
    // JSON numbers arrive as their exact text.
    cryptoAmount: z.string().nullish(),
    transactionHash: z.string().nullish(),
  }),
});

export async function verifyTransakWebhook(
  request: OnrampWebhookRequest,
  keys: { accessTokens: readonly string[]; clockToleranceSeconds: number },
): Promise<VerifyWebhookResult> {
  let outer: unknown;
  try {
    outer = parseJsonExactly(request.rawBody);
  } catch {
    return failure('malformed_signature', false, 'body is not JSON');
  }
  const envelope = transakWebhookBodySchema.safeParse(outer);
  if (!envelope.success) {
    const hasData = outer !== null && typeof outer === 'object' && 'data' in outer;
    return failure(hasData ? 'malformed_signature' : 'missing_signature', false, 'body has no signed `data` token');
  }
  const verified = await verifyHs256Jwt(envelope.data.data, keys.accessTokens, {
    now: request.now,
    clockToleranceSeconds: keys.clockToleranceSeconds,
  });
  if (!verified.ok) return failure(verified.code, false, verified.message);

  const event = transakOrderEventSchema.safeParse(verified.payload);
  if (!event.success) {
    const eventId = verified.payload.eventID;
    return typeof eventId === 'string' && !eventId.startsWith('ORDER_')
      ? failure('ignored_event', true, `event ${eventId} is not an order event`)
      : failure('malformed_payload', true, 'not a Transak order event');
  }
  const { eventID, webhookData: order } = event.data;
  if (!eventID.startsWith('ORDER_') || (order.isBuyOrSell && order.isBuyOrSell !== 'BUY')) {
    return failure('ignored_event', true, `event ${eventID} (${order.isBuyOrSell ?? 'BUY'}) is not an on-ramp order event`);
  }
  const providerStatus = order.status;
  const status = Object.hasOwn(TRANSAK_STATUS_MAP, providerStatus) ? TRANSAK_STATUS_MAP[providerStatus as TransakOrderStatus] : undefined;
  if (!status) return failure('unknown_status', true, `Transak status ${providerStatus} is not in the documented list`);

  const asset = order.network && order.cryptoCurrency ? assetForTransakCode(order.network, order.cryptoCurrency) : undefined;
  const cryptoAmount = exactPositiveDecimal(order.cryptoAmount);
  const failureReason = TRANSAK_FAILURE_REASONS[providerStatus as TransakOrderStatus];
  return {
    ok: true,
    update: {
      providerId: 'transak',
      providerOrderId: order.id,
      externalOrderId: order.partnerOrderId || null,
      status,
      providerStatus,
      ...(cryptoAmount ? { cryptoAmount } : {}),
      ...(order.walletAddress ? { walletAddress: order.walletAddress } : {}),
      ...(asset ? { chain: asset.chain, tokenSymbol: asset.tokenSymbol } : {}),
      ...(order.transactionHash ? { txHash: order.transactionHash } : {}),
      ...(failureReason ? { failureReason } : {}),
    },
  };
}

function failure(code: WebhookFailureCode, authentic: boolean, message: string): VerifyWebhookResult {
  return { ok: false, code, authentic, message };
}

// ── Adapter ─────────────────────────────────────────────────────────────────────────────────────

export function createTransakAdapter(config: TransakConfig, deps: TransakDependencies): OnrampProviderAdapter {
  const settings = transakConfigSchema.parse(config);
  return {
    id: 'transak',
    displayName: 'Transak',
    supportsAsset: (chain, tokenSymbol) => transakAssetCode(chain, tokenSymbol) !== undefined,
    supportsPaymentMethod: (method, fiatCurrency) => transakPaymentMethod(method, fiatCurrency).supported,
    async buildCheckout(order, options = {}): Promise<OnrampCheckout> {
      // Validate before spending a network call (and before reading the token store).
      const widgetParams = transakWidgetParams(order, settings);
      const { widgetUrl, expiresAt } = await createTransakWidgetUrl({
        fetch: deps.fetch,
        environment: settings.environment,
        accessToken: await deps.accessToken(),
        widgetParams,
        now: options.now ?? new Date(),
      });
      return { kind: settings.presentation, url: widgetUrl, expiresAt };
    },
    async verifyWebhook(request) {
      return verifyTransakWebhook(request, {
        accessTokens: await deps.webhookAccessTokens(),
        clockToleranceSeconds: settings.webhookClockToleranceSeconds,
      });
    },
  };
}
