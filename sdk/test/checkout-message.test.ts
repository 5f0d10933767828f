import { describe, expect, it } from 'vitest';
import { CHECKOUT_MESSAGE_TYPE as APP_MESSAGE_TYPE, checkoutMessage, checkoutPopupOrigin } from '@/lib/charges/checkout-popup';
import { CHARGE_STATUSES, chargeMachine } from '@/lib/charges/state';
import {
  CHECKOUT_MESSAGE_TYPE,
  FINAL_CHECKOUT_STATUSES,
  checkoutMessageFrom,
  popupCheckoutUrl,
  resolveCheckout,
  type MessageEventLike,
} from '../src/checkout-message';

const popup = { name: 'the popup pay() opened' };
const expected = { checkoutOrigin: 'https://pay.example.com', popup, chargeId: 'ch_abc' };
const genuine: MessageEventLike = {
  origin: 'https://pay.example.com',
  source: popup,
  data: { type: 'chargeport:checkout', chargeId: 'ch_abc', status: 'succeeded' },
};

describe('checkoutMessageFrom', () => {
  it('reads the final status of a genuine message', () => {
    expect(checkoutMessageFrom(genuine, expected)).toBe('succeeded');
    for (const status of ['canceled', 'expired', 'failed']) {
      expect(checkoutMessageFrom({ ...genuine, data: { ...(genuine.data as object), status } }, expected)).toBe(status);
    }
  });

  it.each<[string, Partial<MessageEventLike>]>([
    ['another origin', { origin: 'https://evil.example' }],
    ['a look-alike origin', { origin: 'https://pay.example.com.evil.example' }],
    ['the http origin of the same host', { origin: 'http://pay.example.com' }],
    ['another window (e.g. a frame of the merchant page)', { source: { name: 'other' } }],
    ['no source', { source: null }],
    ['another charge', { data: { type: 'chargeport:checkout', chargeId: 'ch_other', status: 'succeeded' } }],
    ['another type', { data: { type: 'something-else', chargeId: 'ch_abc', status: 'succeeded' } }],
    ['a status that is not final', { data: { type: 'chargeport:checkout', chargeId: 'ch_abc', status: 'processing' } }],
    ['an unknown status', { data: { type: 'chargeport:checkout', chargeId: 'ch_abc', status: 'paid' } }],
    ['a string', { data: 'chargeport:checkout succeeded' }],
    ['null data', { data: null }],
    ['an array', { data: ['chargeport:checkout', 'ch_abc', 'succeeded'] }],
  ])('ignores a message from %s', (_case, change) => {
    expect(checkoutMessageFrom({ ...genuine, ...change }, expected)).toBeUndefined();
  });
});

describe('resolveCheckout', () => {
  it('a charge id goes under baseUrl (with or without a trailing slash or a path)', () => {
    expect(resolveCheckout('ch_abc', 'https://pay.example.com').url.href).toBe('https://pay.example.com/checkout/ch_abc');
    expect(resolveCheckout('ch_abc', 'https://pay.example.com/').url.href).toBe('https://pay.example.com/checkout/ch_abc');
    expect(resolveCheckout('ch_abc', 'https://example.com/pay').url.href).toBe('https://example.com/pay/checkout/ch_abc');
  });

  it('a paymentUrl is used as is, without its query, whatever baseUrl says', () => {
    const checkout = resolveCheckout('https://checkout.example.com/checkout/ch_abc?utm=x#top', 'https://pay.example.com');
    expect(checkout).toEqual({ chargeId: 'ch_abc', url: new URL('https://checkout.example.com/checkout/ch_abc') });
  });

  it("createCharge's result: the paymentUrl, which must be the charge's", () => {
    expect(resolveCheckout({ chargeId: 'ch_abc', paymentUrl: 'https://pay.example.com/checkout/ch_abc' }).chargeId).toBe('ch_abc');
    expect(resolveCheckout({ chargeId: 'ch_abc' }, 'https://pay.example.com').url.href).toBe('https://pay.example.com/checkout/ch_abc');
    expect(() => resolveCheckout({ chargeId: 'ch_abc', paymentUrl: 'https://pay.example.com/checkout/ch_xyz' })).toThrow(TypeError);
  });

  it.each([
    ['an id without baseUrl', 'ch_abc', undefined],
    ['something else', 'order-17', 'https://pay.example.com'],
    ['a URL that is not a checkout', 'https://pay.example.com/wallet', undefined],
    ['a javascript: URL', 'javascript:alert(1)//checkout/ch_abc', undefined],
    ['an id with a path in it', 'ch_abc/../../wallet', 'https://pay.example.com'],
  ])('refuses %s with a TypeError', (_case, ref, baseUrl) => {
    expect(() => resolveCheckout(ref, baseUrl)).toThrow(TypeError);
  });
});

describe('the protocol matches the checkout (lib/charges/checkout-popup.ts)', () => {
  it('same message type, and the final statuses of the charge state machine', () => {
    expect(CHECKOUT_MESSAGE_TYPE).toBe(APP_MESSAGE_TYPE);
    expect([...FINAL_CHECKOUT_STATUSES].sort()).toEqual(CHARGE_STATUSES.filter(chargeMachine.isTerminal).sort());
  });

  it('the checkout accepts the popup URL the SDK builds, and the SDK accepts what the checkout posts', () => {
    const url = new URL(popupCheckoutUrl(resolveCheckout('ch_abc', 'https://pay.example.com'), 'http://127.0.0.1:4000'));
    expect(url.origin + url.pathname).toBe('https://pay.example.com/checkout/ch_abc');
    expect(checkoutPopupOrigin(url.searchParams.get('mode'), url.searchParams.get('origin'))).toBe('http://127.0.0.1:4000');
    for (const status of FINAL_CHECKOUT_STATUSES) {
      const data = checkoutMessage('ch_abc', status);
      expect(checkoutMessageFrom({ ...genuine, data }, expected)).toBe(status);
    }
  });
});
