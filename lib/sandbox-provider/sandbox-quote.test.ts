import { describe, expect, it } from 'vitest';
import { SandboxApiError } from './errors';
import { quoteForCrypto, quoteForFiat, sellableToken } from './sandbox-quote';

const NOW = new Date('2026-11-22T12:00:00Z');
const base = { chain: 'POLYGON' as const, fiatCurrency: 'USD', paymentMethod: 'card' as const, now: NOW };

describe('sandbox pricing', () => {
  it('stablecoins at 1.00: 1.5% card fee above the 0.99 minimum, plus the chain’s network fee', () => {
    const quote = quoteForCrypto({ ...base, tokenSymbol: 'USDC', cryptoAmount: '100' });
    expect(quote).toMatchObject({
      cryptoAmount: '100',
      rate: '1.00',
      providerFee: '1.50',
      networkFee: '0.01',
      total: '101.51',
      totalCents: 10151n,
    });
    expect(quote.expiresAt).toEqual(new Date(NOW.getTime() + 60_000));
  });

  it('the minimum fee applies to small amounts; bank transfer costs 0.5%', () => {
    expect(quoteForCrypto({ ...base, tokenSymbol: 'USDC', cryptoAmount: '10' })).toMatchObject({ providerFee: '0.99', total: '11.00' });
    expect(quoteForCrypto({ ...base, tokenSymbol: 'USDC', cryptoAmount: '1000', paymentMethod: 'bank_transfer' })).toMatchObject({
      providerFee: '5.00',
      total: '1005.01',
    });
  });

  it('rounds up to the cent, exactly, for 18-decimal coins and other currencies', () => {
    // 0.000000000000000001 POL at 0.25 USD is a fraction of a cent: charged as one cent.
    expect(quoteForCrypto({ ...base, tokenSymbol: 'POL', cryptoAmount: '0.000000000000000001' })).toMatchObject({ total: '1.01' });
    expect(quoteForCrypto({ ...base, chain: 'BSC', tokenSymbol: 'BNB', cryptoAmount: '0.1', fiatCurrency: 'EUR' })).toMatchObject({
      rate: '552.00',
      providerFee: '0.99',
      networkFee: '0.10',
      total: '56.29',
    });
  });

  it('a fiat amount buys the most tokens whose total fits it', () => {
    const quote = quoteForFiat({ ...base, tokenSymbol: 'USDC', fiatAmount: '101.51' });
    expect(quote).toMatchObject({ cryptoAmount: '100', total: '101.51' });
    const small = quoteForFiat({ ...base, tokenSymbol: 'USDC', fiatAmount: '11' });
    expect(small).toMatchObject({ cryptoAmount: '10', total: '11.00' });
    expect(() => quoteForFiat({ ...base, tokenSymbol: 'USDC', fiatAmount: '1.00' })).toThrow(SandboxApiError);
  });

  it('sells EVM tokens with a price only, in USD, EUR and GBP', () => {
    expect(sellableToken('POLYGON', 'matic')?.symbol).toBe('POL');
    expect(sellableToken('SOLANA', 'USDC')).toBeUndefined();
    expect(() => quoteForCrypto({ ...base, tokenSymbol: 'USDC', cryptoAmount: '1', fiatCurrency: 'JPY' })).toThrow(/USD, EUR, GBP/);
    expect(() => quoteForCrypto({ ...base, tokenSymbol: 'USDC', cryptoAmount: '1.0000001' })).toThrow(/at most 6 decimals/);
  });
});
