import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isOnrampProviderError, type OnrampProviderError } from './errors';
import {
  buildMoonPayWidgetUrl,
  createMoonPayAdapter,
  MOONPAY_STATUS_MAP,
  moonPayPaymentMethod,
  moonPayUrlSignature,
  parseMoonPaySignatureHeader,
  signMoonPayUrl,
  verifyMoonPayWebhook,
  type MoonPayConfig,
} from './moonpay';
import type { OnrampOrderInput, VerifyWebhookResult } from './types';

const CONFIG: MoonPayConfig = {
  environment: 'sandbox',
  publishableKey: 'pk_test_key',
  secretKey: 'sk_test_key',
  webhookKey: 'wk_test_webhook_key',
};
const WALLET = '0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae';
const ORDER: OnrampOrderInput = {
  orderId: 'ord_123',
  walletAddress: WALLET,
  chain: 'POLYGON',
  tokenSymbol: 'USDC',
  fiatCurrency: 'USD',
  amount: { kind: 'fiat', value: '25.50' },
  country: 'US',
  paymentMethod: 'card',
  redirectUrl: 'https://pay.example.com/onramp/ord_123/return',
  email: 'buyer@example.com',
};

/** The docs' own algorithm, transcribed independently of the module under test. */
function docsSignature(originalUrl: string, secretKey: string): string {
  return createHmac('sha256', secretKey).update(new URL(originalUrl).search).digest('base64');
}

function expectProviderError(fn: () => unknown, code: OnrampProviderError['code']): OnrampProviderError {
  try {
    fn();
  } catch (error) {
    expect(isOnrampProviderError(error)).toBe(true);
    expect((error as OnrampProviderError).code).toBe(code);
    return error as OnrampProviderError;
  }
  throw new Error(`expected OnrampProviderError ${code}`);
}

describe('MoonPay URL signing (https://dev.moonpay.com/widget/on-ramp/customization/url-signing)', () => {
  // The docs' worked example: URL and key as printed there. The docs print the code, not the
  // resulting value; the JS and PHP snippets must agree, and the value is pinned against regressions.
  const DOCS_URL =
    'https://buy-sandbox.moonpay.com?apiKey=pk_test_key&currencyCode=eth&walletAddress=0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae';
  const DOCS_QUERY = '?apiKey=pk_test_key&currencyCode=eth&walletAddress=0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae';

  it('reproduces the docs example: JS snippet (new URL().search) and PHP snippet (literal query) agree', () => {
    const viaJs = docsSignature(DOCS_URL, 'sk_test_key');
    const viaPhp = createHmac('sha256', 'sk_test_key').update(DOCS_QUERY).digest('base64');
    expect(viaPhp).toBe(viaJs);
    expect(moonPayUrlSignature(DOCS_URL, 'sk_test_key')).toBe(viaJs);
    expect(viaJs).toBe('o1eO2arzL16TstEolGakHHFa33Mb61RCTfqToRWg7PA=');
  });

  it('appends the URL-encoded signature last, as the docs build urlWithSignature', () => {
    const signed = signMoonPayUrl(DOCS_URL, 'sk_test_key');
    expect(signed).toBe(`${DOCS_URL}&signature=${encodeURIComponent(docsSignature(DOCS_URL, 'sk_test_key'))}`);
    expect(signed).toBe(`${DOCS_URL}&signature=o1eO2arzL16TstEolGakHHFa33Mb61RCTfqToRWg7PA%3D`);
  });
});

describe('buildMoonPayWidgetUrl', () => {
  const UNSIGNED =
    'https://buy-sandbox.moonpay.com/?apiKey=pk_test_key&currencyCode=usdc_polygon&walletAddress=0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae' +
    '&baseCurrencyCode=usd&baseCurrencyAmount=25.5&paymentMethod=credit_debit_card&email=buyer%40example.com' +
    '&externalTransactionId=ord_123&redirectURL=https%3A%2F%2Fpay.example.com%2Fonramp%2Ford_123%2Freturn';

  it('builds the exact signed URL for fixed inputs', () => {
    const expectedSignature = docsSignature(UNSIGNED, 'sk_test_key');
    expect(buildMoonPayWidgetUrl(ORDER, CONFIG)).toBe(`${UNSIGNED}&signature=${encodeURIComponent(expectedSignature)}`);
    expect(expectedSignature).toBe('7m9j5SD9mJHG6xolae9fd9eQiFBLyxaIERGtExFkqbM=');
  });

  it('uses the production host in production', () => {
    expect(buildMoonPayWidgetUrl(ORDER, { ...CONFIG, environment: 'production' })).toMatch(/^https:\/\/buy\.moonpay\.com\/\?apiKey=/);
  });

  it('changes the signature when any parameter changes', () => {
    const base = new URL(buildMoonPayWidgetUrl(ORDER, CONFIG)).searchParams.get('signature');
    const variants: OnrampOrderInput[] = [
      { ...ORDER, orderId: 'ord_124' },
      { ...ORDER, walletAddress: '0x0000000000000000000000000000000000000001' },
      { ...ORDER, tokenSymbol: 'USDT' },
      { ...ORDER, chain: 'SOLANA', walletAddress: 'So11111111111111111111111111111111111111112' },
      { ...ORDER, fiatCurrency: 'EUR' },
      { ...ORDER, amount: { kind: 'fiat', value: '25.51' } },
      { ...ORDER, amount: { kind: 'crypto', value: '25.5' } },
      { ...ORDER, paymentMethod: 'google_pay' },
      { ...ORDER, paymentMethod: undefined },
      { ...ORDER, email: 'other@example.com' },
      { ...ORDER, email: undefined },
      { ...ORDER, redirectUrl: 'https://pay.example.com/other' },
    ];
    const signatures = variants.map((order) => new URL(buildMoonPayWidgetUrl(order, CONFIG)).searchParams.get('signature'));
    for (const signature of signatures) expect(signature).not.toBe(base);
    expect(new Set(signatures).size).toBe(signatures.length);
    expect(new URL(buildMoonPayWidgetUrl(ORDER, { ...CONFIG, publishableKey: 'pk_test_other' })).searchParams.get('signature')).not.toBe(
      base,
    );
    expect(new URL(buildMoonPayWidgetUrl(ORDER, { ...CONFIG, secretKey: 'sk_test_other' })).searchParams.get('signature')).not.toBe(base);
  });

  it('encodes special characters so the signed query is the query a browser sends', () => {
    const order: OnrampOrderInput = {
      ...ORDER,
      email: "o'brien+crypto@example.com",
      redirectUrl: "https://pay.example.com/return?order=ord_123&note=it's done(1)*!",
    };
    const signed = buildMoonPayWidgetUrl(order, CONFIG);
    expect(signed).toContain('&email=o%27brien%2Bcrypto%40example.com&');
    expect(signed).toContain(
      '&redirectURL=https%3A%2F%2Fpay.example.com%2Freturn%3Forder%3Dord_123%26note%3Dit%27s%20done%281%29%2A%21&signature=',
    );

    const signatureAt = signed.lastIndexOf('&signature=');
    const unsigned = signed.slice(0, signatureAt);
    // A URL parse (what a browser does before sending) leaves the query text unchanged …
    expect(new URL(unsigned).search).toBe(unsigned.slice(unsigned.indexOf('?')));
    // … so the docs' verification over new URL(url).search accepts it, and the values round-trip.
    const parsed = new URL(signed);
    expect(parsed.searchParams.get('signature')).toBe(docsSignature(unsigned, 'sk_test_key'));
    expect(parsed.searchParams.get('email')).toBe(order.email);
    expect(parsed.searchParams.get('redirectURL')).toBe(order.redirectUrl);
    // Why ' ( ) * ! are escaped: encodeURIComponent keeps ' and a URL parse then rewrites it to %27,
    // so a signature over the un-escaped text would not match what MoonPay receives.
    const naive = `https://buy-sandbox.moonpay.com/?email=${encodeURIComponent("o'brien@example.com")}`;
    expect(new URL(naive).search).not.toBe(naive.slice(naive.indexOf('?')));
  });

  it('asks for a crypto amount with quoteCurrencyAmount, exactly', () => {
    const url = new URL(buildMoonPayWidgetUrl({ ...ORDER, amount: { kind: 'crypto', value: '1234567.000001' } }, CONFIG));
    expect(url.searchParams.get('quoteCurrencyAmount')).toBe('1234567.000001');
    expect(url.searchParams.has('baseCurrencyAmount')).toBe(false);
    expect(url.searchParams.get('baseCurrencyCode')).toBe('usd');
  });

  it('keeps the signature parameter last', () => {
    const keys = [...new URL(buildMoonPayWidgetUrl(ORDER, CONFIG)).searchParams.keys()];
    expect(keys.at(-1)).toBe('signature');
  });

  it('refuses assets MoonPay does not (verifiably) sell', () => {
    expectProviderError(() => buildMoonPayWidgetUrl({ ...ORDER, chain: 'DFK', tokenSymbol: 'JEWEL' }, CONFIG), 'unsupported_asset');
    expectProviderError(() => buildMoonPayWidgetUrl({ ...ORDER, chain: 'BSC', tokenSymbol: 'USDT' }, CONFIG), 'unsupported_asset');
  });

  it('refuses invalid orders before building anything', () => {
    const bad: [Partial<OnrampOrderInput>, string][] = [
      [{ walletAddress: 'not-an-address' }, 'walletAddress'],
      [{ walletAddress: 'So11111111111111111111111111111111111111112' }, 'walletAddress'],
      [{ amount: { kind: 'fiat', value: '1e3' } }, 'amount.value'],
      [{ amount: { kind: 'fiat', value: '0' } }, 'amount.value'],
      [{ amount: { kind: 'crypto', value: '0.0000001' } }, 'amount.value'],
      [{ tokenSymbol: 'DOGE' }, 'tokenSymbol'],
      [{ redirectUrl: 'javascript:alert(1)' }, 'redirectUrl'],
      [{ fiatCurrency: 'dollars' }, 'fiatCurrency'],
    ];
    for (const [change, param] of bad) {
      const error = expectProviderError(() => buildMoonPayWidgetUrl({ ...ORDER, ...change }, CONFIG), 'invalid_order');
      expect(error.param).toBe(param);
      expect(error.toAppError().code).toBe('invalid_request');
    }
  });

  it('maps payment methods to MoonPay ids, bank transfer by currency', () => {
    expect(moonPayPaymentMethod('card', 'USD')).toEqual({ supported: true, id: 'credit_debit_card' });
    expect(moonPayPaymentMethod('google_pay', 'USD')).toEqual({ supported: true, id: 'google_pay' });
    expect(moonPayPaymentMethod('apple_pay', 'USD')).toEqual({ supported: true });
    expect(moonPayPaymentMethod('bank_transfer', 'EUR')).toEqual({ supported: true, id: 'sepa_bank_transfer' });
    expect(moonPayPaymentMethod('bank_transfer', 'GBP')).toEqual({ supported: true, id: 'gbp_bank_transfer' });
    expect(moonPayPaymentMethod('bank_transfer', 'USD')).toEqual({ supported: true, id: 'ach_bank_transfer' });
    expect(moonPayPaymentMethod('bank_transfer', 'JPY')).toEqual({ supported: false });
    expectProviderError(
      () => buildMoonPayWidgetUrl({ ...ORDER, fiatCurrency: 'JPY', paymentMethod: 'bank_transfer' }, CONFIG),
      'unsupported_payment_method',
    );
    expect(new URL(buildMoonPayWidgetUrl({ ...ORDER, paymentMethod: 'apple_pay' }, CONFIG)).searchParams.has('paymentMethod')).toBe(false);
  });

  it('is what the adapter returns as the checkout', async () => {
    const adapter = createMoonPayAdapter(CONFIG);
    expect(await adapter.buildCheckout(ORDER)).toEqual({ kind: 'redirect', url: buildMoonPayWidgetUrl(ORDER, CONFIG) });
    expect((await createMoonPayAdapter({ ...CONFIG, presentation: 'embed' }).buildCheckout(ORDER)).kind).toBe('embed');
    expect(adapter.supportsAsset('POLYGON', 'MATIC')).toBe(true);
    expect(adapter.supportsAsset('DFK', 'JEWEL')).toBe(false);
  });
});

describe('MoonPay webhooks (https://dev.moonpay.com/api-reference/widget/webhooks/signature)', () => {
  const NOW = new Date('2026-11-22T12:00:00Z');
  const T = Math.floor(NOW.getTime() / 1000);
  // Trimmed from the docs' transaction_created example, with our order id and a Polygon USDC purchase;
  // numbers written as JSON numbers, as MoonPay sends them.
  const BODY =
    '{"type":"transaction_updated","data":{"id":"bda09e91-559f-4e7a-807a-cdec1a903d9d","createdAt":"2022-08-31T10:00:03.640Z",' +
    '"baseCurrencyAmount":295.45,"quoteCurrencyAmount":0.30000000000000001,"feeAmount":3.99,"status":"completed",' +
    '"walletAddress":"0xc216eD2D6c295579718dbd4a797845CdA70B3C36","cryptoTransactionId":"0x6751c8fce2e0fb5d57bb4801b31b35a7160fa362e0c5703d44cfd508317ee2f8",' +
    '"failureReason":null,"externalTransactionId":"ord_123","paymentMethod":"credit_debit_card","currency":{"type":"crypto","code":"usdc_polygon"}},' +
    '"externalCustomerId":null}';

  function sign(body: string, timestamp = T, key = CONFIG.webhookKey): string {
    return `t=${timestamp},s=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`;
  }
  function verify(headers: Record<string, string> | Headers, body = BODY, now = NOW): VerifyWebhookResult {
    return verifyMoonPayWebhook({ headers, rawBody: body, now }, { webhookKey: CONFIG.webhookKey, toleranceSeconds: 300 });
  }

  it('accepts a correctly signed event and normalises it, amounts exact', () => {
    const result = verify({ 'Moonpay-Signature-V2': sign(BODY) });
    expect(result).toEqual({
      ok: true,
      update: {
        providerId: 'moonpay',
        providerOrderId: 'bda09e91-559f-4e7a-807a-cdec1a903d9d',
        externalOrderId: 'ord_123',
        status: 'completed',
        providerStatus: 'completed',
        cryptoAmount: '0.30000000000000001',
        walletAddress: '0xc216eD2D6c295579718dbd4a797845CdA70B3C36',
        chain: 'POLYGON',
        tokenSymbol: 'USDC',
        txHash: '0x6751c8fce2e0fb5d57bb4801b31b35a7160fa362e0c5703d44cfd508317ee2f8',
      },
    });
  });

  it('finds the header whatever its case, in a Headers object or a plain record', async () => {
    expect(verify({ 'moonpay-signature-v2': sign(BODY) }).ok).toBe(true);
    expect(verify(new Headers({ 'MOONPAY-SIGNATURE-V2': sign(BODY) })).ok).toBe(true);
    const adapter = createMoonPayAdapter(CONFIG);
    expect((await adapter.verifyWebhook({ headers: { 'Moonpay-Signature-V2': sign(BODY) }, rawBody: BODY, now: NOW })).ok).toBe(true);
  });

  it('rejects a tampered body', () => {
    const tampered = BODY.replace('"status":"completed"', '"status":"completed" ').replace('0.30000000000000001', '3000');
    expect(verify({ 'Moonpay-Signature-V2': sign(BODY) }, tampered)).toMatchObject({
      ok: false,
      code: 'invalid_signature',
      authentic: false,
    });
    expect(verify({ 'Moonpay-Signature-V2': sign(BODY) }, `${BODY} `)).toMatchObject({ ok: false, code: 'invalid_signature' });
  });

  it('rejects a signature made with another key', () => {
    expect(verify({ 'Moonpay-Signature-V2': sign(BODY, T, 'another_key') })).toMatchObject({ ok: false, code: 'invalid_signature' });
  });

  it('rejects a signature whose timestamp was changed', () => {
    const header = sign(BODY).replace(`t=${T}`, `t=${T + 1}`);
    expect(verify({ 'Moonpay-Signature-V2': header })).toMatchObject({ ok: false, code: 'invalid_signature' });
  });

  it('rejects old and future timestamps outside the tolerance, accepts inside', () => {
    expect(verify({ 'Moonpay-Signature-V2': sign(BODY, T - 301) })).toMatchObject({ ok: false, code: 'stale', authentic: false });
    expect(verify({ 'Moonpay-Signature-V2': sign(BODY, T + 301) })).toMatchObject({ ok: false, code: 'stale' });
    expect(verify({ 'Moonpay-Signature-V2': sign(BODY, T - 299) }).ok).toBe(true);
  });

  it('rejects missing and malformed headers', () => {
    const hex = 'a'.repeat(64);
    expect(verify({})).toMatchObject({ ok: false, code: 'missing_signature' });
    expect(verify({ 'Moonpay-Signature': sign(BODY) })).toMatchObject({ ok: false, code: 'missing_signature' });
    for (const header of [
      'garbage',
      `t=${T}`,
      `s=${hex}`,
      `t=abc,s=${hex}`,
      `t=${T},s=${hex.slice(1)}`,
      `t=${T},s=${'z'.repeat(64)}`,
      `t=${T};s=${hex}`,
      '',
    ]) {
      expect(verify({ 'Moonpay-Signature-V2': header }).ok).toBe(false);
    }
    expect(verify({ 'Moonpay-Signature-V2': `t=${T},s=${'z'.repeat(64)}` })).toMatchObject({ code: 'malformed_signature' });
    expect(parseMoonPaySignatureHeader(`t=${T},s=${hex.toUpperCase()}`)).toEqual({ timestamp: T, signature: hex });
    expect(parseMoonPaySignatureHeader(` t=${T} , s=${hex} `)).toEqual({ timestamp: T, signature: hex });
  });

  it('answers authentic events it cannot apply as such (2xx, nothing applied)', () => {
    const sell = BODY.replace('"type":"transaction_updated"', '"type":"sell_transaction_updated"');
    expect(verify({ 'Moonpay-Signature-V2': sign(sell) }, sell)).toMatchObject({ ok: false, code: 'ignored_event', authentic: true });
    const unknown = BODY.replace('"status":"completed"', '"status":"teleported"');
    expect(verify({ 'Moonpay-Signature-V2': sign(unknown) }, unknown)).toMatchObject({
      ok: false,
      code: 'unknown_status',
      authentic: true,
    });
    const notJson = 'not json';
    expect(verify({ 'Moonpay-Signature-V2': sign(notJson) }, notJson)).toMatchObject({
      ok: false,
      code: 'malformed_payload',
      authentic: true,
    });
    const noData = '{"type":"transaction_updated"}';
    expect(verify({ 'Moonpay-Signature-V2': sign(noData) }, noData)).toMatchObject({ ok: false, code: 'malformed_payload' });
  });

  it('reports failures with MoonPay’s reason and orders not started through us', () => {
    const failed = BODY.replace('"status":"completed"', '"status":"failed"')
      .replace('"failureReason":null', '"failureReason":"Card declined"')
      .replace('"externalTransactionId":"ord_123"', '"externalTransactionId":null')
      .replace(/"cryptoTransactionId":"[^"]+"/, '"cryptoTransactionId":null')
      .replace('0.30000000000000001', '0');
    const result = verify({ 'Moonpay-Signature-V2': sign(failed) }, failed);
    expect(result).toMatchObject({ ok: true, update: { status: 'failed', failureReason: 'Card declined', externalOrderId: null } });
    if (result.ok) {
      expect(result.update).not.toHaveProperty('cryptoAmount');
      expect(result.update).not.toHaveProperty('txHash');
    }
  });

  it('maps every documented transaction status (https://dev.moonpay.com/reference/getbuytransaction)', () => {
    const documented = ['waitingPayment', 'pending', 'waitingAuthorization', 'failed', 'completed'];
    expect(Object.keys(MOONPAY_STATUS_MAP).sort()).toEqual([...documented].sort());
    expect(MOONPAY_STATUS_MAP).toEqual({
      waitingPayment: 'pending',
      pending: 'pending',
      waitingAuthorization: 'pending',
      completed: 'completed',
      failed: 'failed',
    });
    for (const status of documented) {
      const body = BODY.replace('"status":"completed"', `"status":"${status}"`);
      const result = verify({ 'Moonpay-Signature-V2': sign(body) }, body);
      expect(result.ok && result.update.status).toBe(MOONPAY_STATUS_MAP[status as keyof typeof MOONPAY_STATUS_MAP]);
    }
  });
});
