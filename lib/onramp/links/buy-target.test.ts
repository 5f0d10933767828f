import { describe, expect, it } from 'vitest';
import { buyTarget, walletLinkToBuy } from './buy-target';

const EVM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const SOL = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const own = [
  { family: 'evm' as const, address: EVM },
  { family: 'solana' as const, address: SOL },
];
const target = (query: string) => new URL(buyTarget(new URLSearchParams(query), own), 'http://x');

describe('Buy → on-ramp', () => {
  it('passes the four on-ramp parameters on exactly, and nothing else', () => {
    const url = target('chain=POLYGON&token=USDC&wallet=0xabc&wallet_label=Demo%20Game%20Studio&utm_source=mail');
    expect(url.pathname).toBe('/onramp');
    expect([...url.searchParams]).toEqual([
      ['chain', 'POLYGON'],
      ['token', 'USDC'],
      ['wallet', '0xabc'],
      ['wallet_label', 'Demo Game Studio'],
    ]);
  });

  it("adds the user's own wallet of the chain's family when the link names none", () => {
    expect(target('chain=polygon&token=USDC').searchParams.get('wallet')).toBe(EVM);
    expect(target('chain=SOLANA&token=USDC').searchParams.get('wallet')).toBe(SOL);
    expect(target('chain=BSC_TESTNET').searchParams.get('wallet')).toBe(EVM);
  });

  it('adds no wallet without a known chain: the on-ramp then asks, and reports an unknown chain itself', () => {
    expect(target('token=USDC').searchParams.has('wallet')).toBe(false);
    expect(target('chain=ETHEREUM').toString()).toBe('http://x/onramp?chain=ETHEREUM');
    expect(target('').toString()).toBe('http://x/onramp');
  });
});

describe('/wallet with on-ramp parameters → Buy', () => {
  it('keeps exactly the four parameters (first of each, blanks included), in the spec order', () => {
    const href = walletLinkToBuy({
      utm_source: 'mail',
      wallet_label: 'Demo Game Studio',
      wallet: '0xabc',
      token: ['USDC', 'POL'],
      chain: '',
    });
    expect(href).toBe('/wallet/buy?chain=&token=USDC&wallet=0xabc&wallet_label=Demo+Game+Studio');
  });

  it('any one parameter is enough; without one /wallet is the wallet home', () => {
    expect(walletLinkToBuy({ chain: 'POLYGON' })).toBe('/wallet/buy?chain=POLYGON');
    expect(walletLinkToBuy({})).toBeUndefined();
    expect(walletLinkToBuy({ pin: 'set' })).toBeUndefined();
  });
});
