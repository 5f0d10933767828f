/** The fiat payment methods on-ramp providers offer: plain constants, safe for client components. */
export const FIAT_METHODS = ['card', 'bank_transfer', 'apple_pay', 'google_pay'] as const;
export type FiatMethod = (typeof FIAT_METHODS)[number];

export const FIAT_METHOD_LABELS: Record<FiatMethod, string> = {
  card: 'Card',
  bank_transfer: 'Bank transfer',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
};
