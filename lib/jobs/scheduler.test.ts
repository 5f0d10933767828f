import { createServer, connect, type Socket } from 'node:net';
import { eq } from 'drizzle-orm';
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits, type PublicClient } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { outsideTransactions } from '@/lib/chains/clients';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, payments } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { localDemoPayerAccount, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { pollChain } from '@/lib/payments/poll-chain';
import { createTestCharge, newMerchant } from '@/test/fixtures';
import { subscribeToNewBlocks } from './new-blocks';
import { startScheduler, stopScheduler, wakeTask } from './scheduler';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(20);
  }
  return Date.now() - started;
}

afterEach(() => stopScheduler());

describe('scheduler wake', () => {
  it('runs a task at once instead of at its interval, and wakes during a run coalesce into one more run', async () => {
    let runs = 0;
    let release: () => void = () => {};
    startScheduler([
      {
        name: 'slow',
        everyMs: 60_000,
        run: async () => {
          runs += 1;
          await new Promise<void>((resolve) => (release = resolve));
        },
      },
    ]);
    expect(runs).toBe(0);
    expect(wakeTask('slow')).toBe(true);
    await until(() => runs === 1, 1_000);
    // Five wakes while it runs: one more run after it, not five.
    for (let i = 0; i < 5; i++) wakeTask('slow');
    release();
    await until(() => runs === 2, 1_000);
    release();
    await sleep(100);
    expect(runs).toBe(2);
    expect(wakeTask('no-such-task')).toBe(false);
  });
});

describe('new-block subscription', () => {
  let node: LocalChainNode;
  let client: PublicClient;
  const USDT = CHAINS.BSC.tokens.find((t) => t.symbol === 'USDT')!;

  beforeAll(async () => {
    node = await startLocalChain({ chain: 'BSC' });
    await provisionLocalChain({ chain: 'BSC', url: node.url });
    client = createPublicClient({ transport: outsideTransactions(http(node.url)) });
    process.env.RPC_URL_BSC = node.url;
    process.env.LOCAL_CHAINS = 'BSC,POLYGON,POLYGON_AMOY';
    resetEnvCache();
  });

  afterAll(async () => {
    stopScheduler();
    await node.stop();
  });

  it("wakes the chain's watcher on a new block: a payment is recorded long before the 60 s poll", async () => {
    const merchant = await newMerchant();
    const { chargeId, deposit } = await createTestCharge({
      apiKey: merchant.liveKey,
      body: { chargeData: { symbol: 'USDT', chain: 'BSC', tokenAddress: USDT.address, amount: '2' } },
    });
    await pollChain('BSC', { client }); // the watcher's cursor at the head

    let runs = 0;
    startScheduler([
      {
        name: 'watch-BSC',
        everyMs: 60_000,
        run: async () => {
          runs += 1;
          return (await pollChain('BSC'))?.recorded ?? 0;
        },
      },
    ]);
    // Mine empty blocks until the subscription is up (its first block wakes the watcher).
    await until(async () => {
      await client.request({ method: 'evm_mine' as never });
      await sleep(50);
      return runs > 0;
    }, 10_000);

    const sent = Date.now();
    const hash = await createWalletClient({ account: localDemoPayerAccount, transport: http(node.url) }).writeContract({
      address: USDT.address as `0x${string}`,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [deposit.address as `0x${string}`, parseUnits('2', USDT.decimals)],
      chain: null,
    });
    await until(async () => (await getDb().select().from(payments).where(eq(payments.txHash, hash))).length === 1, 5_000);
    // A new-block subscription, not polling (viem's own would take up to 4 s, the task's 60 s).
    expect(Date.now() - sent).toBeLessThan(2_000);
    await until(async () => (await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status === 'succeeded', 5_000);
  });

  it('holds one subscription per watched chain per process, however often the jobs are started; none without a watcher', async () => {
    // Counts WebSocket connections to the node (a TCP relay in front of its port).
    const upstream = new URL(node.url);
    let connections = 0;
    const relay = createServer((socket) => {
      connections += 1;
      const toNode = connect(Number(upstream.port), upstream.hostname);
      socket.pipe(toNode).pipe(socket);
      socket.on('error', () => toNode.destroy());
      toNode.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    process.env.RPC_WS_URL_BSC = `ws://127.0.0.1:${(relay.address() as { port: number }).port}`;
    resetEnvCache();
    try {
      // A process without the chain's watcher (a web process with RUN_JOBS_IN_WEB=false runs no scheduler at all).
      startScheduler([{ name: 'index-incoming-BSC', everyMs: 60_000, run: async () => 0 }]);
      for (let i = 0; i < 5; i++) {
        await client.request({ method: 'evm_mine' as never });
        await sleep(50);
      }
      expect(connections).toBe(0);
      stopScheduler();

      let runs = 0;
      const tasks = [
        { name: 'watch-BSC', everyMs: 60_000, run: async () => (runs += 1) },
        { name: 'index-incoming-BSC', everyMs: 60_000, run: async () => 0 },
      ];
      // Started twice, as a second import of the jobs module would: still one subscription.
      startScheduler(tasks);
      startScheduler(tasks);
      await until(async () => {
        await client.request({ method: 'evm_mine' as never });
        await sleep(50);
        return runs > 0;
      }, 10_000);
      for (let i = 0; i < 3; i++) {
        await client.request({ method: 'evm_mine' as never });
        await sleep(50);
      }
      expect(connections).toBe(1);
    } finally {
      stopScheduler();
      relay.close();
      delete process.env.RPC_WS_URL_BSC;
      resetEnvCache();
    }
  });

  it('reopens a dropped subscription with back-off, one connection at a time, and blocks wake it again', async () => {
    // A TCP relay in front of the node's WebSocket port: dropping its sockets drops the subscription.
    const upstream = new URL(node.url);
    const open = new Set<Socket>();
    let connections = 0;
    let mostAtOnce = 0;
    const relay = createServer((socket) => {
      connections += 1;
      const toNode = connect(Number(upstream.port), upstream.hostname);
      socket.pipe(toNode).pipe(socket);
      open.add(socket);
      mostAtOnce = Math.max(mostAtOnce, open.size);
      const drop = () => {
        open.delete(socket);
        socket.destroy();
        toNode.destroy();
      };
      socket.on('close', drop).on('error', drop);
      toNode.on('close', drop).on('error', drop);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    process.env.RPC_WS_URL_BSC = `ws://127.0.0.1:${(relay.address() as { port: number }).port}`;
    resetEnvCache();
    const heard: bigint[] = [];
    const subscriptions = subscribeToNewBlocks(['BSC'], (_chain, block) => heard.push(block), { firstRetryMs: 100 });
    try {
      const mineUntilHeard = (count: number) =>
        until(async () => {
          await client.request({ method: 'evm_mine' as never });
          await sleep(50);
          return heard.length >= count;
        }, 10_000);
      await mineUntilHeard(1);
      expect(subscriptions.connected.has('BSC')).toBe(true);
      for (const socket of open) socket.destroy();
      await until(() => !subscriptions.connected.has('BSC'), 5_000);
      const before = heard.length;
      await mineUntilHeard(before + 1);
      expect(connections).toBe(2);
      expect(mostAtOnce).toBe(1);
    } finally {
      subscriptions.stop();
      relay.close();
      delete process.env.RPC_WS_URL_BSC;
      resetEnvCache();
    }
  });
});
