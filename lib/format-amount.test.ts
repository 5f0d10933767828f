import { describe, expect, it } from 'vitest';
import {
  displayDecimals,
  formatExactTokenAmount,
  formatFiat,
  formatTokenAmount,
  formatTokenNumber,
  roundDecimalText,
} from './format-amount';

describe('formatTokenAmount', () => {
  it.each([
    ['0', 'USDC', '0.00 USDC'],
    ['5', 'USDC', '5.00 USDC'],
    ['2.8', 'USDC', '2.80 USDC'],
    ['5.063162957899800007', 'USDC', '5.06 USDC'],
    ['4.995', 'USDC', '5.00 USDC'],
    ['4.994999', 'USDC', '4.99 USDC'],
    ['0.004', 'USDT', '< 0.01 USDT'],
    ['1234567.891', 'USDC', '1,234,567.89 USDC'],
    ['1.5', 'POL', '1.5 POL'],
    ['0', 'POL', '0 POL'],
    ['1.23456789', 'POL', '1.2346 POL'],
    ['0.999999999999999999', 'BNB', '1 BNB'],
    ['0.00004999', 'POL', '< 0.0001 POL'],
    ['0.00005', 'POL', '0.0001 POL'],
    ['0.000000000000000001', 'POL', '< 0.0001 POL'],
    [
      '115792089237316195423570985008687907853269984665640564039457.584007913129639935',
      'PZP',
      '115,792,089,237,316,195,423,570,985,008,687,907,853,269,984,665,640,564,039,457.584 PZP',
    ],
    ['-5.5', 'USDC', '-5.50 USDC'],
    ['-0.00001', 'POL', '> -0.0001 POL'],
    ['-0.00004', 'USDC', '> -0.01 USDC'],
    ['-1234.56789', 'BNB', '-1,234.5679 BNB'],
  ])('%s %s → %s', (amount, symbol, expected) => {
    expect(formatTokenAmount(amount, symbol)).toBe(expected);
  });

  it('has a form without the symbol, for a column headed by the token', () => {
    expect(formatTokenNumber('25.5', 'USDC')).toBe('25.50');
    expect(formatTokenNumber('1.000000000000000001', 'POL')).toBe('1');
  });

  it('keeps text that is not a decimal as it is', () => {
    expect(formatTokenAmount('n/a', 'USDC')).toBe('n/a USDC');
  });
});

describe('roundDecimalText', () => {
  it('rounds half-up on the digits, carrying into the whole part', () => {
    expect(roundDecimalText('9.99995', { decimals: 4 })).toBe('10');
    expect(roundDecimalText('999.995', { decimals: 2 })).toBe('1,000');
    expect(roundDecimalText('0.125', { decimals: 2 })).toBe('0.13');
    expect(roundDecimalText('0.4', { decimals: 0 })).toBe('< 1');
  });
  it('rounds a limit up, away from zero, so it never reads lower than it is', () => {
    expect(formatTokenAmount('5.0600001', 'USDC', { rounding: 'up' })).toBe('5.07 USDC');
    expect(formatTokenAmount('5.06', 'USDC', { rounding: 'up' })).toBe('5.06 USDC');
    expect(formatTokenAmount('0.00000001', 'POL', { rounding: 'up' })).toBe('0.0001 POL');
  });
  it('never shows a negative zero', () => {
    expect(roundDecimalText('-0', { decimals: 2, minDecimals: 2 })).toBe('0.00');
  });
});

describe('formatExactTokenAmount', () => {
  it('groups thousands and keeps every digit', () => {
    expect(formatExactTokenAmount('1234.063162957899800007', 'USDC')).toBe('1,234.063162957899800007 USDC');
    expect(formatExactTokenAmount('-1000', 'POL')).toBe('-1,000 POL');
  });
});

describe('formatFiat', () => {
  it.each([
    ['1234.5', 'USD', '$1,234.50'],
    ['1234.50000000', 'USD', '$1,234.50'],
    ['0', 'USD', '$0.00'],
    ['0.001', 'USD', '< $0.01'],
    ['26.875', 'EUR', '€26.88'],
    ['-3', 'GBP', '-£3.00'],
    ['20', 'CHF', '20.00 CHF'],
  ])('%s %s → %s', (amount, currency, expected) => {
    expect(formatFiat(amount, currency)).toBe(expected);
  });
});

describe('displayDecimals', () => {
  it('shows stablecoins with cents and other tokens with four decimals', () => {
    expect(displayDecimals('usdc')).toBe(2);
    expect(displayDecimals('POL')).toBe(4);
  });
});
