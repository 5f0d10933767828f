import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_BASE_UNITS, formatAmount, parseAmount, sumLineTotals } from './money';

const base = (text: string, decimals: number) => {
  const result = parseAmount(text, decimals);
  if (!result.ok) throw new Error(`${text}: ${result.reason}`);
  return result.baseUnits;
};

describe('parseAmount / formatAmount', () => {
  it.each([
    ['0.1', 6, 100_000n],
    ['1', 18, 10n ** 18n],
    ['4.99', 6, 4_990_000n],
    ['0.000001', 6, 1n],
    ['1.500000', 6, 1_500_000n],
    ['12345678901234567890', 0, 12345678901234567890n],
    ['1e-3', 6, 1_000n],
    ['2.5E+2', 6, 250_000_000n],
    ['1.5e-18', 18, undefined],
  ])('%s with %i decimals', (text, decimals, expected) => {
    const result = parseAmount(text, decimals);
    if (expected === undefined) expect(result).toEqual({ ok: false, reason: 'too_many_decimals' });
    else expect(result).toEqual({ ok: true, baseUnits: expected });
  });

  it.each([
    ['-1', 'format'],
    ['1.', 'format'],
    ['.5', 'format'],
    ['1,5', 'format'],
    ['0x10', 'format'],
    ['NaN', 'format'],
    ['0', 'not_positive'],
    ['0.000', 'not_positive'],
    ['1.0000001', 'too_many_decimals'],
    ['1e999', 'format'],
  ])('refuses %s (%s)', (text, reason) => {
    expect(parseAmount(text, 6)).toEqual({ ok: false, reason });
  });

  it('refuses more than 2^256 - 1 base units', () => {
    expect(parseAmount(MAX_BASE_UNITS.toString(), 0)).toEqual({ ok: true, baseUnits: MAX_BASE_UNITS });
    expect(parseAmount((MAX_BASE_UNITS + 1n).toString(), 0)).toEqual({ ok: false, reason: 'too_large' });
  });

  it('0.1 × 3 is exactly 0.3 in every decimals setting', () => {
    for (const decimals of [1, 6, 9, 18]) {
      expect(formatAmount(sumLineTotals([{ unitBaseUnits: base('0.1', decimals), quantity: 3 }]), decimals)).toBe('0.3');
    }
  });

  it('property: format then parse gives back the same base units', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: MAX_BASE_UNITS }), fc.integer({ min: 0, max: 30 }), (units, decimals) => {
        expect(base(formatAmount(units, decimals), decimals)).toBe(units);
      }),
    );
  });

  it('property: a decimal written with k fractional digits parses iff k ≤ decimals (after trailing zeros)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.stringMatching(/^[0-9]{0,20}$/),
        fc.integer({ min: 0, max: 24 }),
        (whole, fraction, decimals) => {
          const text = fraction ? `${whole}.${fraction}` : `${whole}`;
          const significant = fraction.replace(/0+$/, '');
          const result = parseAmount(text, decimals);
          const isZero = whole === 0n && /^0*$/.test(fraction);
          if (significant.length > decimals) expect(result).toEqual({ ok: false, reason: 'too_many_decimals' });
          else if (isZero) expect(result).toEqual({ ok: false, reason: 'not_positive' });
          else expect(result).toEqual({ ok: true, baseUnits: BigInt(`${whole}${significant.padEnd(decimals, '0')}`) });
        },
      ),
    );
  });

  it('property: Σ amount × quantity equals adding the line totals one by one as decimals', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ units: fc.bigInt({ min: 1n, max: 10n ** 24n }), quantity: fc.integer({ min: 1, max: 1_000_000 }) }), {
          minLength: 1,
          maxLength: 100,
        }),
        fc.integer({ min: 0, max: 18 }),
        (lines, decimals) => {
          const total = sumLineTotals(lines.map((l) => ({ unitBaseUnits: l.units, quantity: l.quantity })));
          // Reference: repeated addition of the formatted decimal text, re-parsed each time.
          let reference = 0n;
          for (const line of lines) reference += base(formatAmount(line.units, decimals), decimals) * BigInt(line.quantity);
          expect(total).toBe(reference);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('property: exponent notation means the same amount as its expansion', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999 }), fc.integer({ min: -12, max: 12 }), (mantissa, exponent) => {
        const expanded =
          exponent >= 0
            ? `${mantissa}${'0'.repeat(exponent)}`
            : (() => {
                const digits = String(mantissa).padStart(-exponent + 1, '0');
                return `${digits.slice(0, exponent)}.${digits.slice(exponent)}`;
              })();
        expect(parseAmount(`${mantissa}e${exponent}`, 18)).toEqual(parseAmount(expanded, 18));
      }),
    );
  });

  it('formats negative and zero values (used for differences)', () => {
    expect(formatAmount(0n, 6)).toBe('0');
    expect(formatAmount(-1_500_000n, 6)).toBe('-1.5');
  });
});
