import { describe, expect, it } from 'vitest';
import { CHAIN_NAMES, CHAINS } from '@/lib/chains/registry';
import {
  assetForMoonPayCode,
  assetForTransakCode,
  isAssetSupported,
  MOONPAY_ASSETS,
  moonPayCurrencyCode,
  TRANSAK_ASSETS,
  transakAssetCode,
  type AssetEntry,
} from './currency-codes';

const TABLES = { moonpay: MOONPAY_ASSETS, transak: TRANSAK_ASSETS } as const;

describe('provider currency codes', () => {
  it.each(Object.entries(TABLES))('%s: has exactly one entry per registry token, and nothing else', (_provider, table) => {
    for (const chain of CHAIN_NAMES) {
      const registrySymbols = CHAINS[chain].tokens.map((token) => token.symbol).sort();
      expect(Object.keys(table[chain]).sort(), chain).toEqual(registrySymbols);
    }
  });

  it.each(Object.entries(TABLES))('%s: offers nothing on test networks, and every entry says why or where from', (_provider, table) => {
    for (const chain of CHAIN_NAMES) {
      for (const entry of Object.values(table[chain]) as AssetEntry<unknown>[]) {
        if (CHAINS[chain].isTestnet) expect(entry.status).toBe('unsupported');
        if (entry.status === 'unsupported') expect(entry.reason).toBeTruthy();
        if (entry.status === 'unverified') expect(entry.note).toBeTruthy();
      }
    }
  });

  it('gives codes only for supported entries (unverified ones are never offered)', () => {
    expect(moonPayCurrencyCode('POLYGON', 'USDC')).toBe('usdc_polygon');
    expect(moonPayCurrencyCode('POLYGON', 'MATIC')).toBe('pol_polygon');
    expect(moonPayCurrencyCode('SOLANA', 'USDC')).toBe('usdc_sol');
    expect(moonPayCurrencyCode('BSC', 'BNB')).toBe('bnb_bsc');
    expect(moonPayCurrencyCode('BSC', 'USDT')).toBeUndefined();
    expect(moonPayCurrencyCode('DFK', 'JEWEL')).toBeUndefined();
    expect(moonPayCurrencyCode('POLYGON', 'DOGE')).toBeUndefined();
    expect(transakAssetCode('POLYGON', 'usdt')).toEqual({ network: 'polygon', cryptoCurrencyCode: 'USDT' });
    expect(transakAssetCode('SOLANA', 'SOL')).toBeUndefined();
    expect(isAssetSupported('moonpay', 'SOLANA', 'SOL')).toBe(true);
    expect(isAssetSupported('transak', 'POLYGON_AMOY', 'POL')).toBe(false);
  });

  it('maps webhook codes back to our main-network chain and token', () => {
    expect(assetForMoonPayCode('USDC_POLYGON')).toEqual({ chain: 'POLYGON', tokenSymbol: 'USDC' });
    expect(assetForMoonPayCode('sol')).toEqual({ chain: 'SOLANA', tokenSymbol: 'SOL' });
    expect(assetForMoonPayCode('eth')).toBeUndefined();
    expect(assetForMoonPayCode('usdt_bsc')).toBeUndefined();
    expect(assetForTransakCode('Polygon', 'usdc')).toEqual({ chain: 'POLYGON', tokenSymbol: 'USDC' });
    expect(assetForTransakCode('ethereum', 'ETH')).toBeUndefined();
  });
});
