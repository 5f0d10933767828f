import { describe, expect, it } from 'vitest';
import { failureMessage } from './failure-message';

describe('failureMessage', () => {
  it.each([
    ['card_declined', 'Your card was declined.'],
    ['CARD-DECLINED', 'Your card was declined.'],
    ['authentication_failed', 'The card’s 3-D Secure check failed.'],
    ['insufficient_funds', 'Your card has insufficient funds.'],
    // A code we have no words for is never shown as it is.
    ['do_not_honor', 'The provider did not complete the payment.'],
    // Providers' own sentences are kept, ending with a full stop.
    ['Card declined', 'Card declined.'],
    ['The payment failed (for example, the card was declined).', 'The payment failed (for example, the card was declined).'],
  ])('%s → %s', (reason, expected) => {
    expect(failureMessage(reason)).toBe(expected);
  });

  it('has nothing to say without a reason', () => {
    expect(failureMessage(null)).toBeNull();
    expect(failureMessage('  ')).toBeNull();
  });
});
