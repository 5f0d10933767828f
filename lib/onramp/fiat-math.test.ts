import { describe, expect, it } from 'vitest';
import { baseUnitsForCents, centsToText, parseFiat, percentOfCents, toCents, valueInCents } from './fiat-math';

describe('exact fiat arithmetic', () => {
  it('parses and prints cents', () => {
    expect(toCents('20')).toBe(2000n);
    expect(toCents('3.9')).toBe(390n);
    expect(centsToText(2901n)).toBe('29.01');
    expect(centsToText(5n)).toBe('0.05');
    expect(parseFiat(' 25.5 ')).toBe(2550n);
    expect(parseFiat('25.555')).toBeUndefined();
    expect(parseFiat('-1')).toBeUndefined();
    expect(parseFiat('1e3')).toBeUndefined();
  });

  it('values token amounts at a price, half-up to the cent, with no float drift', () => {
    // 0.1 + 0.2 of a 6-decimals token at $1: 0.30, not 0.30000000000000004.
    expect(centsToText(valueInCents(100_000n + 200_000n, 6, '1'))).toBe('0.30');
    expect(centsToText(valueInCents(1_234_567n, 6, '1'))).toBe('1.23');
    expect(centsToText(valueInCents(10n ** 18n / 3n, 18, '612.37'))).toBe('204.12');
    expect(centsToText(valueInCents(5_000n, 6, '1'))).toBe('0.01'); // 0.005 rounds up
  });

  it('converts fiat to tokens, down for what arrives and up for a minimum', () => {
    expect(baseUnitsForCents(2000n, 6, '1')).toBe(20_000_000n);
    expect(baseUnitsForCents(1000n, 18, '3')).toBe(3_333_333_333_333_333_333n);
    expect(baseUnitsForCents(1000n, 18, '3', 'up')).toBe(3_333_333_333_333_333_334n);
  });

  it('takes percentages half-up', () => {
    expect(percentOfCents(2500n, '4.5')).toBe(113n); // 1.125 → 1.13
    expect(percentOfCents(2500n, '1')).toBe(25n);
    expect(percentOfCents(333n, '3.5')).toBe(12n); // 11.655 → 12
  });
});
