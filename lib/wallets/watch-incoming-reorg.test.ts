import { eq } from 'drizzle-orm';
import { encodeFunctionData, parseEther, parseUnits, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS, EVM_NATIVE_TOKEN_ADDRESS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { walletIncomingTransfers } from '@/lib/db/schema';
import { localDemoPayerAccount, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { setTraceMode } from '@/lib/scanner/internal-transfers';
import { newUser } from '@/test/accounts';
import { anvilFor, nativeForwarderAbi, type Anvil } from '@/test/anvil';
import { listWalletActivity } from './activity';
import { createWalletsForUser } from '@/lib/keyring/create-wallets';
import { pollIncomingTransfers } from './poll-incoming-transfers';

// A private Polygon node passed to the indexer: no other test file indexes Polygon, so its re-organisations
// and cursor are this file's alone. Transfers need 3 confirmations here.
const CONFIRMATIONS = 3;
let node: LocalChainNode;
let anvil: Anvil;
const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
const payer = localDemoPayerAccount;

beforeAll(async () => {
  node = await startLocalChain({ chain: 'POLYGON' });
  await provisionLocalChain({ chain: 'POLYGON', url: node.url });
  anvil = anvilFor(node, 'POLYGON');
  setTraceMode(anvil.client, 'trace_block');
  await poll();
});

afterAll(async () => {
  await node.stop();
});

const poll = () => pollIncomingTransfers('POLYGON', { client: anvil.client, confirmations: CONFIRMATIONS });

async function newServiceWallet(): Promise<{ userId: string; address: Hex }> {
  const userId = await newUser();
  const created = await createWalletsForUser(getDb(), userId);
  return { userId, address: created.find((w) => w.family === 'evm')!.address as Hex };
}

const rowsTo = (address: string) => getDb().select().from(walletIncomingTransfers).where(eq(walletIncomingTransfers.toAddress, address));

describe('wallet activity under re-organisations (confirmation depth 3)', () => {
  it('a token and a native transfer re-organised out and re-included end confirmed in their new block, never dropped', async () => {
    const wallet = await newServiceWallet();
    const token = await anvil.transferToken(payer, USDC.address as Hex, wallet.address, parseUnits('7', USDC.decimals));
    const native = await anvil.sendNative(payer, wallet.address, parseEther('0.5'));
    await poll();
    const before = await rowsTo(wallet.address);
    expect(before.map((r) => r.status)).toEqual(['pending', 'pending']);

    await anvil.reorg(2, [
      [token.raw, 1],
      [native.raw, 1],
    ]);
    await poll();
    const moved = await rowsTo(wallet.address);
    for (const hash of [token.hash, native.hash]) {
      const receipt = await anvil.client.getTransactionReceipt({ hash });
      const row = moved.find((r) => r.txHash === hash)!;
      expect(row).toMatchObject({
        id: before.find((r) => r.txHash === hash)!.id,
        status: 'pending',
        blockHash: receipt.blockHash,
        blockTime: new Date(Number((await anvil.client.getBlock({ blockHash: receipt.blockHash })).timestamp) * 1000),
      });
      expect(row.blockHash).not.toBe(before.find((r) => r.txHash === hash)!.blockHash);
    }
    await anvil.mine(CONFIRMATIONS);
    await poll();
    expect((await rowsTo(wallet.address)).map((r) => [r.tokenAddress, r.status]).sort()).toEqual([
      [EVM_NATIVE_TOKEN_ADDRESS, 'confirmed'],
      [USDC.address, 'confirmed'],
    ]);
  });

  it('a transfer whose transaction is gone ends dropped after re-checks, and Activity says so', async () => {
    const wallet = await newServiceWallet();
    await anvil.transferToken(payer, USDC.address as Hex, wallet.address, parseUnits('3', USDC.decimals));
    await poll();
    await anvil.reorg(1);
    const missing = await poll();
    expect(missing).toMatchObject({ reorg: true, dropped: 0 });
    expect((await rowsTo(wallet.address)).map((r) => r.status)).toEqual(['pending']);
    await anvil.mine(CONFIRMATIONS);
    expect((await poll())?.dropped).toBe(1);
    expect((await rowsTo(wallet.address)).map((r) => r.status)).toEqual(['dropped']);
    const { items } = await listWalletActivity({ userId: wallet.userId });
    expect(items.map((i) => [i.kind, i.status, i.statusLabel])).toEqual([['received', 'failed', 'Dropped by the network']]);
  });

  it('native coin a contract sends to a wallet (internal call) is indexed with its transaction', async () => {
    const wallet = await newServiceWallet();
    const forwarder = await anvil.plantForwarder();
    const { hash } = await anvil.sendNative(
      payer,
      forwarder,
      parseEther('0.3'),
      encodeFunctionData({ abi: nativeForwarderAbi, functionName: 'forward', args: [wallet.address] }),
    );
    await poll();
    expect(await rowsTo(wallet.address)).toEqual([
      expect.objectContaining({
        txHash: hash,
        logIndex: -2,
        fromAddress: forwarder,
        amountBaseUnits: parseEther('0.3'),
        status: 'pending',
      }),
    ]);
  });
});
