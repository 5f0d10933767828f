import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  http,
  maxUint256,
  parseUnits,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS } from '@/lib/chains/registry';
import { resetEnvCache } from '@/lib/env';
import {
  fundLocalWallet,
  localDemoPayerAccount,
  provisionLocalChain,
  startLocalChain,
  type LocalChainNode,
} from '@/scripts/stack/local-chain';
import { getAmountIn, getAmountOut, maxInputWithSlippage } from './constant-product';
import { demoSwapFactoryAbi, demoSwapPairAbi, LOCAL_POOL_SEED, LOCAL_SWAP_ADDRESSES } from './provision-local-swap';
import { configuredSwapPairs } from './swap-pairs';
import { buildExactOutSwap, quoteExactOut, swapDeadline, uniswapV2Router02Abi } from './uniswap-v2-router';

// A private BSC node with the demo pool: these tests move its price.
let node: LocalChainNode;
let client: PublicClient;
const USDC = CHAINS.BSC.tokens.find((t) => t.symbol === 'USDC')!.address as Address;
const { pzp: PZP, router: ROUTER, factory: FACTORY } = LOCAL_SWAP_ADDRESSES;
const trader = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  node = await startLocalChain({ chain: 'BSC' });
  await provisionLocalChain({ chain: 'BSC', url: node.url });
  process.env.RPC_URL_BSC = node.url;
  process.env.LOCAL_CHAINS = 'BSC,POLYGON,POLYGON_AMOY';
  resetEnvCache();
  client = createPublicClient({ transport: http(node.url) });
  await fundLocalWallet({ chain: 'BSC', url: node.url, address: trader.address });
});

afterAll(async () => {
  await node.stop();
});

/** Reserves as (USDC, PZP), whatever the pair's token order. */
async function reserves(): Promise<{ usdc: bigint; pzp: bigint }> {
  const pair = (await client.readContract({
    address: FACTORY,
    abi: demoSwapFactoryAbi,
    functionName: 'getPair',
    args: [USDC, PZP],
  })) as Address;
  const [r0, r1] = (await client.readContract({ address: pair, abi: demoSwapPairAbi, functionName: 'getReserves' })) as [
    bigint,
    bigint,
    number,
  ];
  const token0 = (await client.readContract({ address: pair, abi: demoSwapPairAbi, functionName: 'token0' })) as Address;
  return token0.toLowerCase() === USDC.toLowerCase() ? { usdc: r0, pzp: r1 } : { usdc: r1, pzp: r0 };
}

const balanceOf = (token: Address, owner: Address) =>
  client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });

async function send(account: ReturnType<typeof privateKeyToAccount>, call: { to: Address; data: Hex; gas?: bigint }) {
  const wallet = createWalletClient({ account, transport: http(node.url) });
  const hash = await wallet.sendTransaction({ ...call, chain: null });
  return client.waitForTransactionReceipt({ hash });
}

describe('the local USDC/PZP pool and its Router02', () => {
  it('is provisioned once at fixed addresses with the seed liquidity, and the swap pair resolves to it', async () => {
    expect(await reserves()).toEqual({ usdc: LOCAL_POOL_SEED.usdc, pzp: LOCAL_POOL_SEED.pzp });
    await provisionLocalChain({ chain: 'BSC', url: node.url }); // a restart: nothing added twice
    expect(await reserves()).toEqual({ usdc: LOCAL_POOL_SEED.usdc, pzp: LOCAL_POOL_SEED.pzp });
    expect(await client.readContract({ address: ROUTER, abi: uniswapV2Router02Abi, functionName: 'factory' })).toBe(FACTORY);
    expect(await client.readContract({ address: PZP, abi: erc20Abi, functionName: 'decimals' })).toBe(18);
    expect(await balanceOf(PZP, localDemoPayerAccount.address)).toBeGreaterThan(0n);
    const [pair] = configuredSwapPairs();
    expect(pair).toMatchObject({
      chain: 'BSC',
      router: ROUTER,
      target: { symbol: 'PZP', address: PZP, decimals: 18 },
      funding: { symbol: 'USDC', address: USDC },
    });
  });

  it('quotes getAmountsIn / getAmountsOut exactly as the TypeScript reference, both directions', async () => {
    const r = await reserves();
    for (const amount of [1n, 12_345n, parseUnits('0.01', 18), parseUnits('100', 18), parseUnits('25000', 18), parseUnits('999999', 18)]) {
      if (amount < r.pzp) {
        const [usdcIn] = await client.readContract({
          address: ROUTER,
          abi: uniswapV2Router02Abi,
          functionName: 'getAmountsIn',
          args: [amount, [USDC, PZP]],
        });
        expect(usdcIn, `USDC in for ${amount} PZP`).toBe(getAmountIn(amount, r.usdc, r.pzp));
      }
      const [, pzpOut] = await client.readContract({
        address: ROUTER,
        abi: uniswapV2Router02Abi,
        functionName: 'getAmountsOut',
        args: [amount, [USDC, PZP]],
      });
      expect(pzpOut, `PZP out for ${amount} USDC`).toBe(getAmountOut(amount, r.usdc, r.pzp));
      const [, usdcOut] = await client.readContract({
        address: ROUTER,
        abi: uniswapV2Router02Abi,
        functionName: 'getAmountsOut',
        args: [amount, [PZP, USDC]],
      });
      expect(usdcOut, `USDC out for ${amount} PZP`).toBe(getAmountOut(amount, r.pzp, r.usdc));
    }
  });

  it('swapTokensForExactTokens delivers exactly amountOut to `to`, takes exactly the quoted input, and moves the reserves as x·y=k with the fee says', async () => {
    const before = await reserves();
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const amountOut = parseUnits('1234.5', 18);
    const quote = await quoteExactOut(client, { router: ROUTER, path: [USDC, PZP], amountOut, slippageBps: 100 });
    expect(quote.amountIn).toBe(getAmountIn(amountOut, before.usdc, before.pzp));
    expect(quote.amountInMax).toBe(maxInputWithSlippage(quote.amountIn, 100));

    const calls = await buildExactOutSwap(client, {
      from: trader.address,
      router: ROUTER,
      path: [USDC, PZP],
      amountOut,
      amountInMax: quote.amountInMax,
      recipient,
      deadline: swapDeadline(),
    });
    expect(calls.approve).toBeDefined();
    const usdcBefore = await balanceOf(USDC, trader.address);
    await send(trader, calls.approve!);
    expect((await send(trader, calls.swap)).status).toBe('success');

    expect(await balanceOf(PZP, recipient)).toBe(amountOut);
    expect(usdcBefore - (await balanceOf(USDC, trader.address))).toBe(quote.amountIn);
    expect(await reserves()).toEqual({ usdc: before.usdc + quote.amountIn, pzp: before.pzp - amountOut });
    // The approval was exactly the maximum; what the swap did not take is all that is left of it.
    expect(await client.readContract({ address: USDC, abi: erc20Abi, functionName: 'allowance', args: [trader.address, ROUTER] })).toBe(
      quote.amountInMax - quote.amountIn,
    );
  });

  it('swapExactTokensForTokens pays out getAmountOut of the reference', async () => {
    const before = await reserves();
    const amountIn = parseUnits('777', 18);
    const wallet = createWalletClient({ account: trader, transport: http(node.url) });
    await client.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: PZP, abi: erc20Abi, functionName: 'approve', args: [ROUTER, maxUint256], chain: null }),
    });
    await fundPzp(trader.address, amountIn);
    const usdcBefore = await balanceOf(USDC, trader.address);
    const hash = await wallet.writeContract({
      address: ROUTER,
      abi: uniswapV2Router02Abi,
      functionName: 'swapExactTokensForTokens',
      args: [amountIn, 0n, [PZP, USDC], trader.address, swapDeadline()],
      chain: null,
    });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    const out = getAmountOut(amountIn, before.pzp, before.usdc);
    expect((await balanceOf(USDC, trader.address)) - usdcBefore).toBe(out);
    expect(await reserves()).toEqual({ usdc: before.usdc - out, pzp: before.pzp + amountIn });
  });

  it('reverts when the price moved past amountInMax, or after the deadline: nothing moves', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const amountOut = parseUnits('10', 18);
    const quote = await quoteExactOut(client, { router: ROUTER, path: [USDC, PZP], amountOut, slippageBps: 0 });
    const tooLow = await buildExactOutSwap(client, {
      from: trader.address,
      router: ROUTER,
      path: [USDC, PZP],
      amountOut,
      amountInMax: quote.amountIn - 1n,
      recipient,
      deadline: swapDeadline(),
    });
    if (tooLow.approve) await send(trader, tooLow.approve);
    const usdcBefore = await balanceOf(USDC, trader.address);
    expect((await send(trader, { ...tooLow.swap, gas: 300_000n })).status).toBe('reverted');
    const expired = await buildExactOutSwap(client, {
      from: trader.address,
      router: ROUTER,
      path: [USDC, PZP],
      amountOut,
      amountInMax: quote.amountInMax,
      recipient,
      deadline: swapDeadline(new Date(Date.now() - 3_600_000)),
    });
    if (expired.approve) await send(trader, expired.approve);
    expect((await send(trader, { ...expired.swap, gas: 300_000n })).status).toBe('reverted');
    expect(await balanceOf(PZP, recipient)).toBe(0n);
    expect(await balanceOf(USDC, trader.address)).toBe(usdcBefore);
  });
});

async function fundPzp(to: Address, amount: bigint): Promise<void> {
  const wallet = createWalletClient({ account: localDemoPayerAccount, transport: http(node.url) });
  await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: PZP, abi: erc20Abi, functionName: 'transfer', args: [to, amount], chain: null }),
  });
}
