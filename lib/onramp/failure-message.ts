/**
 * A provider's failure reason in words for the buyer. Providers report codes (`card_declined`, the
 * sandbox's and Stripe's style) or their own sentences (MoonPay's "Card declined", Transak's mapped
 * statuses): codes are translated here, sentences are kept, and a code we do not know is never shown raw.
 */
const FAILURE_MESSAGES: Readonly<Record<string, string>> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  expired_card: 'Your card has expired.',
  incorrect_cvc: 'The card’s security code was incorrect.',
  incorrect_number: 'The card number was incorrect.',
  processing_error: 'The card could not be processed. Try again in a moment.',
  authentication_failed: 'The card’s 3-D Secure check failed.',
  authentication_required: 'Your bank asked for a 3-D Secure check that was not completed.',
  fraud_suspected: 'The payment was stopped by the provider’s fraud checks.',
  kyc_rejected: 'The provider could not verify your identity.',
  limit_exceeded: 'The amount is above your limit with this provider.',
  expired: 'The payment was not finished in time.',
  canceled: 'The payment was canceled.',
  delivery_failed: 'The payment went through but the tokens could not be delivered; the provider refunds it.',
};

/** Something like `card_declined` or `CARD-DECLINED`: a code, not a sentence. */
const CODE_PATTERN = /^[a-z0-9]+(?:[_-][a-z0-9]+)+$/i;

export function failureMessage(reason: string | null | undefined): string | null {
  if (!reason?.trim()) return null;
  const text = reason.trim();
  const known = FAILURE_MESSAGES[text.toLowerCase().replace(/-/g, '_')];
  if (known) return known;
  if (CODE_PATTERN.test(text)) return 'The provider did not complete the payment.';
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
