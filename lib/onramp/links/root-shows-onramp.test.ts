import { describe, expect, it } from 'vitest';
import { rootShowsOnramp } from './root-shows-onramp';

const headers = (values: Record<string, string>) => new Headers(values);
const DEV = { APP_URL: 'http://localhost:3000' };
const ONE_HOST = { APP_URL: 'https://chargeport.example', CHECKOUT_URL: 'https://chargeport.example/' };
const SPLIT = { APP_URL: 'https://app.chargeport.example', CHECKOUT_URL: 'https://pay.chargeport.example/' };
const LINK = { chain: 'POLYGON', token: 'USDC', wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', wallet_label: 'Acme Games' };

describe('what GET / shows', () => {
  it.each([
    ['npm run dev (no CHECKOUT_URL)', DEV, 'localhost:3000'],
    ['one host (CHECKOUT_URL = APP_URL)', ONE_HOST, 'chargeport.example'],
    ['the app host of a split install', SPLIT, 'app.chargeport.example'],
    ['the checkout host of a split install', SPLIT, 'pay.chargeport.example'],
  ])('on %s, an on-ramp link shows the on-ramp', (_install, urls, host) => {
    expect(rootShowsOnramp({ headers: headers({ host }), urls, query: LINK })).toBe(true);
  });

  it.each([['chain'], ['token'], ['wallet'], ['wallet_label']])('any one of the parameters is enough (%s)', (name) => {
    expect(rootShowsOnramp({ headers: headers({ host: 'localhost:3000' }), urls: DEV, query: { [name]: 'x' } })).toBe(true);
  });

  it('a parameter left blank or repeated still makes it an on-ramp link (the on-ramp handles the values)', () => {
    expect(rootShowsOnramp({ headers: headers({ host: 'localhost:3000' }), urls: DEV, query: { chain: '' } })).toBe(true);
    expect(rootShowsOnramp({ headers: headers({ host: 'localhost:3000' }), urls: DEV, query: { chain: ['BSC', 'POLYGON'] } })).toBe(true);
  });

  it('without on-ramp parameters the app host shows the landing page; other parameters do not count', () => {
    for (const [urls, host] of [
      [DEV, 'localhost:3000'],
      [ONE_HOST, 'chargeport.example'],
      [SPLIT, 'app.chargeport.example'],
    ] as const) {
      expect(rootShowsOnramp({ headers: headers({ host }), urls, query: {} })).toBe(false);
      expect(rootShowsOnramp({ headers: headers({ host }), urls, query: { utm_source: 'mail', merchant: 'mer_1' } })).toBe(false);
    }
  });

  it('the checkout host of a split install is the on-ramp even without parameters', () => {
    expect(rootShowsOnramp({ headers: headers({ host: 'pay.chargeport.example' }), urls: SPLIT, query: {} })).toBe(true);
  });
});
