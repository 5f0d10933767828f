import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicClient, createWalletClient, erc20Abi, http, parseEther } from 'viem';
import { describe, expect, it } from 'vitest';
import { CHAINS } from '@/lib/chains/registry';
import { rpcUrl } from '@/lib/env';
import { DEMO_TOKEN_FUNDING, localDemoPayerAccount, provisionLocalChain, startLocalChain } from './local-chain';

const POLYGON_USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;

describe('local chain (anvil)', () => {
  it("runs with the chain's real chain id and has the demo ERC-20 tokens at their registry addresses", async () => {
    const client = createPublicClient({ transport: http(rpcUrl('POLYGON')!) });
    expect(await client.getChainId()).toBe(137);
    const read = (functionName: 'decimals' | 'symbol') =>
      client.readContract({ address: POLYGON_USDC.address as `0x${string}`, abi: erc20Abi, functionName });
    expect(await read('decimals')).toBe(6);
    expect(await read('symbol')).toBe('USDC');
  });

  it('funds the demo payer wallet with native coin and every demo token', async () => {
    const client = createPublicClient({ transport: http(rpcUrl('POLYGON')!) });
    const balance = await client.readContract({
      address: POLYGON_USDC.address as `0x${string}`,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [localDemoPayerAccount.address],
    });
    expect(balance).toBeGreaterThanOrEqual(DEMO_TOKEN_FUNDING * 10n ** 6n - 10n ** 12n);
    expect(await client.getBalance({ address: localDemoPayerAccount.address })).toBeGreaterThan(parseEther('1000'));
  });

  it('keeps its state across a restart (state file in the data directory)', async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'chargeport-anvil-'));
    try {
      const first = await startLocalChain({ chain: 'BSC', stateDir });
      await provisionLocalChain({ chain: 'BSC', url: first.url });
      const usdt = CHAINS.BSC.tokens.find((t) => t.symbol === 'USDT')!.address as `0x${string}`;
      const recipient = '0x000000000000000000000000000000000000bEEF';
      const wallet = createWalletClient({ account: localDemoPayerAccount, transport: http(first.url) });
      const client = createPublicClient({ transport: http(first.url) });
      const hash = await wallet.writeContract({
        address: usdt,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [recipient, 12345n],
        chain: undefined,
      });
      await client.waitForTransactionReceipt({ hash });
      await first.stop();

      const second = await startLocalChain({ chain: 'BSC', stateDir });
      try {
        await provisionLocalChain({ chain: 'BSC', url: second.url });
        const again = createPublicClient({ transport: http(second.url) });
        expect(await again.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [recipient] })).toBe(12345n);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
