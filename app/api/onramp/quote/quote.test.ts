// GET /api/onramp/quote against the real registry (loaded into PostgreSQL at migration) and quote verb.
import { describe, expect, it } from 'vitest';
import { callRoute } from '@/test/fixtures';
import { GET } from './route';

const QUOTE = { provider: 'moonpay', chain: 'POLYGON', token: 'USDC', method: 'card', amount_kind: 'crypto', amount: '25' };

function quote(query: Record<string, string>, headers: Record<string, string> = { cookie: 'cp_country=US' }) {
  return callRoute(GET as never, { path: `/api/onramp/quote?${new URLSearchParams(query)}`, headers });
}

describe('GET /api/onramp/quote — happy', () => {
  it('prices a token amount: subtotal, provider fee (its minimum fee), network fee, total, minimum, expiry', async () => {
    const res = await quote(QUOTE);
    expect(res.status).toBe(200);
    expect(res.json.error).toBeNull();
    // MoonPay card: 4.5 % of $25 = $1.13 is below its $3.99 minimum fee; Polygon network fee $0.01.
    expect(res.json.data).toMatchObject({
      providerId: 'moonpay',
      tokenSymbol: 'USDC',
      cryptoAmount: '25',
      fiatCurrency: 'USD',
      rate: '1',
      subtotal: '25.00',
      providerFee: '3.99',
      networkFee: '0.01',
      total: '29.00',
      minimum: { fiat: '20.00', crypto: '20' },
      belowMinimum: false,
    });
    expect(new Date(res.json.data.expiresAt).getTime()).toBeGreaterThan(Date.now());
  });

  it('a USD amount is what the tokens are worth', async () => {
    const res = await quote({ ...QUOTE, amount_kind: 'usd', amount: '40.50' });
    expect(res.json.data).toMatchObject({ cryptoAmount: '40.5', subtotal: '40.50' });
  });

  it('below the minimum: flagged, with the minimum in USD and in tokens (rule 5)', async () => {
    const res = await quote({ ...QUOTE, provider: 'transak', amount: '5' });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ belowMinimum: true, minimum: { fiat: '30.00', crypto: '30' } });
  });
});

describe('GET /api/onramp/quote — errors', () => {
  it.each([
    [{ ...QUOTE, provider: 'transak', token: 'POL' }, 422, 'provider_unavailable', 'Transak does not sell POL on Polygon'],
    [{ ...QUOTE, chain: 'DFK', token: 'JEWEL' }, 422, 'provider_unavailable', 'MoonPay does not support DFK Chain'],
    [{ ...QUOTE, amount: '1.1234567' }, 422, 'invalid_amount', 'at most 6 decimals'],
    [{ ...QUOTE, amount_kind: 'usd', amount: '1.234' }, 422, 'invalid_amount', 'USD amount'],
  ])('%o → %i %s', async (query, status, code, message) => {
    const res = await quote(query);
    expect(res.status).toBe(status);
    expect(res.json.data).toBeNull();
    expect(res.json.error).toMatchObject({ code });
    expect(res.json.error!.message).toContain(message);
  });

  it.each([
    [{ ...QUOTE, provider: 'coinbase' }, 'provider'],
    [{ ...QUOTE, chain: 'ETHEREUM' }, 'chain'],
    [{ ...QUOTE, method: 'cash' }, 'method'],
    [{ ...QUOTE, amount_kind: 'eur' }, 'amount_kind'],
    [Object.fromEntries(Object.entries(QUOTE).filter(([key]) => key !== 'amount')), 'amount'],
  ])('malformed query %o → 400 invalid_request naming the parameter', async (query, param) => {
    const res = await quote(query);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_request', param });
  });
});

describe('GET /api/onramp/quote — the buyer’s country', () => {
  it('the chosen country (cookie) decides, before the edge geolocation', async () => {
    const res = await quote(QUOTE, { cookie: 'other=1; cp_country=RU', 'cf-ipcountry': 'US' });
    expect(res.status).toBe(422);
    expect(res.json.error!.message).toContain('MoonPay does not serve Russia');
  });

  it('without a cookie, the edge geolocation decides', async () => {
    const res = await quote(QUOTE, { 'cf-ipcountry': 'RU' });
    expect(res.json.error!.message).toContain('MoonPay does not serve Russia');
    expect((await quote(QUOTE, { 'cf-ipcountry': 'DE' })).status).toBe(200);
  });
});

describe('GET /api/onramp/quote — input PostgreSQL cannot hold', () => {
  it('a NUL character in a query value is 400 invalid_request naming it, not a failed lookup', async () => {
    const res = await quote({ ...QUOTE, provider: 'moon\u0000pay' });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_request', param: 'provider' });
  });
});
