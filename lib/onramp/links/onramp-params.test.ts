import { describe, expect, it } from 'vitest';
import { cleanWalletLabel, onrampHref, parseOnrampParams, ONRAMP_CHAINS, WALLET_LABEL_MAX_LENGTH } from './onramp-params';

const EVM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const SOLANA = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

describe('on-ramp link parameters', () => {
  it('chain and token together restrict the page to that chain with that token preselected', () => {
    const params = parseOnrampParams({ chain: 'POLYGON', token: 'USDC' });
    expect(params).toMatchObject({ chains: ['POLYGON'], defaultChain: 'POLYGON', defaultToken: 'USDC', notices: [] });
  });

  it('accepts lower case and token aliases, and keeps the canonical symbol', () => {
    expect(parseOnrampParams({ chain: 'polygon', token: 'matic' })).toMatchObject({ chains: ['POLYGON'], defaultToken: 'POL' });
  });

  it('without parameters every main network is offered, test networks never', () => {
    const params = parseOnrampParams({});
    expect(params.chains).toEqual(ONRAMP_CHAINS);
    expect(params.chains).not.toContain('POLYGON_AMOY');
    expect(params).toMatchObject({ defaultChain: 'POLYGON', defaultToken: 'USDC', notices: [] });
  });

  it.each([
    [{ chain: 'ETHEREUM', token: 'USDC' }, 'There is no chain “ETHEREUM” to buy on here'],
    [{ chain: 'POLYGON', token: 'DOGE' }, 'DOGE is not a token on Polygon'],
    [{ chain: 'POLYGON_AMOY', token: 'POL' }, 'Polygon Amoy (test) is a test network'],
    [{ token: 'DOGE' }, 'DOGE cannot be bought here'],
  ])('an unknown chain or token: a message and the unrestricted page (%o)', (query, message) => {
    const params = parseOnrampParams(query);
    expect(params.chains).toEqual(ONRAMP_CHAINS);
    expect(params.notices).toEqual([expect.stringContaining(message)]);
  });

  it('a token alone preselects the first chain that has it, without restricting', () => {
    expect(parseOnrampParams({ token: 'JEWEL' })).toMatchObject({ chains: ONRAMP_CHAINS, defaultChain: 'DFK', defaultToken: 'JEWEL' });
  });

  it('echoes at most a bounded part of a bad value', () => {
    const [notice] = parseOnrampParams({ chain: 'X'.repeat(500) }).notices;
    expect(notice!.length).toBeLessThan(150);
  });

  it('a valid wallet becomes the destination (checksummed), with its label', () => {
    const params = parseOnrampParams({ chain: 'POLYGON', token: 'USDC', wallet: EVM.toLowerCase(), wallet_label: 'Acme Games' });
    expect(params.wallet).toEqual({ address: EVM, family: 'evm', label: 'Acme Games', rawLabel: 'Acme Games' });
    expect(params.walletError).toBeUndefined();
  });

  it.each([
    [{ chain: 'POLYGON', token: 'USDC', wallet: '0x1234' }, '“0x1234” is not a valid Polygon wallet address'],
    [{ chain: 'POLYGON', token: 'USDC', wallet: SOLANA }, 'is not a valid Polygon wallet address'],
    [{ chain: 'SOLANA', token: 'SOL', wallet: EVM }, 'is not a valid Solana wallet address'],
    // EIP-55: a mixed-case address with a wrong checksum is a typo, not an address.
    [{ chain: 'POLYGON', token: 'USDC', wallet: EVM.replace('C51812dc', 'c51812dc') }, 'is not a valid Polygon wallet address'],
    [{ wallet: 'not-an-address' }, 'is not a valid wallet address on any chain offered here'],
  ])('an invalid wallet for the chain is refused with a message naming the chain (%o)', (query, message) => {
    const params = parseOnrampParams(query);
    expect(params.wallet).toBeUndefined();
    expect(params.walletError).toContain(message);
  });

  it('a wallet without a chain offers only the chains of its family', () => {
    expect(parseOnrampParams({ wallet: SOLANA })).toMatchObject({ chains: ['SOLANA'], defaultChain: 'SOLANA', defaultToken: 'USDC' });
    expect(parseOnrampParams({ wallet: EVM, token: 'SOL' }).chains).toEqual(['POLYGON', 'BSC', 'DFK']);
    expect(parseOnrampParams({ wallet: EVM, token: 'SOL' })).toMatchObject({ defaultChain: 'POLYGON', defaultToken: 'USDC' });
  });

  it('takes the first of repeated parameters', () => {
    expect(parseOnrampParams({ chain: ['BSC', 'POLYGON'], token: 'BNB' })).toMatchObject({ chains: ['BSC'], defaultToken: 'BNB' });
  });
});

describe('wallet label', () => {
  it('is display text only: control and bidi override characters removed, whitespace collapsed, bounded', () => {
    expect(cleanWalletLabel('  Acme\u202E Games\n\t Ltd ')).toBe('Acme Games Ltd');
    expect(cleanWalletLabel('<script>alert(1)</script>')).toBe('<script>alert(1)</script>');
    expect(cleanWalletLabel('\u0000\u200f')).toBeNull();
    expect(cleanWalletLabel(undefined)).toBeNull();
    const long = cleanWalletLabel('🎮'.repeat(200))!;
    expect([...long]).toHaveLength(WALLET_LABEL_MAX_LENGTH);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('onrampHref', () => {
  it('rebuilds the link with only its four parameters, encoded', () => {
    expect(onrampHref({ chain: 'POLYGON', token: 'USDC', wallet: EVM, walletLabel: 'Acme & Co' })).toBe(
      `/onramp?chain=POLYGON&token=USDC&wallet=${EVM}&wallet_label=Acme+%26+Co`,
    );
    expect(onrampHref({ walletLabel: 'orphan label' })).toBe('/onramp');
  });
});
