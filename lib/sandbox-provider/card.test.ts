import { describe, expect, it } from 'vitest';
import { isExpiryInFuture, passesLuhn, TEST_CARDS, validateCard } from './card';

const NOW = new Date('2026-11-22T12:00:00Z');
const VALID = { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', name: 'Ada Lovelace' };

describe('card rules', () => {
  it('Luhn accepts the test cards and refuses a changed digit', () => {
    for (const card of TEST_CARDS) expect(passesLuhn(card.number.replace(/ /g, ''))).toBe(true);
    expect(passesLuhn('4242424242424241')).toBe(false);
  });

  it('an expiry is valid through the end of its month', () => {
    expect(isExpiryInFuture('11/26', NOW)).toBe(true);
    expect(isExpiryInFuture('10/26', NOW)).toBe(false);
    expect(isExpiryInFuture('01/27', NOW)).toBe(true);
    expect(isExpiryInFuture('13/27', NOW)).toBe(false);
  });

  it('each test card decides the outcome; only test cards are taken', () => {
    expect(validateCard(VALID, NOW)).toEqual({ ok: true, outcome: 'success', last4: '4242' });
    expect(validateCard({ ...VALID, number: '4000000000000002' }, NOW)).toMatchObject({ ok: true, outcome: 'declined' });
    expect(validateCard({ ...VALID, number: '4000-0027-6000-3184' }, NOW)).toMatchObject({
      ok: true,
      outcome: 'authentication_required',
      last4: '3184',
    });
    // A real-looking number (valid Luhn) is refused: a sandbox must not see real cards.
    expect(validateCard({ ...VALID, number: '5555 5555 5555 4444' }, NOW)).toEqual({
      ok: false,
      errors: { number: 'This is a sandbox: pay with one of the test cards listed below' },
    });
  });

  it('reports one inline error per field', () => {
    const result = validateCard({ number: '4242 4242 4242 4241', expiry: '10/26', cvc: '12', name: ' ' }, NOW);
    expect(result).toEqual({
      ok: false,
      errors: {
        number: 'This card number is not valid: check the digits',
        expiry: 'This card has expired: the expiry must be in the future',
        cvc: 'Enter the 3 or 4 digit security code',
        name: 'Enter the name on the card',
      },
    });
    expect(validateCard({ ...VALID, expiry: '1230' }, NOW)).toEqual({ ok: false, errors: { expiry: 'Enter the expiry as MM/YY' } });
  });
});
