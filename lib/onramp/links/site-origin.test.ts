import { describe, expect, it } from 'vitest';
import { isCheckoutSiteRequest, onrampSiteOrigin } from './site-origin';

const headers = (values: Record<string, string>) => new Headers(values);
const SPLIT = { APP_URL: 'https://app.chargeport.example', CHECKOUT_URL: 'https://pay.chargeport.example/' };

describe('checkout site detection', () => {
  it('a request on the checkout host is the checkout site (its / is the on-ramp)', () => {
    expect(isCheckoutSiteRequest(headers({ host: 'pay.chargeport.example' }), SPLIT)).toBe(true);
    expect(isCheckoutSiteRequest(headers({ host: 'app.chargeport.example' }), SPLIT)).toBe(false);
  });

  it('behind a proxy the forwarded host decides (first entry)', () => {
    expect(isCheckoutSiteRequest(headers({ host: 'internal:3000', 'x-forwarded-host': 'PAY.chargeport.example, proxy' }), SPLIT)).toBe(
      true,
    );
  });

  it('without CHECKOUT_URL, or with CHECKOUT_URL on the app host, there is only one site', () => {
    expect(isCheckoutSiteRequest(headers({ host: 'pay.chargeport.example' }), { APP_URL: SPLIT.APP_URL })).toBe(false);
    expect(
      isCheckoutSiteRequest(headers({ host: 'localhost:3000' }), {
        APP_URL: 'http://localhost:3000',
        CHECKOUT_URL: 'http://localhost:3000/',
      }),
    ).toBe(false);
  });

  it('the return origin is one of the configured origins, never a forged host', () => {
    expect(onrampSiteOrigin(headers({ host: 'pay.chargeport.example' }), SPLIT)).toBe('https://pay.chargeport.example');
    expect(onrampSiteOrigin(headers({ host: 'evil.example' }), SPLIT)).toBe('https://app.chargeport.example');
    expect(onrampSiteOrigin(headers({}), SPLIT)).toBe('https://app.chargeport.example');
  });
});
