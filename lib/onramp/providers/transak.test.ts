import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { isOnrampProviderError, type OnrampProviderError } from './errors';
import {
  createTransakAdapter,
  refreshTransakAccessToken,
  TRANSAK_STATUS_MAP,
  transakPaymentMethod,
  transakWidgetParams,
  verifyTransakWebhook,
  type TransakConfig,
} from './transak';
import type { FetchLike, OnrampOrderInput, VerifyWebhookResult } from './types';

const CONFIG: TransakConfig = { environment: 'staging', apiKey: 'api_key_123', referrerDomain: 'pay.example.com' };
const ACCESS_TOKEN = 'partner-access-token-current';
const PREVIOUS_TOKEN = 'partner-access-token-previous';
const NOW = new Date('2026-11-22T12:00:00Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);
const ORDER: OnrampOrderInput = {
  orderId: 'ord_123',
  walletAddress: '0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae',
  chain: 'POLYGON',
  tokenSymbol: 'USDC',
  fiatCurrency: 'eur',
  amount: { kind: 'fiat', value: '100.50' },
  country: 'de',
  paymentMethod: 'card',
  redirectUrl: 'https://pay.example.com/onramp/ord_123/return',
  email: 'buyer@example.com',
};

// The documented sample answers (https://docs.transak.com/api/public/create-widget-url and
// https://docs.transak.com/api/public/refresh-access-token).
const WIDGET_URL_SAMPLE =
  'https://global-stg.transak.com?apiKey=abc123def456ghi789jkl012mno345pq&sessionId=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VySWQiOiI1ZDg3Y2YxMi1hYmNkLTQ1ZjYtYmYxMi1hYmNkZWYxMjM0NTYiLCJpYXQiOjE2ODgwMz';
const WIDGET_RESPONSE_SAMPLE = `{"data":{"widgetUrl":"${WIDGET_URL_SAMPLE}"}}`;
const TOKEN_RESPONSE_SAMPLE =
  '{"data":{"accessToken":"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJBUElfS0VZIjoiYTg3ZjY1Y2ItZDAxMi00ZjY3LWE3YjMtYjYxZDI3NzYxNzQ1IiwiaWF0IjoxNjg4MDAwMDAwLCJleHAiOjE2ODg2MDY0MDB9.9Xq7vJzQ1v5X9Y2kPq3W8bT6L1mN0rJvFzG5dH7kL9o","expiresAt":1688606400}}';

function fakeFetch(status: number, body: string) {
  return vi.fn<FetchLike>(async () => new Response(body, { status, headers: { 'content-type': 'application/json' } }));
}

function adapterWith(fetchImpl: FetchLike) {
  return createTransakAdapter(CONFIG, {
    fetch: fetchImpl,
    accessToken: async () => ACCESS_TOKEN,
    webhookAccessTokens: async () => [ACCESS_TOKEN, PREVIOUS_TOKEN],
  });
}

async function expectProviderError(promise: Promise<unknown>, code: OnrampProviderError['code']): Promise<OnrampProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isOnrampProviderError(error)).toBe(true);
  expect((error as OnrampProviderError).code).toBe(code);
  return error as OnrampProviderError;
}

describe('Transak partner access token (POST /partners/api/v2/refresh-token)', () => {
  it('sends the api-secret header and the api key, and reads the documented answer', async () => {
    const fetchImpl = fakeFetch(200, TOKEN_RESPONSE_SAMPLE);
    const token = await refreshTransakAccessToken({
      fetch: fetchImpl,
      environment: 'staging',
      apiKey: 'api_key_123',
      apiSecret: 'api_secret_456',
    });
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    const [url, init] = fetchImpl.mock.calls[0]!;
    expect(url).toBe('https://api-stg.transak.com/partners/api/v2/refresh-token');
    expect(init.method).toBe('POST');
    expect(init.headers).toEqual({ accept: 'application/json', 'content-type': 'application/json', 'api-secret': 'api_secret_456' });
    expect(init.body).toBe('{"apiKey":"api_key_123"}');
    expect(token.accessToken).toMatch(/^eyJhbGciOiJIUzI1NiIs/);
    expect(token.expiresAt.toISOString()).toBe(new Date(1688606400 * 1000).toISOString());
  });

  it('uses the production host in production, and types HTTP failures', async () => {
    const ok = fakeFetch(200, TOKEN_RESPONSE_SAMPLE);
    await refreshTransakAccessToken({ fetch: ok, environment: 'production', apiKey: 'k', apiSecret: 's' });
    expect(ok.mock.calls[0]![0]).toBe('https://api.transak.com/partners/api/v2/refresh-token');
    const denied = fakeFetch(401, '{"error":{"statusCode":401,"message":"Invalid api secret"}}');
    const error = await expectProviderError(
      refreshTransakAccessToken({ fetch: denied, environment: 'staging', apiKey: 'k', apiSecret: 'bad' }),
      'provider_unauthorized',
    );
    expect(error.status).toBe(401);
    await expectProviderError(
      refreshTransakAccessToken({ fetch: fakeFetch(200, '{"data":{}}'), environment: 'staging', apiKey: 'k', apiSecret: 's' }),
      'provider_bad_response',
    );
  });
});

describe('Transak widget URL (POST /api/v2/auth/session)', () => {
  const EXPECTED_BODY =
    '{"widgetParams":{"apiKey":"api_key_123","referrerDomain":"pay.example.com","productsAvailed":"BUY","network":"polygon",' +
    '"cryptoCurrencyCode":"USDC","walletAddress":"0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae","disableWalletAddressForm":true,' +
    '"fiatCurrency":"EUR","fiatAmount":100.5,"defaultPaymentMethod":"credit_debit_card","countryCode":"DE","email":"buyer@example.com",' +
    '"partnerOrderId":"ord_123","redirectURL":"https://pay.example.com/onramp/ord_123/return"}}';

  it('sends exactly the documented request and returns the widget URL with its 5-minute expiry', async () => {
    const fetchImpl = fakeFetch(200, WIDGET_RESPONSE_SAMPLE);
    const checkout = await adapterWith(fetchImpl).buildCheckout(ORDER, { now: NOW });
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    const [url, init] = fetchImpl.mock.calls[0]!;
    expect(url).toBe('https://api-gateway-stg.transak.com/api/v2/auth/session');
    expect(init.method).toBe('POST');
    expect(init.headers).toEqual({ accept: 'application/json', 'content-type': 'application/json', 'access-token': ACCESS_TOKEN });
    expect(init.body).toBe(EXPECTED_BODY);
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(checkout).toEqual({ kind: 'redirect', url: WIDGET_URL_SAMPLE, expiresAt: new Date(NOW.getTime() + 5 * 60 * 1000) });
  });

  it('uses the production gateway in production', async () => {
    const fetchImpl = fakeFetch(200, WIDGET_RESPONSE_SAMPLE);
    await createTransakAdapter(
      { ...CONFIG, environment: 'production' },
      { fetch: fetchImpl, accessToken: async () => 't', webhookAccessTokens: async () => [] },
    ).buildCheckout(ORDER);
    expect(fetchImpl.mock.calls[0]![0]).toBe('https://api-gateway.transak.com/api/v2/auth/session');
  });

  it('writes amounts as exact JSON numbers, never through a float', async () => {
    const fetchImpl = fakeFetch(200, WIDGET_RESPONSE_SAMPLE);
    await adapterWith(fetchImpl).buildCheckout({ ...ORDER, amount: { kind: 'crypto', value: '9007199254740993.000001' } });
    const body = fetchImpl.mock.calls[0]![1].body as string;
    expect(body).toContain('"cryptoAmount":9007199254740993.000001,');
    expect(body).not.toContain('fiatAmount');
  });

  it('leaves out what the order does not have', () => {
    const params = transakWidgetParams({ ...ORDER, email: undefined, paymentMethod: undefined }, CONFIG);
    expect(params).not.toHaveProperty('email');
    expect(params).not.toHaveProperty('defaultPaymentMethod');
  });

  it('maps payment methods to Transak ids, bank transfer by currency', () => {
    expect(transakPaymentMethod('card', 'USD')).toEqual({ supported: true, id: 'credit_debit_card' });
    expect(transakPaymentMethod('bank_transfer', 'EUR')).toEqual({ supported: true, id: 'sepa_bank_transfer' });
    expect(transakPaymentMethod('bank_transfer', 'GBP')).toEqual({ supported: true, id: 'gbp_bank_transfer' });
    expect(transakPaymentMethod('bank_transfer', 'USD')).toEqual({ supported: false });
    expect(transakPaymentMethod('apple_pay', 'USD')).toEqual({ supported: true });
    expect(transakPaymentMethod('google_pay', 'USD')).toEqual({ supported: true });
  });

  it('types every failure and never calls Transak for an order it cannot take', async () => {
    const cases: [number, string, OnrampProviderError['code']][] = [
      [400, '{"error":{"statusCode":400,"message":"Invalid widgetParams"}}', 'provider_rejected'],
      [401, '{"error":{"statusCode":401,"message":"Invalid access token"}}', 'provider_unauthorized'],
      [403, '{"error":{"statusCode":403,"message":"IP not whitelisted"}}', 'provider_unauthorized'],
      [429, '{}', 'provider_unavailable'],
      [502, '<html>bad gateway</html>', 'provider_unavailable'],
      [200, 'not json', 'provider_bad_response'],
      [200, '{"data":{}}', 'provider_bad_response'],
      [200, '{"data":{"widgetUrl":"https://evil.example.com/?sessionId=x"}}', 'provider_bad_response'],
      [200, '{"data":{"widgetUrl":"http://global.transak.com/?sessionId=x"}}', 'provider_bad_response'],
    ];
    for (const [status, body, code] of cases) {
      const error = await expectProviderError(adapterWith(fakeFetch(status, body)).buildCheckout(ORDER), code);
      if (status !== 200) expect(error.status).toBe(status);
      // The buyer sees a generic message; Transak's own text stays in `detail` for the logs.
      expect(error.toAppError().code).toBe('service_unavailable');
      expect(error.toAppError().message).not.toContain('whitelisted');
    }
    const unreachable = vi.fn<FetchLike>(async () => {
      throw new TypeError('fetch failed');
    });
    await expectProviderError(adapterWith(unreachable).buildCheckout(ORDER), 'provider_unavailable');

    const untouched = fakeFetch(200, WIDGET_RESPONSE_SAMPLE);
    await expectProviderError(adapterWith(untouched).buildCheckout({ ...ORDER, chain: 'DFK', tokenSymbol: 'JEWEL' }), 'unsupported_asset');
    await expectProviderError(adapterWith(untouched).buildCheckout({ ...ORDER, walletAddress: 'nope' }), 'invalid_order');
    await expectProviderError(
      adapterWith(untouched).buildCheckout({ ...ORDER, fiatCurrency: 'USD', paymentMethod: 'bank_transfer' }),
      'unsupported_payment_method',
    );
    expect(untouched).not.toHaveBeenCalled();
  });
});

// ── Webhooks ─────────────────────────────────────────────────────────────────────────────────────

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
/** An HS256 JWT built by hand with node:crypto (RFC 7515 compact serialization). */
function jwt(payloadJson: string, secret: string, headerJson = '{"alg":"HS256","typ":"JWT"}'): string {
  const signingInput = `${base64url(headerJson)}.${base64url(payloadJson)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}

// Shaped like the docs' sample decrypted payload (https://docs.transak.com/guides/how-to-decrypt-webhook-payload).
function orderPayload(overrides: { status?: string; eventID?: string; extra?: string; isBuyOrSell?: string } = {}): string {
  return (
    `{"webhookData":{"id":"181b6159-2192-4f68-8647-f48e6e8f58c7","walletAddress":"0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae",` +
    `"createdAt":"2024-08-23T10:33:09.426Z","status":"${overrides.status ?? 'COMPLETED'}","fiatCurrency":"EUR","cryptoCurrency":"USDC",` +
    `"isBuyOrSell":"${overrides.isBuyOrSell ?? 'BUY'}","fiatAmount":100.5,"network":"polygon","cryptoAmount":95.123456789012345678,` +
    `"partnerOrderId":"ord_123","transactionHash":"0xabc123"},"eventID":"${overrides.eventID ?? 'ORDER_COMPLETED'}",` +
    `"createdAt":"2024-08-23T10:40:00.000Z"${overrides.extra ?? ''}}`
  );
}

function webhookBody(token: string): string {
  return JSON.stringify({ data: token });
}

async function verify(rawBody: string, tokens: readonly string[] = [ACCESS_TOKEN], now = NOW): Promise<VerifyWebhookResult> {
  return verifyTransakWebhook({ headers: {}, rawBody, now }, { accessTokens: tokens, clockToleranceSeconds: 30 });
}

describe('Transak webhooks (JWT signed with the partner access token)', () => {
  it('accepts a valid HS256 token and normalises the order, amounts exact', async () => {
    const result = await verify(webhookBody(jwt(orderPayload(), ACCESS_TOKEN)));
    expect(result).toEqual({
      ok: true,
      update: {
        providerId: 'transak',
        providerOrderId: '181b6159-2192-4f68-8647-f48e6e8f58c7',
        externalOrderId: 'ord_123',
        status: 'completed',
        providerStatus: 'COMPLETED',
        cryptoAmount: '95.123456789012345678',
        walletAddress: '0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae',
        chain: 'POLYGON',
        tokenSymbol: 'USDC',
        txHash: '0xabc123',
      },
    });
  });

  it('accepts a token signed with the previous access token during a refresh (adapter reads the token store)', async () => {
    const adapter = adapterWith(fakeFetch(200, '{}'));
    const result = await adapter.verifyWebhook({ headers: {}, rawBody: webhookBody(jwt(orderPayload(), PREVIOUS_TOKEN)), now: NOW });
    expect(result.ok).toBe(true);
  });

  it('rejects a tampered payload', async () => {
    const token = jwt(orderPayload({ status: 'FAILED' }), ACCESS_TOKEN);
    const [header, , signature] = token.split('.');
    const forged = `${header}.${base64url(orderPayload({ status: 'COMPLETED' }))}.${signature}`;
    expect(await verify(webhookBody(forged))).toMatchObject({ ok: false, code: 'invalid_signature', authentic: false });
    const flipped = `${token.slice(0, -2)}${token.endsWith('AA') ? 'AB' : 'AA'}`;
    expect(await verify(webhookBody(flipped))).toMatchObject({ ok: false, code: 'invalid_signature' });
  });

  it('rejects a token signed with another secret, or when no token is configured', async () => {
    expect(await verify(webhookBody(jwt(orderPayload(), 'someone-else')))).toMatchObject({ ok: false, code: 'invalid_signature' });
    expect(await verify(webhookBody(jwt(orderPayload(), ACCESS_TOKEN)), [])).toMatchObject({ ok: false, code: 'invalid_signature' });
    expect(await verify(webhookBody(jwt(orderPayload(), '')), [''])).toMatchObject({ ok: false, code: 'invalid_signature' });
  });

  it('refuses alg none and RS256 (no algorithm substitution)', async () => {
    const payload = base64url(orderPayload());
    const noneUnsigned = `${base64url('{"alg":"none","typ":"JWT"}')}.${payload}.`;
    expect(await verify(webhookBody(noneUnsigned))).toMatchObject({ ok: false, authentic: false });
    const noneWithSignature = jwt(orderPayload(), ACCESS_TOKEN, '{"alg":"none","typ":"JWT"}');
    expect(await verify(webhookBody(noneWithSignature))).toMatchObject({ ok: false, code: 'unsupported_algorithm' });
    // An RS256 header with an HMAC made from the shared secret: the classic key-confusion forgery.
    const rs256 = jwt(orderPayload(), ACCESS_TOKEN, '{"alg":"RS256","typ":"JWT"}');
    expect(await verify(webhookBody(rs256))).toMatchObject({ ok: false, code: 'unsupported_algorithm' });
    for (const alg of ['HS512', 'hs256', 'ES256']) {
      expect(await verify(webhookBody(jwt(orderPayload(), ACCESS_TOKEN, `{"alg":"${alg}"}`)))).toMatchObject({
        code: 'unsupported_algorithm',
      });
    }
    expect(await verify(webhookBody(jwt(orderPayload(), ACCESS_TOKEN, '{"alg":"HS256","crit":["b64"],"b64":false}')))).toMatchObject({
      code: 'unsupported_algorithm',
    });
  });

  it('rejects expired and not-yet-valid tokens, allowing the clock tolerance', async () => {
    const expired = jwt(orderPayload({ extra: `,"exp":${NOW_S - 31}` }), ACCESS_TOKEN);
    expect(await verify(webhookBody(expired))).toMatchObject({ ok: false, code: 'stale', authentic: false });
    const justExpired = jwt(orderPayload({ extra: `,"exp":${NOW_S - 10}` }), ACCESS_TOKEN);
    expect((await verify(webhookBody(justExpired))).ok).toBe(true);
    const valid = jwt(orderPayload({ extra: `,"iat":${NOW_S - 5},"exp":${NOW_S + 3600}` }), ACCESS_TOKEN);
    expect((await verify(webhookBody(valid))).ok).toBe(true);
    const early = jwt(orderPayload({ extra: `,"nbf":${NOW_S + 60}` }), ACCESS_TOKEN);
    expect(await verify(webhookBody(early))).toMatchObject({ ok: false, code: 'stale' });
    const badExp = jwt(orderPayload({ extra: ',"exp":"tomorrow"' }), ACCESS_TOKEN);
    expect(await verify(webhookBody(badExp))).toMatchObject({ ok: false, code: 'malformed_signature' });
  });

  it('rejects bodies without a well-formed token', async () => {
    expect(await verify('not json')).toMatchObject({ ok: false, code: 'malformed_signature' });
    expect(await verify('{}')).toMatchObject({ ok: false, code: 'missing_signature' });
    expect(await verify('{"data":42}')).toMatchObject({ ok: false, code: 'malformed_signature' });
    expect(await verify('{"data":"a.b"}')).toMatchObject({ ok: false, code: 'malformed_signature' });
    expect(await verify('{"data":"a.b.c.d"}')).toMatchObject({ ok: false, code: 'malformed_signature' });
    expect(await verify('{"data":"a=.b.c"}')).toMatchObject({ ok: false, code: 'malformed_signature' });
    const notObject = jwt('[1,2]', ACCESS_TOKEN);
    expect(await verify(webhookBody(notObject))).toMatchObject({ ok: false, code: 'malformed_signature' });
  });

  it('answers authentic events it cannot apply as such', async () => {
    const kyc = jwt('{"webhookData":{"id":"u1","kycStatus":"APPROVED"},"eventID":"KYC_APPROVED"}', ACCESS_TOKEN);
    expect(await verify(webhookBody(kyc))).toMatchObject({ ok: false, code: 'ignored_event', authentic: true });
    const sell = jwt(orderPayload({ isBuyOrSell: 'SELL' }), ACCESS_TOKEN);
    expect(await verify(webhookBody(sell))).toMatchObject({ ok: false, code: 'ignored_event', authentic: true });
    const unknown = jwt(orderPayload({ status: 'TELEPORTED' }), ACCESS_TOKEN);
    expect(await verify(webhookBody(unknown))).toMatchObject({ ok: false, code: 'unknown_status', authentic: true });
    const shapeless = jwt('{"eventID":"ORDER_COMPLETED","webhookData":{}}', ACCESS_TOKEN);
    expect(await verify(webhookBody(shapeless))).toMatchObject({ ok: false, code: 'malformed_payload', authentic: true });
  });

  it('maps every documented on-ramp status (https://docs.transak.com/guides/track-order-status)', async () => {
    const documented = [
      'AWAITING_PAYMENT_FROM_USER',
      'PAYMENT_DONE_MARKED_BY_USER',
      'PROCESSING',
      'PENDING_DELIVERY_FROM_TRANSAK',
      'ON_HOLD_PENDING_DELIVERY_FROM_TRANSAK',
      'COMPLETED',
      'CANCELLED',
      'FAILED',
      'REFUNDED',
      'EXPIRED',
    ];
    expect(Object.keys(TRANSAK_STATUS_MAP).sort()).toEqual([...documented].sort());
    expect(TRANSAK_STATUS_MAP).toEqual({
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
    });
    // Event code per status as documented (https://docs.transak.com/docs/webhooks-order).
    const eventFor: Record<string, string> = {
      AWAITING_PAYMENT_FROM_USER: 'ORDER_CREATED',
      PAYMENT_DONE_MARKED_BY_USER: 'ORDER_PAYMENT_VERIFYING',
      PROCESSING: 'ORDER_PROCESSING',
      PENDING_DELIVERY_FROM_TRANSAK: 'ORDER_PROCESSING',
      ON_HOLD_PENDING_DELIVERY_FROM_TRANSAK: 'ORDER_PROCESSING',
      COMPLETED: 'ORDER_COMPLETED',
      CANCELLED: 'ORDER_FAILED',
      FAILED: 'ORDER_FAILED',
      REFUNDED: 'ORDER_REFUNDED',
      EXPIRED: 'ORDER_FAILED',
    };
    for (const status of documented) {
      const result = await verify(webhookBody(jwt(orderPayload({ status, eventID: eventFor[status] }), ACCESS_TOKEN)));
      expect(result.ok && result.update.status).toBe(TRANSAK_STATUS_MAP[status as keyof typeof TRANSAK_STATUS_MAP]);
      if (result.ok && (result.update.status === 'failed' || result.update.status === 'expired')) {
        expect(result.update.failureReason).toBeTruthy();
      }
    }
  });
});
