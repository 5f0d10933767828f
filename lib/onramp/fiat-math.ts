/**
 * Exact fiat arithmetic for on-ramp quotes: fiat amounts are integer cents (bigint), token amounts
 * base units, prices decimal text. Rounding is explicit at every step; nothing goes through a float.
 */

const PRICE_SCALE = 18;

/** "12.5" → 1250n. Throws on anything but a plain non-negative decimal with at most 2 fraction digits. */
export function toCents(text: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) throw new Error(`not a fiat amount: ${text}`);
  return BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
}

/** 1250n → "12.50". */
export function centsToText(cents: bigint): string {
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}

/** A fiat amount the buyer typed ("25", "25.5", "25.50"); undefined when it is not one. */
export function parseFiat(text: string): bigint | undefined {
  const trimmed = text.trim();
  return /^\d{1,12}(?:\.\d{1,2})?$/.test(trimmed) ? toCents(trimmed) : undefined;
}

function scaledPrice(price: string): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(price);
  if (!match) throw new Error(`not a decimal price: ${price}`);
  return BigInt(match[1]! + (match[2] ?? '').slice(0, PRICE_SCALE).padEnd(PRICE_SCALE, '0'));
}

/** Value of a token amount at a price per whole token, in cents rounded half-up. */
export function valueInCents(baseUnits: bigint, decimals: number, price: string): bigint {
  const numerator = baseUnits * scaledPrice(price) * 100n;
  const denominator = 10n ** BigInt(decimals + PRICE_SCALE);
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/** The token amount worth `cents` at a price, rounded down (the buyer never gets told more than arrives). */
export function baseUnitsForCents(cents: bigint, decimals: number, price: string, rounding: 'down' | 'up' = 'down'): bigint {
  const numerator = cents * 10n ** BigInt(decimals + PRICE_SCALE);
  const denominator = scaledPrice(price) * 100n;
  if (denominator === 0n) throw new Error('price is zero');
  const quotient = numerator / denominator;
  return rounding === 'up' && quotient * denominator < numerator ? quotient + 1n : quotient;
}

/** `percent`% of an amount in cents, rounded half-up ("4.5" → 4.5%). */
export function percentOfCents(cents: bigint, percent: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,4}))?$/.exec(percent);
  if (!match) throw new Error(`not a percentage: ${percent}`);
  const basisPointsTimes100 = BigInt(match[1]! + (match[2] ?? '').padEnd(4, '0')); // percent × 10^4
  const denominator = 100n * 10_000n;
  return (cents * basisPointsTimes100 * 2n + denominator) / (denominator * 2n);
}
