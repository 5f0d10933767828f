import { afterEach, describe, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { explorerLink } from './explorer-link';

const TX = '0x8f1d3cb4e3c9f6b54b9c1a3f0a2e0c7b1d6f3e9a4b2c8d7e6f5a4b3c2d1e0f9a';
const saved = process.env.LOCAL_CHAINS;

afterEach(() => {
  if (saved === undefined) delete process.env.LOCAL_CHAINS;
  else process.env.LOCAL_CHAINS = saved;
  resetEnvCache();
});

function withLocalChains(value: string) {
  process.env.LOCAL_CHAINS = value;
  resetEnvCache();
}

describe('explorerLink ("View transaction")', () => {
  it("links to the chain's explorer when a real network carries the transaction", () => {
    withLocalChains('');
    expect(explorerLink('POLYGON', TX)).toBe(`https://polygonscan.com/tx/${TX}`);
    expect(explorerLink('SOLANA_DEVNET', 'sig')).toBe('https://explorer.solana.com/tx/sig?cluster=devnet');
  });

  it('gives no link where a local node stands in for the chain (polygonscan would not know the transaction)', () => {
    withLocalChains('POLYGON');
    expect(explorerLink('POLYGON', TX)).toBeUndefined();
  });

  it('gives no link without a transaction, for a balance credit, a chain without explorer or an unknown chain', () => {
    withLocalChains('');
    expect(explorerLink('POLYGON', null)).toBeUndefined();
    expect(explorerLink('POLYGON', 'balance:0xabc:0xdef')).toBeUndefined();
    expect(explorerLink('DFK_TESTNET', TX)).toBeUndefined();
    expect(explorerLink('NOPE', TX)).toBeUndefined();
  });
});
