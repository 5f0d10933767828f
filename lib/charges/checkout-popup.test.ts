import { describe, expect, it } from 'vitest';
import { checkoutMessage, checkoutPath, checkoutPopupOrigin } from './checkout-popup';

describe('checkoutPopupOrigin', () => {
  it.each([
    ['https://game.example', 'https://game.example'],
    ['http://localhost:5173', 'http://localhost:5173'],
    ['http://127.0.0.1:4000', 'http://127.0.0.1:4000'],
  ])('accepts the http(s) origin %s', (origin, expected) => {
    expect(checkoutPopupOrigin('popup', origin)).toBe(expected);
  });

  it.each([
    ['no origin', undefined],
    ['an empty origin', ''],
    ['a path', 'https://game.example/shop'],
    ['a trailing slash', 'https://game.example/'],
    ['a query', 'https://game.example?x=1'],
    ['credentials', 'https://user:pass@game.example'],
    ['a non-canonical host', 'https://GAME.example'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a data: URL', 'data:text/html,hi'],
    ['the opaque origin', 'null'],
    ['a wildcard', '*'],
    ['a list', ['https://a.example', 'https://b.example']],
  ])('ignores popup mode with %s', (_case, origin) => {
    expect(checkoutPopupOrigin('popup', origin)).toBeUndefined();
  });

  it('is off unless mode is popup', () => {
    expect(checkoutPopupOrigin(undefined, 'https://game.example')).toBeUndefined();
    expect(checkoutPopupOrigin('iframe', 'https://game.example')).toBeUndefined();
  });
});

describe('checkoutPath', () => {
  it('keeps popup mode and the origin in the query', () => {
    expect(checkoutPath('ch_1')).toBe('/checkout/ch_1');
    const url = new URL(checkoutPath('ch_1', 'http://127.0.0.1:4000'), 'http://x');
    expect(url.pathname).toBe('/checkout/ch_1');
    expect(checkoutPopupOrigin(url.searchParams.get('mode'), url.searchParams.get('origin'))).toBe('http://127.0.0.1:4000');
  });
});

describe('checkoutMessage', () => {
  it('is sent for the final statuses only', () => {
    expect(checkoutMessage('ch_1', 'succeeded')).toEqual({ type: 'chargeport:checkout', chargeId: 'ch_1', status: 'succeeded' });
    for (const status of ['canceled', 'expired', 'failed'] as const) expect(checkoutMessage('ch_1', status)?.status).toBe(status);
    expect(checkoutMessage('ch_1', 'pending')).toBeUndefined();
    expect(checkoutMessage('ch_1', 'processing')).toBeUndefined();
  });
});
