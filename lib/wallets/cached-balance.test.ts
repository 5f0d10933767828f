import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { usdPrices } from '@/lib/db/schema';
import { resetEnvCache, rpcUrl } from '@/lib/env';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { newUser } from '@/test/accounts';
import { createWalletsForUser } from '@/lib/keyring/create-wallets';
import { BALANCE_TTL_MS, cachedBalance, forgetBalances, loadWalletHome, usdTotal, type HomeChain } from './cached-balance';

const POL = CHAINS.POLYGON.tokens[0]!;
const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
// The price lib/pricing/approximate-usd.test.ts stores too: the two files can share the row without a race.
const POL_PRICE = '0.2345';

beforeAll(async () => {
  await getDb()
    .insert(usdPrices)
    .values({ priceId: POL.priceId!, usd: POL_PRICE, fetchedAt: new Date() })
    .onConflictDoUpdate({ target: usdPrices.priceId, set: { usd: POL_PRICE, fetchedAt: new Date() } });
});

afterEach(() => {
  delete process.env.RPC_URL_BSC;
  resetEnvCache();
});

async function userWithWallet(): Promise<{ userId: string; evm: string }> {
  const userId = await newUser();
  const created = await createWalletsForUser(getDb(), userId);
  return { userId, evm: created.find((w) => w.family === 'evm')!.address };
}

const chainOf = (home: Awaited<ReturnType<typeof loadWalletHome>>, chain: ChainName) =>
  home.wallets.flatMap((w) => w.chains).find((c) => c.chain === chain)!;

describe('wallet Home', () => {
  it('lists each chain of each wallet, main networks first, with the native coin always and tokens held; USD and an exact total', async () => {
    const { userId, evm } = await userWithWallet();
    await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: evm as `0x${string}` });
    const home = await loadWalletHome(userId);

    expect(home.wallets.map((w) => w.family)).toEqual(['evm', 'solana']);
    const evmChains = home.wallets[0]!.chains;
    expect(evmChains.map((c) => c.chain)).toEqual(['POLYGON', 'BSC', 'DFK', 'POLYGON_AMOY', 'BSC_TESTNET', 'DFK_TESTNET']);
    const polygon = chainOf(home, 'POLYGON');
    expect(polygon.status).toBe('ok');
    expect(polygon.tokens.map((t) => [t.symbol, t.amount, t.usd])).toEqual([
      ['POL', '10000', '2345.00'],
      ['USDC', '1000000', '1000000.00'],
      ['USDT', '1000000', '1000000.00'],
    ]);
    // A test network: the native coin (even at zero), never a USD value.
    expect(chainOf(home, 'POLYGON_AMOY')).toMatchObject({ status: 'ok', isTestnet: true, tokens: [{ symbol: 'POL', amount: '0' }] });
    expect(chainOf(home, 'POLYGON_AMOY').tokens[0]!.usd).toBeUndefined();
    // No node for these in the tests: not connected, never zero.
    expect(chainOf(home, 'BSC')).toMatchObject({ status: 'not_connected', tokens: [] });
    expect(chainOf(home, 'SOLANA')).toMatchObject({ status: 'not_connected', tokens: [] });
    expect(home.totalUsd).toBe('2002345.00');
    expect(home.isTotalPartial).toBe(true);
  });

  it('a token with no balance is left out; a chain whose node does not answer is unreachable', async () => {
    process.env.RPC_URL_BSC = 'http://127.0.0.1:9';
    resetEnvCache();
    const { userId } = await userWithWallet();
    const home = await loadWalletHome(userId);
    expect(chainOf(home, 'POLYGON').tokens.map((t) => [t.symbol, t.amount, t.usd])).toEqual([['POL', '0', '0.00']]);
    expect(chainOf(home, 'BSC')).toMatchObject({ status: 'unreachable', tokens: [] });
  });

  it('the total is the exact sum of the values shown, in cents, and says when it leaves tokens out', () => {
    const chain = (overrides: Partial<HomeChain>): HomeChain => ({
      chain: 'POLYGON',
      displayName: 'Polygon',
      isTestnet: false,
      status: 'ok',
      tokens: [],
      ...overrides,
    });
    const token = (baseUnits: bigint | null, usd?: string) => ({
      symbol: 'X',
      name: 'X',
      tokenAddress: '0x',
      isNative: false,
      baseUnits,
      amount: baseUnits === null ? null : String(baseUnits),
      ...(usd ? { usd } : {}),
    });
    // Beyond a float's exact integers (2^53 cents), and sums floats get wrong (0.1 + 0.2).
    const big = chain({ tokens: [token(1n, '90071992547409.93'), token(1n, '0.10'), token(1n, '0.20')] });
    expect(usdTotal([big])).toEqual({ totalUsd: '90071992547410.23', isTotalPartial: false });
    // A held token without a price makes it partial; one without a balance does not.
    expect(usdTotal([big, chain({ tokens: [token(0n)] })]).isTotalPartial).toBe(false);
    expect(usdTotal([big, chain({ tokens: [token(5n)] })])).toEqual({ totalUsd: '90071992547410.23', isTotalPartial: true });
    expect(usdTotal([big, chain({ tokens: [token(null)] })]).isTotalPartial).toBe(true);
    expect(usdTotal([big, chain({ status: 'unreachable' })]).isTotalPartial).toBe(true);
    // Test networks never count.
    expect(usdTotal([chain({ isTestnet: true, tokens: [token(1n, '5.00')] })])).toEqual({ totalUsd: '0.00', isTotalPartial: false });
  });

  it('caches each balance briefly and shares the read in flight; a transfer makes it read again', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    let reads = 0;
    let clock = 1_000_000;
    const read = async (_chain: ChainName, _token: TokenInfo, _address: string) => {
      reads++;
      return 42n;
    };
    const options = { read, now: () => clock };
    const storm = await Promise.all(Array.from({ length: 20 }, () => cachedBalance('POLYGON', USDC, address, options)));
    expect(storm.every((b) => b === 42n)).toBe(true);
    expect(reads).toBe(1);
    clock += BALANCE_TTL_MS - 1;
    await cachedBalance('POLYGON', USDC, address.toLowerCase(), options);
    expect(reads).toBe(1);
    clock += 2;
    await cachedBalance('POLYGON', USDC, address, options);
    expect(reads).toBe(2);
    forgetBalances('POLYGON', address);
    await cachedBalance('POLYGON', USDC, address, options);
    expect(reads).toBe(3);
    // Per token and chain.
    await cachedBalance('POLYGON', POL, address, options);
    await cachedBalance('POLYGON_AMOY', POL, address, options);
    expect(reads).toBe(5);
  });

  it('a failed read is retried after 5 s, not 15', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    let reads = 0;
    let clock = 1_000_000;
    const options = { now: () => clock, read: async () => (reads++, undefined) };
    expect(await cachedBalance('POLYGON', USDC, address, options)).toBeUndefined();
    clock += 4_000;
    await cachedBalance('POLYGON', USDC, address, options);
    expect(reads).toBe(1);
    clock += 1_500;
    await cachedBalance('POLYGON', USDC, address, options);
    expect(reads).toBe(2);
  });
});
