import { describe, expect, it } from 'vitest';
import { chainsOfMode, createdRange, dashboardChargeQueryString, parseChargeSearch, parseDashboardChargeQuery } from './dashboard-filters';

const ID = 'ch_0123456789ABCDEFabcdef';

describe('parseDashboardChargeQuery', () => {
  it('reads a GET form: empty fields are no filter, unknown parameters are ignored', () => {
    expect(parseDashboardChargeQuery(new URLSearchParams('status=&chain=&token=&from=&to=&q=&utm=x'))).toEqual({ ok: true, filters: {} });
    expect(
      parseDashboardChargeQuery({
        status: 'succeeded',
        chain: 'POLYGON_AMOY',
        token: ' pol ',
        from: '2026-01-01',
        to: '2026-01-31',
        q: ' orderId:7 ',
        after: ID,
      }),
    ).toEqual({
      ok: true,
      filters: { status: 'succeeded', chain: 'POLYGON_AMOY', token: 'pol', from: '2026-01-01', to: '2026-01-31', q: 'orderId:7' },
      after: ID,
    });
  });

  it.each([
    ['status=paid', 'status'],
    ['chain=ETHEREUM', 'chain'],
    ['from=2026-02-30', 'from'],
    ['from=yesterday', 'from'],
    ['from=2026-02-02&to=2026-02-01', 'to'],
    ['after=not-an-id', 'after'],
  ])('refuses %s, naming %s', (query, param) => {
    const parsed = parseDashboardChargeQuery(new URLSearchParams(query));
    expect(parsed).toMatchObject({ ok: false, param });
  });

  it('round-trips through the query string of links', () => {
    const filters = { status: 'failed' as const, token: 'USDC', q: 'orderId:a&b=c', from: '2026-01-01' };
    const text = dashboardChargeQueryString(filters, ID);
    expect(parseDashboardChargeQuery(new URLSearchParams(text.slice(1)))).toEqual({ ok: true, filters, after: ID });
    expect(dashboardChargeQueryString({})).toBe('');
  });

  it('turns inclusive days into [gte, lt) instants in UTC', () => {
    expect(createdRange({ from: '2026-03-01', to: '2026-03-01' })).toEqual({
      gte: new Date('2026-03-01T00:00:00Z'),
      lt: new Date('2026-03-02T00:00:00Z'),
    });
  });
});

describe('parseChargeSearch', () => {
  it.each([
    [ID, { kind: 'id', id: ID }],
    ['orderId:1001', { kind: 'metadata', key: 'orderId', value: '1001' }],
    ['url: https://x.example/a:b', { kind: 'metadata', key: 'url', value: 'https://x.example/a:b' }],
    ['1001', { kind: 'metadataValue', value: '1001' }],
    [':leading', { kind: 'metadataValue', value: ':leading' }],
    ['ch_short', { kind: 'metadataValue', value: 'ch_short' }],
  ])('%j', (q, expected) => {
    expect(parseChargeSearch(q)).toEqual(expected);
  });
});

describe('chainsOfMode', () => {
  it('offers test networks in test mode and main networks in live mode', () => {
    expect(chainsOfMode('test')).toEqual(['POLYGON_AMOY', 'BSC_TESTNET', 'DFK_TESTNET', 'SOLANA_DEVNET']);
    expect(chainsOfMode('live')).toEqual(['POLYGON', 'BSC', 'DFK', 'SOLANA']);
  });
});
