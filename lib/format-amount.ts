/**
 * Amounts for people to read: the one formatter for token and fiat amounts on every page.
 *
 * Input is an exact decimal text (what lib/money.ts formatAmount gives, or the API's amount strings);
 * output is rounded half-up on the digits, with thousands separators, never through a JS float.
 * The exact value stays available for a `title` or a details list (see components/ui/amount.tsx);
 * where an amount must be typed or copied exactly (the amount to send), show the exact text instead.
 */

/** USD stablecoins: shown like dollars, with cents. */
const STABLECOIN_SYMBOLS: ReadonlySet<string> = new Set(['USDC', 'USDT', 'DAI', 'USDC.E', 'BUSD', 'PYUSD']);
/** Everything else (POL, BNB, ETH, SOL, JEWEL, a merchant's token): enough decimals for a price, never 18. */
const OTHER_TOKEN_DECIMALS = 4;
const STABLECOIN_DECIMALS = 2;

const DECIMAL_TEXT = /^(-)?(\d+)(?:\.(\d+))?$/;

/** How many decimals a token's amounts are shown with. */
export function displayDecimals(symbol: string): number {
  return STABLECOIN_SYMBOLS.has(symbol.toUpperCase()) ? STABLECOIN_DECIMALS : OTHER_TOKEN_DECIMALS;
}

/**
 * "1234.5" → "1,234.5", rounded half-up to `decimals` places; `minDecimals` pads ("5" → "5.00").
 * A non-zero amount that rounds to zero reads "< 0.0001" (or "> -0.0001" when negative), never "0".
 * Text that is not a decimal is returned as it is (display only: never throw on a page).
 */
export function roundDecimalText(amount: string, options: { decimals: number; minDecimals?: number; rounding?: 'half-up' | 'up' }): string {
  const match = DECIMAL_TEXT.exec(amount.trim());
  if (!match) return amount;
  const negative = match[1] === '-';
  const whole = match[2]!;
  const fraction = match[3] ?? '';
  const { decimals } = options;
  const minDecimals = Math.min(options.minDecimals ?? 0, decimals);
  const kept = fraction.slice(0, decimals).padEnd(decimals, '0');
  // Half-up on the first dropped digit (or up, away from zero, on any dropped digit: "at most" amounts
  // must never read smaller than they are). The digits are exact, so this is exact.
  const dropped = fraction.slice(decimals);
  const roundsUp = options.rounding === 'up' ? /[1-9]/.test(dropped) : (dropped[0] ?? '0') >= '5';
  const scaled = BigInt(whole + kept) + (roundsUp ? 1n : 0n);
  const isNonZero = /[1-9]/.test(whole + fraction);
  if (scaled === 0n && isNonZero && options.rounding !== 'up') {
    const smallest = decimals === 0 ? '1' : `0.${'0'.repeat(decimals - 1)}1`;
    return negative ? `> -${smallest}` : `< ${smallest}`;
  }
  const digits = scaled.toString().padStart(decimals + 1, '0');
  const wholeDigits = digits.slice(0, digits.length - decimals);
  let fractionDigits = digits.slice(digits.length - decimals).replace(/0+$/, '');
  fractionDigits = fractionDigits.padEnd(minDecimals, '0');
  const grouped = groupThousands(wholeDigits);
  return `${negative && scaled !== 0n ? '-' : ''}${grouped}${fractionDigits ? `.${fractionDigits}` : ''}`;
}

/**
 * "5.063162957899800007", "USDC" → "5.06 USDC"; "1.23456789", "POL" → "1.2346 POL".
 * `rounding: 'up'` for a limit the payer agrees to ("at most 5.07 USDC"), so it never reads lower than it is.
 */
export function formatTokenAmount(amount: string, symbol: string, options: { rounding?: 'half-up' | 'up' } = {}): string {
  return `${formatTokenNumber(amount, symbol, options)} ${symbol}`;
}

/** formatTokenAmount without the symbol, for a column headed by it: "25.5", "USDC" → "25.50". */
export function formatTokenNumber(amount: string, symbol: string, options: { rounding?: 'half-up' | 'up' } = {}): string {
  const decimals = displayDecimals(symbol);
  const minDecimals = decimals === STABLECOIN_DECIMALS ? decimals : 0;
  return roundDecimalText(amount, { decimals, minDecimals, ...(options.rounding ? { rounding: options.rounding } : {}) });
}

/** The exact amount with thousands separators, for a title or the details: "1,234.063162957899800007 USDC". */
export function formatExactTokenAmount(amount: string, symbol: string): string {
  const match = DECIMAL_TEXT.exec(amount.trim());
  if (!match) return `${amount} ${symbol}`;
  return `${match[1] ?? ''}${groupThousands(match[2]!)}${match[3] ? `.${match[3]}` : ''} ${symbol}`;
}

const CURRENCY_SIGNS: Readonly<Record<string, string>> = { USD: '$', EUR: '€', GBP: '£' };

/**
 * "$1,234.50" for "1234.5" (and the database's "1234.50000000"): cents, rounded half-up; other currencies
 * with their sign where known ("€20.00"), else "1,234.50 CHF".
 */
export function formatFiat(amount: string, currency: string): string {
  const text = roundDecimalText(amount, { decimals: 2, minDecimals: 2 });
  const sign = CURRENCY_SIGNS[currency.toUpperCase()];
  if (!sign) return `${text} ${currency}`;
  if (text.startsWith('-')) return `-${sign}${text.slice(1)}`;
  if (text.startsWith('< ')) return `< ${sign}${text.slice(2)}`;
  return `${sign}${text}`;
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
