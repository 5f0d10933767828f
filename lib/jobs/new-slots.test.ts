/**
 * The Solana watcher woken by new slots (./new-slots.ts, scheduler.ts): against the local cluster
 * (scripts/stack/solana-cluster.ts, in this process), whose websocket serves slotSubscribe on its HTTP port.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { eq } from 'drizzle-orm';
import { createSolanaRpc, getBase64EncodedWireTransaction, type Address, type KeyPairSigner } from '@solana/kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SOLANA_NATIVE_MINT } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, payments } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { pollSolana } from '@/lib/payments/solana/poll-solana';
import { readSolanaBlocks } from '@/lib/payments/solana/read-solana-blocks';
import { serveSolanaCluster, type ServedSolanaCluster } from '@/scripts/stack/solana-cluster';
import { createTestCharge, newMerchant } from '@/test/fixtures';
import { fundedWallet, solPayment } from '@/test/litesvm-view';
import { subscribeToNewSlots } from './new-slots';
import { startScheduler, stopScheduler } from './scheduler';

const CHAIN = 'SOLANA_DEVNET';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(20);
  }
  return Date.now() - started;
}

/** A TCP relay in front of the cluster's port: counts connections, and can drop them all. */
async function relayTo(url: string) {
  const upstream = new URL(url);
  const open = new Set<Socket>();
  const state = { connections: 0, mostAtOnce: 0 };
  const server: Server = createServer((socket) => {
    state.connections += 1;
    const toNode = connect(Number(upstream.port), upstream.hostname);
    socket.pipe(toNode).pipe(socket);
    open.add(socket);
    state.mostAtOnce = Math.max(state.mostAtOnce, open.size);
    const drop = () => {
      open.delete(socket);
      socket.destroy();
      toNode.destroy();
    };
    socket.on('close', drop).on('error', drop);
    toNode.on('close', drop).on('error', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    url: `ws://127.0.0.1:${(server.address() as { port: number }).port}`,
    dropAll: () => {
      for (const socket of open) socket.destroy();
    },
    close: () => server.close(),
  };
}

let served: ServedSolanaCluster;
let payer: KeyPairSigner;
const localChainsBefore = process.env.LOCAL_CHAINS;

beforeAll(async () => {
  served = await serveSolanaCluster({ chain: CHAIN });
  process.env.RPC_URL_SOLANA_DEVNET = served.url;
  // As the launcher runs it: a local cluster's websocket is on its own port (lib/env.ts rpcWsUrl).
  process.env.LOCAL_CHAINS = [localChainsBefore, CHAIN].filter(Boolean).join(',');
  resetEnvCache();
  payer = await fundedWallet(served.cluster.ledger.svm, 10n);
});

afterEach(() => stopScheduler());

afterAll(async () => {
  stopScheduler();
  await served?.stop();
  delete process.env.RPC_URL_SOLANA_DEVNET;
  if (localChainsBefore === undefined) delete process.env.LOCAL_CHAINS;
  else process.env.LOCAL_CHAINS = localChainsBefore;
  resetEnvCache();
});

describe('new-slot subscription', () => {
  it("wakes the chain's block reader at each slot: a payment is recorded within two slots of its block, long before the 60 s poll", async () => {
    const merchant = await newMerchant({ verified: true });
    const { chargeId, deposit } = await createTestCharge({
      apiKey: merchant.testKey,
      body: { chargeData: { symbol: 'SOL', chain: CHAIN, tokenAddress: SOLANA_NATIVE_MINT, amount: '0.3' }, isTest: true },
    });
    // When each slot began, by the cluster's clock (its block before it is then complete).
    const slotStarted = new Map<number, number>();
    const onSlot = (slot: number) => slotStarted.set(slot, Date.now());
    served.cluster.onSlot.add(onSlot);
    let reads = 0;
    let polls = 0;
    startScheduler([
      {
        name: `watch-slots-${CHAIN}`,
        everyMs: 60_000,
        run: async () => {
          reads += 1;
          return (await readSolanaBlocks(CHAIN))?.recorded ?? 0;
        },
      },
      {
        name: `watch-${CHAIN}`,
        everyMs: 60_000,
        run: async () => {
          polls += 1;
          return (await pollSolana(CHAIN))?.recorded ?? 0;
        },
      },
    ]);
    try {
      // The subscription is up once slots wake the reader (its interval is a minute).
      await until(() => reads >= 2, 10_000);

      const transaction = await solPayment(served.cluster.ledger.svm, {
        payer,
        recipient: deposit.address as Address,
        lamports: 300_000_000n,
        references: [],
      });
      const signature = await createSolanaRpc(served.url)
        .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' })
        .send();
      const landed = served.cluster.ledger.sent.find((sent) => sent.signature === signature)!;
      await until(async () => (await getDb().select().from(payments).where(eq(payments.txHash, signature))).length === 1, 5_000);
      const recordedAt = Date.now();
      // Its block is complete when the next slot begins; recorded within two slots (400 ms each) of that, plus
      // margin for a busy machine — the reader's interval and the poll's are a minute.
      // (The first slot announced after it: a late clock tick announces only the slot it jumps to.)
      const blockAt = Math.min(...[...slotStarted].filter(([slot]) => slot > landed.view.slot).map(([, at]) => at));
      expect(Number.isFinite(blockAt)).toBe(true);
      expect(recordedAt - blockAt).toBeLessThan(1_500);
      expect(polls).toBe(0);
      expect((await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status).toBe('succeeded');
    } finally {
      served.cluster.onSlot.delete(onSlot);
    }
  });

  it('holds one subscription per Solana chain per process, however often the jobs are started; none without the block reader', async () => {
    const relay = await relayTo(served.url);
    process.env.RPC_WS_URL_SOLANA_DEVNET = relay.url;
    resetEnvCache();
    try {
      // A process with only the poll (no block reader) subscribes to nothing.
      startScheduler([{ name: `watch-${CHAIN}`, everyMs: 60_000, run: async () => 0 }]);
      await sleep(1_000);
      expect(relay.state.connections).toBe(0);
      stopScheduler();

      let reads = 0;
      const tasks = [{ name: `watch-slots-${CHAIN}`, everyMs: 60_000, run: async () => (reads += 1) }];
      // Started twice, as a second import of the jobs module would: still one subscription.
      startScheduler(tasks);
      startScheduler(tasks);
      await until(() => reads >= 3, 10_000);
      await sleep(500);
      expect(relay.state.connections).toBe(1);
    } finally {
      stopScheduler();
      relay.close();
      delete process.env.RPC_WS_URL_SOLANA_DEVNET;
      resetEnvCache();
    }
  });

  it('reopens a dropped subscription with back-off, one connection at a time, and slots wake it again', async () => {
    const relay = await relayTo(served.url);
    process.env.RPC_WS_URL_SOLANA_DEVNET = relay.url;
    resetEnvCache();
    const heard: bigint[] = [];
    const subscriptions = subscribeToNewSlots([CHAIN], (_chain, slot) => heard.push(slot), { firstRetryMs: 100 });
    try {
      await until(() => heard.length >= 1, 10_000);
      expect(subscriptions.connected.has(CHAIN)).toBe(true);
      relay.dropAll();
      await until(() => !subscriptions.connected.has(CHAIN), 5_000);
      const before = heard.length;
      await until(() => heard.length > before + 1, 10_000);
      expect(subscriptions.connected.has(CHAIN)).toBe(true);
      expect(relay.state.connections).toBe(2);
      expect(relay.state.mostAtOnce).toBe(1);
    } finally {
      subscriptions.stop();
      relay.close();
      delete process.env.RPC_WS_URL_SOLANA_DEVNET;
      resetEnvCache();
    }
  });
});
