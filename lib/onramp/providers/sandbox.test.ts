import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { isOnrampProviderError, type OnrampProviderError } from './errors';
import { createSandboxAdapter, parseSandboxSignatureHeader, signSandboxWebhook, verifySandboxWebhook } from './sandbox';
import type { FetchLike, OnrampOrderInput, VerifyWebhookResult } from './types';

const SECRET = 'sandbox-secret-for-unit-tests-0123456789abcdef';
const BASE = 'http://localhost:3999';
const NOW = new Date('2026-11-22T12:00:00Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);
const WALLET = '0xde0B295669a9FD93d5F28D9Ec85E40f4cb697BAe';
const ORDER: OnrampOrderInput = {
  orderId: 'ord_123',
  walletAddress: WALLET,
  chain: 'POLYGON',
  tokenSymbol: 'USDC',
  fiatCurrency: 'usd',
  amount: { kind: 'crypto', value: '25.50' },
  country: 'de',
  paymentMethod: 'bank_transfer',
  redirectUrl: 'https://pay.example.com/onramp/ord_123/return',
  email: 'buyer@example.com',
};
const QUOTE_BODY = {
  data: {
    cryptoAmount: '25.5',
    fiatCurrency: 'USD',
    rate: '1.00',
    providerFee: '0.99',
    networkFee: '0.01',
    total: '26.50',
    expiresAt: '2026-11-22T12:01:00.000Z',
  },
};
const SESSION_BODY = {
  data: { sessionId: 'sps_abc', url: `${BASE}/sandbox-provider/pay/sps_abc`, expiresAt: '2026-11-22T12:30:00.000Z' },
};

function event(data: Record<string, unknown>, type = 'order.updated'): string {
  return JSON.stringify({ id: 'evt_1', type, createdAt: NOW.toISOString(), data });
}

const ORDER_DATA = {
  orderId: 'sps_abc',
  partnerOrderId: 'ord_123',
  status: 'COMPLETED',
  chain: 'POLYGON',
  tokenSymbol: 'USDC',
  cryptoAmount: '25.5',
  walletAddress: WALLET,
  txHash: '0xfeed',
  updatedAt: NOW.toISOString(),
};

function verify(body: string, header: string | undefined, now = NOW): VerifyWebhookResult {
  return verifySandboxWebhook(
    { headers: header === undefined ? {} : { 'sandbox-signature': header }, rawBody: body, now },
    { secret: SECRET, toleranceSeconds: 300 },
  );
}

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

async function providerError(promise: Promise<unknown>): Promise<OnrampProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isOnrampProviderError(error)).toBe(true);
  return error as OnrampProviderError;
}

describe('signSandboxWebhook', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>', () => {
    const body = event(ORDER_DATA);
    const expected = createHmac('sha256', SECRET).update(`${NOW_S}.${body}`).digest('hex');
    expect(signSandboxWebhook(SECRET, body, NOW_S)).toBe(`t=${NOW_S},v1=${expected}`);
  });

  it('parses several v1 signatures and refuses other shapes', () => {
    const a = 'a'.repeat(64);
    const b = 'B'.repeat(64);
    expect(parseSandboxSignatureHeader(`t=5,v1=${a},v1=${b}`)).toEqual({ timestamp: 5, signatures: [a, b.toLowerCase()] });
    for (const header of ['', 'v1=' + a, 't=5', `t=x,v1=${a}`, `t=5,v1=abc`, `t=5;v1=${a}`, `t=5,t=6,v1=${a}`]) {
      expect(parseSandboxSignatureHeader(header)).toBeUndefined();
    }
  });
});

describe('verifySandboxWebhook', () => {
  const body = event(ORDER_DATA);

  it('accepts a valid signature and maps the order', () => {
    const result = verify(body, signSandboxWebhook(SECRET, body, NOW_S - 10));
    expect(result).toEqual({
      ok: true,
      update: {
        providerId: 'sandbox',
        providerOrderId: 'sps_abc',
        externalOrderId: 'ord_123',
        status: 'completed',
        providerStatus: 'COMPLETED',
        cryptoAmount: '25.5',
        walletAddress: WALLET,
        chain: 'POLYGON',
        tokenSymbol: 'USDC',
        txHash: '0xfeed',
      },
    });
  });

  it('refuses a tampered body, a wrong secret, a stale or future timestamp, a missing or malformed header', () => {
    const signature = signSandboxWebhook(SECRET, body, NOW_S);
    const cases: [VerifyWebhookResult, string][] = [
      [verify(body.replace('25.5', '2550'), signature), 'invalid_signature'],
      [verify(body, signSandboxWebhook(`${SECRET}-other`, body, NOW_S)), 'invalid_signature'],
      [verify(body, signSandboxWebhook(SECRET, body, NOW_S - 301)), 'stale'],
      [verify(body, signSandboxWebhook(SECRET, body, NOW_S + 301)), 'stale'],
      [verify(body, undefined), 'missing_signature'],
      [verify(body, 'sha256=abcdef'), 'malformed_signature'],
    ];
    for (const [result, code] of cases) expect(result).toMatchObject({ ok: false, code, authentic: false });
  });

  it('accepts a signature just inside the 5-minute tolerance', () => {
    expect(verify(body, signSandboxWebhook(SECRET, body, NOW_S - 299)).ok).toBe(true);
  });

  it('an authentic body that is not the documented shape is malformed_payload (acknowledged, nothing applied)', () => {
    for (const raw of ['not json', JSON.stringify({ type: 'order.updated' }), event({ ...ORDER_DATA, orderId: undefined })]) {
      expect(verify(raw, signSandboxWebhook(SECRET, raw, NOW_S))).toMatchObject({ ok: false, code: 'malformed_payload', authentic: true });
    }
  });

  it('an unknown event type is ignored, an unknown status is reported', () => {
    const other = event(ORDER_DATA, 'refund.created');
    expect(verify(other, signSandboxWebhook(SECRET, other, NOW_S))).toMatchObject({ ok: false, code: 'ignored_event', authentic: true });
    const odd = event({ ...ORDER_DATA, status: 'ON_HOLD' });
    expect(verify(odd, signSandboxWebhook(SECRET, odd, NOW_S))).toMatchObject({ ok: false, code: 'unknown_status', authentic: true });
  });

  it('maps PROCESSING → pending, COMPLETED → completed, FAILED → failed with the reason', () => {
    const statusOf = (data: Record<string, unknown>) => {
      const raw = event({ ...ORDER_DATA, txHash: undefined, ...data });
      const result = verify(raw, signSandboxWebhook(SECRET, raw, NOW_S));
      if (!result.ok) throw new Error(result.message);
      return result.update;
    };
    expect(statusOf({ status: 'PROCESSING' })).toMatchObject({ status: 'pending', providerStatus: 'PROCESSING' });
    expect(statusOf({ status: 'PROCESSING' }).failureReason).toBeUndefined();
    expect(statusOf({ status: 'COMPLETED', txHash: '0xabc' })).toMatchObject({ status: 'completed', txHash: '0xabc' });
    expect(statusOf({ status: 'FAILED', failureReason: 'card_declined' })).toMatchObject({
      status: 'failed',
      failureReason: 'card_declined',
    });
  });
});

describe('createSandboxAdapter', () => {
  function adapterWith(responses: Response[]) {
    const fetchImpl = vi.fn<FetchLike>(async () => responses.shift() ?? jsonResponse(500, {}));
    return { adapter: createSandboxAdapter({ baseUrl: `${BASE}/`, secret: SECRET, fetch: fetchImpl }), fetchImpl };
  }

  it('buildCheckout prices the order, then opens a session with the Bearer key, and redirects to its screen', async () => {
    const { adapter, fetchImpl } = adapterWith([jsonResponse(200, QUOTE_BODY), jsonResponse(201, SESSION_BODY)]);
    const checkout = await adapter.buildCheckout(ORDER);
    expect(checkout).toEqual({ kind: 'redirect', url: SESSION_BODY.data.url, expiresAt: new Date(SESSION_BODY.data.expiresAt) });

    const [quoteUrl, quoteInit] = fetchImpl.mock.calls[0]!;
    expect(quoteInit.method).toBe('GET');
    expect(quoteUrl).toBe(
      `${BASE}/sandbox-provider/api/quote?chain=POLYGON&tokenSymbol=USDC&cryptoAmount=25.5&fiatCurrency=USD&paymentMethod=bank_transfer`,
    );

    const [sessionUrl, sessionInit] = fetchImpl.mock.calls[1]!;
    expect(sessionUrl).toBe(`${BASE}/sandbox-provider/api/sessions`);
    expect(sessionInit.method).toBe('POST');
    expect((sessionInit.headers as Record<string, string>).authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.parse(sessionInit.body as string)).toEqual({
      partnerOrderId: 'ord_123',
      walletAddress: WALLET,
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
      cryptoAmount: '25.5',
      fiatCurrency: 'USD',
      fiatAmount: '26.50',
      paymentMethod: 'bank_transfer',
      country: 'DE',
      redirectUrl: ORDER.redirectUrl,
      email: 'buyer@example.com',
    });
  });

  it('a fiat order asks for the tokens the amount buys; without a method the card tab opens', async () => {
    const { adapter, fetchImpl } = adapterWith([jsonResponse(200, QUOTE_BODY), jsonResponse(201, SESSION_BODY)]);
    await adapter.buildCheckout({ ...ORDER, amount: { kind: 'fiat', value: '26.50' }, paymentMethod: undefined });
    expect(fetchImpl.mock.calls[0]![0]).toContain('&fiatAmount=26.5&fiatCurrency=USD&paymentMethod=card');
    expect(JSON.parse(fetchImpl.mock.calls[1]![1].body as string)).toMatchObject({
      paymentMethod: 'card',
      cryptoAmount: '25.5',
      fiatAmount: '26.50',
    });
  });

  it('refuses invalid and unsupported orders before any network call', async () => {
    const { adapter, fetchImpl } = adapterWith([]);
    expect((await providerError(adapter.buildCheckout({ ...ORDER, walletAddress: 'nope' }))).code).toBe('invalid_order');
    expect(
      (
        await providerError(
          adapter.buildCheckout({
            ...ORDER,
            chain: 'SOLANA',
            walletAddress: 'So11111111111111111111111111111111111111112',
            tokenSymbol: 'SOL',
          }),
        )
      ).code,
    ).toBe('unsupported_asset');
    expect((await providerError(adapter.buildCheckout({ ...ORDER, fiatCurrency: 'JPY' }))).code).toBe('unsupported_payment_method');
    expect((await providerError(adapter.buildCheckout({ ...ORDER, amount: { kind: 'fiat', value: '10.001' } }))).param).toBe(
      'amount.value',
    );
    expect(fetchImpl).not.toHaveBeenCalled();
  });

  it('maps the provider’s answers to typed errors, and never redirects off the provider’s own screen', async () => {
    const cases: [Response[], OnrampProviderError['code']][] = [
      [[jsonResponse(200, QUOTE_BODY), jsonResponse(401, { error: { code: 'unauthorized' } })], 'provider_unauthorized'],
      [[jsonResponse(400, { error: { code: 'invalid_request' } })], 'provider_rejected'],
      [[jsonResponse(503, {})], 'provider_unavailable'],
      [[jsonResponse(200, { data: {} })], 'provider_bad_response'],
      [
        [jsonResponse(200, QUOTE_BODY), jsonResponse(201, { data: { ...SESSION_BODY.data, url: 'https://evil.example/pay' } })],
        'provider_bad_response',
      ],
    ];
    for (const [responses, code] of cases) {
      const { adapter } = adapterWith(responses);
      expect((await providerError(adapter.buildCheckout(ORDER))).code).toBe(code);
    }
    const unreachable = createSandboxAdapter({
      baseUrl: BASE,
      secret: SECRET,
      fetch: async () => Promise.reject(new TypeError('fetch failed')),
    });
    expect((await providerError(unreachable.buildCheckout(ORDER))).code).toBe('provider_unavailable');
  });

  it('quote() returns the provider’s exact strings and expiry', async () => {
    const { adapter, fetchImpl } = adapterWith([jsonResponse(200, QUOTE_BODY)]);
    const quote = await adapter.quote!({
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
      cryptoAmount: '25.50',
      fiatCurrency: 'USD',
      paymentMethod: 'card',
    });
    expect(quote).toEqual({ ...QUOTE_BODY.data, expiresAt: new Date(QUOTE_BODY.data.expiresAt) });
    expect(fetchImpl.mock.calls[0]![0]).toContain('cryptoAmount=25.5&');
  });

  it('supports EVM tokens of the registry and the four methods in its currencies', () => {
    const { adapter } = adapterWith([]);
    expect(adapter.id).toBe('sandbox');
    expect(adapter.displayName).toBe('Sandpiper Pay');
    expect(adapter.supportsAsset('BSC', 'USDT')).toBe(true);
    expect(adapter.supportsAsset('POLYGON', 'MATIC')).toBe(true);
    expect(adapter.supportsAsset('SOLANA', 'USDC')).toBe(false);
    expect(adapter.supportsAsset('POLYGON', 'DOGE')).toBe(false);
    for (const method of ['card', 'bank_transfer', 'apple_pay', 'google_pay'] as const)
      expect(adapter.supportsPaymentMethod(method, 'eur')).toBe(true);
    expect(adapter.supportsPaymentMethod('card', 'JPY')).toBe(false);
  });
});
