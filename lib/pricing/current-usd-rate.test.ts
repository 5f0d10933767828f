import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { usdCentsToBaseUnits } from './current-usd-rate';

describe('usdCentsToBaseUnits', () => {
  it('is exact at par: $4.99 is 4.99 USDC (6 decimals) and 4.99 BSC-USDC (18 decimals)', () => {
    expect(usdCentsToBaseUnits(499n, '1', 6)).toBe(4_990_000n);
    expect(usdCentsToBaseUnits(499n, '1', 18)).toBe(4_990_000_000_000_000_000n);
  });

  it('rounds up to the smallest unit: $1 at $3 per token is 0.333…334, never less than the price', () => {
    expect(usdCentsToBaseUnits(100n, '3', 18)).toBe(333_333_333_333_333_334n);
    expect(usdCentsToBaseUnits(100n, '3', 0)).toBe(1n);
    // An exact quotient is not rounded: $10 at $0.25 is 40 tokens.
    expect(usdCentsToBaseUnits(1000n, '0.25', 18)).toBe(40n * 10n ** 18n);
  });

  it('uses every digit of the rate: $4.99 at $0.2345 is 21.279317697228144989… → …990 (18 decimals)', () => {
    expect(usdCentsToBaseUnits(499n, '0.2345', 18)).toBe(21_279_317_697_228_144_990n);
    expect(usdCentsToBaseUnits(1n, '0.000042', 18)).toBe(238_095_238_095_238_095_239n); // $0.01 / $0.000042 = 238.095238095238095238…
  });

  it('refuses a rate of zero or with more than 18 fractional digits', () => {
    expect(() => usdCentsToBaseUnits(1n, '0', 6)).toThrow(/positive/);
    expect(() => usdCentsToBaseUnits(1n, '0.0000000000000000001', 6)).toThrow(/decimal/);
  });

  it('property: the result is the least amount worth at least the price (rate × units ≥ price > rate × (units − 1))', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.integer({ min: 0, max: 18 }),
        (cents, scaledRate, decimals) => {
          const rate = `${scaledRate / 10n ** 18n}.${(scaledRate % 10n ** 18n).toString().padStart(18, '0')}`;
          const units = usdCentsToBaseUnits(cents, rate, decimals);
          // In units of 10^-(decimals + 18 + 2) USD: value(units) = units × scaledRate × 100 / 10^decimals … compare cross-multiplied.
          const worth = (u: bigint) => u * scaledRate * 100n;
          const price = cents * 10n ** BigInt(decimals) * 10n ** 18n;
          expect(worth(units) >= price).toBe(true);
          expect(worth(units - 1n) < price).toBe(true);
        },
      ),
    );
  });
});
