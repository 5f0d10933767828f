/**
 * The example number the phone form shows (placeholder and hint): a number the parser accepts, so copying
 * the example's format works (lib/accounts/phone.test.ts checks it). 555-01xx numbers are fictional.
 */
export const PHONE_EXAMPLE = '+1 415 555 0100';
