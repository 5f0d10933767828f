import { describe, expect, it } from 'vitest';
import registryData from './providers.json' with { type: 'json' };
import { assetUnavailableReason, countryMatches, methodsIn, registryFileSchema, reviewedRegistry } from './facts';

describe('the reviewed provider registry', () => {
  it('validates, with its review date', () => {
    const registry = reviewedRegistry();
    expect(registry.reviewedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(registry.providers.map((p) => p.id).sort()).toEqual(['moonpay', 'transak']);
  });

  it('refuses a token the chain registry does not know, and a chain without its network fee', () => {
    const broken = structuredClone(registryData);
    broken.providers[0]!.assets.push({ chain: 'POLYGON', tokens: ['DOGE'] });
    expect(registryFileSchema.safeParse(broken).error?.issues[0]?.message).toMatch(/DOGE is not a registry token of POLYGON/);
    const noFee = structuredClone(registryData) as { providers: { networkFeeUsd: Record<string, string> }[] };
    delete noFee.providers[0]!.networkFeeUsd.SOLANA;
    expect(registryFileSchema.safeParse(noFee).error?.issues[0]?.message).toMatch(/network fee/);
  });

  it('applies country rules: all but some, or only some', () => {
    expect(countryMatches({ except: ['US'] }, 'DE')).toBe(true);
    expect(countryMatches({ except: ['US'] }, 'US')).toBe(false);
    expect(countryMatches({ only: ['GB'] }, 'GB')).toBe(true);
    expect(countryMatches({ only: ['GB'] }, 'US')).toBe(false);
    expect(countryMatches(undefined, 'US')).toBe(true);
  });

  it('offers bank transfer only where the provider has it, and keeps the provider’s order of methods', () => {
    const transak = reviewedRegistry().providers.find((p) => p.id === 'transak')!;
    expect(methodsIn(transak, 'US').map((m) => m.method)).toEqual(['card', 'apple_pay', 'google_pay']);
    expect(methodsIn(transak, 'DE').map((m) => m.method)).toEqual(['card', 'bank_transfer', 'apple_pay', 'google_pay']);
  });

  it('says why a provider cannot sell a token: chain, token, or country', () => {
    const moonpay = reviewedRegistry().providers.find((p) => p.id === 'moonpay')!;
    expect(assetUnavailableReason(moonpay, 'DE', 'DFK', 'JEWEL', 'Germany')).toBe('MoonPay does not support DFK Chain');
    expect(assetUnavailableReason(moonpay, 'DE', 'BSC', 'USDC', 'Germany')).toBe('MoonPay does not sell USDC on BNB Smart Chain');
    expect(assetUnavailableReason(moonpay, 'US', 'BSC', 'BNB', 'United States')).toBe(
      'MoonPay does not sell BNB on BNB Smart Chain in United States',
    );
    expect(assetUnavailableReason(moonpay, 'DE', 'BSC', 'BNB', 'Germany')).toBeUndefined();
    // Aliases resolve: MATIC is POL.
    expect(assetUnavailableReason(moonpay, 'US', 'POLYGON', 'MATIC', 'United States')).toBeUndefined();
  });
});
