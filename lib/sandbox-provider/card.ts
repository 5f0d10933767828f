/**
 * Sandpiper Pay's card rules: the form's validation (Luhn, expiry in the future, CVC) and the test
 * cards that decide the outcome. Pure, so the payment screen checks as the user types and the server
 * checks again with the same code. Only test cards are taken: a sandbox must never see real numbers.
 */
import { z } from 'zod';

export type CardOutcome = 'success' | 'declined' | 'authentication_required';

export const TEST_CARDS: readonly { number: string; outcome: CardOutcome; description: string }[] = [
  { number: '4242 4242 4242 4242', outcome: 'success', description: 'Succeeds' },
  { number: '4000 0000 0000 0002', outcome: 'declined', description: 'Is declined' },
  { number: '4000 0027 6000 3184', outcome: 'authentication_required', description: 'Requires 3-D Secure' },
];

const OUTCOME_BY_DIGITS = new Map(TEST_CARDS.map((card) => [digitsOf(card.number), card.outcome]));

function digitsOf(text: string): string {
  return text.replace(/[\s-]/g, '');
}

/** The Luhn (mod 10) check digit test every card number passes. */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A card is valid through the last day of its expiry month, so MM/YY of the current month still passes. */
export function isExpiryInFuture(expiry: string, now: Date): boolean {
  const match = /^(\d{2})\s*\/\s*(\d{2})$/.exec(expiry.trim());
  if (!match) return false;
  const month = Number(match[1]);
  const year = 2000 + Number(match[2]);
  if (month < 1 || month > 12) return false;
  return year * 12 + month >= now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}

function cardFormSchema(now: Date) {
  return z.object({
    number: z
      .string()
      .transform(digitsOf)
      .refine((digits) => /^\d{12,19}$/.test(digits), 'Enter the 12–19 digits of the card number')
      .refine(passesLuhn, 'This card number is not valid: check the digits')
      .refine((digits) => OUTCOME_BY_DIGITS.has(digits), 'This is a sandbox: pay with one of the test cards listed below'),
    expiry: z
      .string()
      .trim()
      .regex(/^\d{2}\s*\/\s*\d{2}$/, 'Enter the expiry as MM/YY')
      .refine((value) => isExpiryInFuture(value, now), 'This card has expired: the expiry must be in the future'),
    cvc: z
      .string()
      .trim()
      .regex(/^\d{3,4}$/, 'Enter the 3 or 4 digit security code'),
    name: z.string().trim().min(1, 'Enter the name on the card').max(100, 'The name is too long'),
  });
}

export type CardField = 'number' | 'expiry' | 'cvc' | 'name';
export type CardFieldErrors = Partial<Record<CardField, string>>;

export type CardValidation = { ok: true; outcome: CardOutcome; last4: string } | { ok: false; errors: CardFieldErrors };

/** The form's fields checked together; the first problem of each field is its inline error. */
export function validateCard(input: Record<CardField, string>, now: Date): CardValidation {
  const result = cardFormSchema(now).safeParse(input);
  if (!result.success) {
    const errors: CardFieldErrors = {};
    for (const issue of result.error.issues) {
      const field = issue.path[0] as CardField;
      errors[field] ??= issue.message;
    }
    return { ok: false, errors };
  }
  const digits = result.data.number;
  return { ok: true, outcome: OUTCOME_BY_DIGITS.get(digits)!, last4: digits.slice(-4) };
}
