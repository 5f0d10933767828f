import { eq, sql } from 'drizzle-orm';
import { createPublicClient, http, parseEther, parseUnits, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS, EVM_NATIVE_TOKEN_ADDRESS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, walletIncomingTransfers } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { newId } from '@/lib/ids';
import { localDemoPayerAccount, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { newUser } from '@/test/accounts';
import { sendTokenFrom } from '@/test/anvil';
import { createWalletsForUser } from '@/lib/keyring/create-wallets';
import { pollIncomingTransfers } from './poll-incoming-transfers';

// A private BSC node for this file: its re-organisations cannot disturb other test files, and no other
// file indexes incoming transfers on BSC.
let node: LocalChainNode;
let client: PublicClient;
const USDT = CHAINS.BSC.tokens.find((t) => t.symbol === 'USDT')!;
const BNB = CHAINS.BSC.tokens.find((t) => t.isNative)!;
const poll = (options: { lookupBatch?: number; confirmations?: number } = {}) => pollIncomingTransfers('BSC', { client, ...options });

beforeAll(async () => {
  node = await startLocalChain({ chain: 'BSC' });
  await provisionLocalChain({ chain: 'BSC', url: node.url });
  client = createPublicClient({ transport: http(node.url) });
  process.env.LOCAL_CHAINS = 'BSC,POLYGON,POLYGON_AMOY';
  resetEnvCache();
  await poll();
});

afterAll(async () => {
  process.env.LOCAL_CHAINS = 'POLYGON,POLYGON_AMOY';
  resetEnvCache();
  await node.stop();
});

async function newServiceWallet(): Promise<Hex> {
  const userId = await newUser();
  const created = await createWalletsForUser(getDb(), userId);
  return created.find((w) => w.family === 'evm')!.address as Hex;
}

const sendUsdt = (to: Hex, amount: string) => sendTokenFrom(node, localDemoPayerAccount, USDT, to, amount);

const sendBnb = (to: Hex, amount: string) => sendTokenFrom(node, localDemoPayerAccount, BNB, to, amount);

const rowsTo = (address: string) => getDb().select().from(walletIncomingTransfers).where(eq(walletIncomingTransfers.toAddress, address));

describe('incoming-transfer indexer', () => {
  it('records ERC-20 and native transfers into a service wallet once, however often it polls', async () => {
    const wallet = await newServiceWallet();
    const outsider = privateKeyToAccount(generatePrivateKey()).address;
    const usdtHash = await sendUsdt(wallet, '12.5');
    const bnbHash = await sendBnb(wallet, '0.25');
    await sendUsdt(outsider, '1');
    await sendBnb(outsider, '1');

    const first = await poll();
    expect(first?.recorded).toBe(2);
    await poll();
    await poll();

    const rows = await rowsTo(wallet);
    expect(rows).toHaveLength(2);
    const usdt = rows.find((r) => r.txHash === usdtHash)!;
    const bnb = rows.find((r) => r.txHash === bnbHash)!;
    expect(usdt).toMatchObject({
      chain: 'BSC',
      tokenAddress: USDT.address,
      amountBaseUnits: parseUnits('12.5', 18),
      fromAddress: localDemoPayerAccount.address,
      status: 'confirmed',
    });
    expect(usdt.logIndex).toBeGreaterThanOrEqual(0);
    // Stored checksummed like every address we keep, whatever case the node returns.
    expect(bnb).toMatchObject({
      tokenAddress: EVM_NATIVE_TOKEN_ADDRESS,
      amountBaseUnits: parseEther('0.25'),
      logIndex: -1,
      fromAddress: localDemoPayerAccount.address,
    });
    // The block's time, not the time we saw it.
    const block = await client.getBlock({ blockHash: usdt.blockHash as Hex });
    expect(usdt.blockTime.getTime()).toBe(Number(block.timestamp) * 1000);
    expect(await rowsTo(outsider)).toHaveLength(0);
  });

  it('looks the recipients up among the wallets in batches and finds transfers in every batch', async () => {
    const a = await newServiceWallet();
    const b = await newServiceWallet();
    const c = await newServiceWallet();
    await sendUsdt(a, '1');
    await sendUsdt(b, '2');
    await sendUsdt(c, '3');
    await poll({ lookupBatch: 1 });
    for (const [wallet, amount] of [
      [a, '1'],
      [b, '2'],
      [c, '3'],
    ] as const) {
      expect((await rowsTo(wallet)).map((r) => r.amountBaseUnits)).toEqual([parseUnits(amount, 18)]);
    }
  });

  it('skips our own gas top-ups and zero-value transfers', async () => {
    const wallet = await newServiceWallet();
    const topUp = await sendBnb(wallet, '0.001');
    // As the gas tank records a top-up before sending it (lib/payments/gas-tank.ts).
    await getDb()
      .insert(outboundTransfers)
      .values({
        id: newId('outboundTransfer'),
        purpose: 'gas_topup',
        chain: 'BSC',
        fromAddress: localDemoPayerAccount.address,
        toAddress: wallet,
        tokenAddress: EVM_NATIVE_TOKEN_ADDRESS,
        amountBaseUnits: parseEther('0.001'),
        nonce: 0,
        txHash: topUp,
        rawTransaction: '0x',
        status: 'confirmed',
      });
    // Zero-value transfers from look-alike addresses are how address poisoning works.
    await sendUsdt(wallet, '0');
    await poll();
    expect(await rowsTo(wallet)).toHaveLength(0);
  });

  it('a re-organisation that removes the block for good: the transfer ends dropped after re-checks; confirmations count', async () => {
    // A real depth (15 on BSC), so the transfer waits as pending.
    const deep = { confirmations: 15 };
    const wallet = await newServiceWallet();
    const snapshot = await client.request({ method: 'evm_snapshot' as never });
    await sendUsdt(wallet, '2');
    await poll(deep);
    expect((await rowsTo(wallet)).map((r) => r.status)).toEqual(['pending']);

    await client.request({ method: 'evm_revert' as never, params: [snapshot] as never });
    await client.request({ method: 'anvil_mine' as never, params: ['0x3'] as never });
    const result = await poll(deep);
    expect(result).toMatchObject({ reorg: true, dropped: 0 });
    // Not on the first miss: still pending (unconfirmed), then dropped a confirmation depth later.
    expect((await rowsTo(wallet)).map((r) => r.status)).toEqual(['pending']);
    await client.request({ method: 'anvil_mine' as never, params: ['0xf'] as never });
    expect((await poll(deep))!.dropped).toBeGreaterThanOrEqual(1);
    expect((await rowsTo(wallet)).map((r) => r.status)).toEqual(['dropped']);

    // Sent again after the fork: recorded, and confirmed once 15 blocks deep (counted once).
    const again = await sendUsdt(wallet, '2');
    await poll(deep);
    const live = async () => (await rowsTo(wallet)).filter((r) => r.status !== 'dropped');
    expect((await live()).map((r) => [r.txHash, r.status])).toEqual([[again, 'pending']]);
    await client.request({ method: 'anvil_mine' as never, params: ['0xe'] as never });
    await poll(deep);
    expect((await live()).map((r) => [r.txHash, r.status])).toEqual([[again, 'confirmed']]);
  });

  it('one indexer per chain at a time: a poll while another holds the lock does nothing', async () => {
    const wallet = await newServiceWallet();
    await sendBnb(wallet, '0.5');
    await getDb().transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('wallet-incoming:BSC', 0))`);
      expect(await poll()).toBeNull();
    });
    expect(await rowsTo(wallet)).toHaveLength(0);
    await poll();
    expect(await rowsTo(wallet)).toHaveLength(1);
  });
});
