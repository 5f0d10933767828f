import { describe, expect, it } from 'vitest';
import { CHAINS, CHAIN_NAMES, explorerTxUrl, findToken, isValidAddress, tokenHasSymbol } from './registry';

describe('chain registry', () => {
  it("has the spec's chains and a test network for each", () => {
    for (const name of ['POLYGON', 'SOLANA', 'DFK', 'BSC'] as const) {
      expect(CHAIN_NAMES).toContain(name);
      const testnet = CHAINS[name].testnet!;
      expect(CHAINS[testnet].isTestnet).toBe(true);
      expect(CHAINS[testnet].family).toBe(CHAINS[name].family);
    }
  });

  it('every token address is valid for its chain family, and every chain has exactly one native token', () => {
    for (const chain of Object.values(CHAINS)) {
      for (const token of chain.tokens) expect(isValidAddress(chain.family, token.address), `${chain.name} ${token.symbol}`).toBe(true);
      expect(chain.tokens.filter((t) => t.isNative)).toHaveLength(1);
    }
  });

  it('test networks carry only their native token (spec: test charges use native tokens)', () => {
    for (const chain of Object.values(CHAINS).filter((c) => c.isTestnet)) {
      expect(chain.tokens.every((t) => t.isNative)).toBe(true);
    }
  });

  it('finds EVM tokens case-insensitively and Solana mints exactly', () => {
    expect(findToken(CHAINS.POLYGON, '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359')?.symbol).toBe('USDC');
    expect(findToken(CHAINS.SOLANA, 'So11111111111111111111111111111111111111112')?.symbol).toBe('SOL');
    expect(findToken(CHAINS.SOLANA, 'so11111111111111111111111111111111111111112')).toBeUndefined();
  });

  it('matches symbols case-insensitively with aliases', () => {
    const pol = CHAINS.POLYGON.tokens[0]!;
    expect(tokenHasSymbol(pol, 'pol')).toBe(true);
    expect(tokenHasSymbol(pol, 'MATIC')).toBe(true);
    expect(tokenHasSymbol(pol, 'ETH')).toBe(false);
  });
});

describe('explorer links', () => {
  it('link EVM transactions and Solana signatures; a balance credit (no transaction) gets none', () => {
    const hash = `0x${'a1'.repeat(32)}`;
    expect(explorerTxUrl(CHAINS.POLYGON, hash)).toBe(`https://polygonscan.com/tx/${hash}`);
    expect(explorerTxUrl(CHAINS.SOLANA_DEVNET, '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp')).toBe(
      'https://explorer.solana.com/tx/5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp?cluster=devnet',
    );
    expect(explorerTxUrl(CHAINS.POLYGON, `balance:${hash}:0x70997970C51812dc3A010C7d01b50e0d17dc79C8`)).toBeUndefined();
  });
});
