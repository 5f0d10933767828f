/**
 * Exact token amounts. On the wire an amount is a decimal (string, or a JSON number kept exactly by
 * the lossless body parser); inside it is a bigint count of base units with the token's decimals.
 * Nothing here ever goes through a JS float.
 */

const DECIMAL_PATTERN = /^(\d+)(?:\.(\d+))?$/;
/** Largest amount accepted: an unsigned 256-bit value, the most any ERC-20 balance can hold. */
export const MAX_BASE_UNITS = (1n << 256n) - 1n;

export type ParseAmountResult =
  { ok: true; baseUnits: bigint } | { ok: false; reason: 'format' | 'too_many_decimals' | 'not_positive' | 'too_large' };

/**
 * Parse a decimal text ("12", "0.1", "1e-3" from a JSON number) into base units.
 * Rejects negative values, more fractional digits than `decimals`, zero, and values over 2^256-1.
 */
export function parseAmount(text: string, decimals: number): ParseAmountResult {
  const plain = expandExponent(text.trim());
  if (plain === undefined) return { ok: false, reason: 'format' };
  const match = DECIMAL_PATTERN.exec(plain);
  if (!match) return { ok: false, reason: 'format' };
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) return { ok: false, reason: 'too_many_decimals' };
  const baseUnits = BigInt(whole + fraction.padEnd(decimals, '0'));
  if (baseUnits === 0n) return { ok: false, reason: 'not_positive' };
  if (baseUnits > MAX_BASE_UNITS) return { ok: false, reason: 'too_large' };
  return { ok: true, baseUnits };
}

/** Base units back to the shortest exact decimal text: formatAmount(300000n, 6) === "0.3". */
export function formatAmount(baseUnits: bigint, decimals: number): string {
  const negative = baseUnits < 0n;
  const digits = (negative ? -baseUnits : baseUnits).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Σ amount × quantity, exactly. */
export function sumLineTotals(lines: readonly { unitBaseUnits: bigint; quantity: number }[]): bigint {
  return lines.reduce((total, line) => total + line.unitBaseUnits * BigInt(line.quantity), 0n);
}

/**
 * "1.5e-3" → "0.0015", "2E+3" → "2000". JSON numbers may arrive in exponent form; amounts never
 * need more than a few hundred digits, so larger exponents are refused rather than expanded.
 */
function expandExponent(text: string): string | undefined {
  const match = /^(\d+)(?:\.(\d+))?[eE]([+-]?\d+)$/.exec(text);
  if (!match) return text;
  const exponent = Number(match[3]);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 200) return undefined;
  const whole = match[1] ?? '';
  const fraction = match[2] ?? '';
  const digits = whole + fraction;
  const pointAt = whole.length + exponent;
  if (pointAt <= 0) return `0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return digits + '0'.repeat(pointAt - digits.length);
  return `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}
