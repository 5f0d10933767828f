/**
 * The Solana watcher's block reader against the local cluster (scripts/stack/solana-cluster.ts, in this process,
 * over HTTP JSON-RPC): payments found in the new confirmed blocks, the deposit addresses' search cursors left
 * to the poll, and a cost per slot that does not grow with open charges.
 */
import { eq } from 'drizzle-orm';
import {
  createDefaultRpcTransport,
  createKeyPairSignerFromBytes,
  createSolanaRpcFromTransport,
  getBase64EncodedWireTransaction,
  type Address,
  type KeyPairSigner,
  type Rpc,
  type RpcTransport,
  type SolanaRpcApi,
  type Transaction,
} from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS, SOLANA_NATIVE_MINT, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, payments } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { localSolanaMinterAccount } from '@/lib/keyring/local-solana-accounts';
import { serveSolanaCluster, type ServedSolanaCluster } from '@/scripts/stack/solana-cluster';
import { createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { expectSuccess, fundedWallet, mintTokens, solPayment, tokenPayment } from '@/test/litesvm-view';
import { pollSolana } from './poll-solana';
import { readSolanaBlocks } from './read-solana-blocks';
import { switchToPrivateDatabase } from '@/test/private-database';

const USDC = CHAINS.SOLANA.tokens.find((t) => t.symbol === 'USDC')!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let served: ServedSolanaCluster;
let merchant: TestMerchant;
let payer: KeyPairSigner;
/** Every method the reader asked of the cluster, in order. */
const calls: string[] = [];
/** While set, the cluster's finalized slot is reported this far behind (a real cluster's ~32 slots). */
let finalizedLag = 0n;
let rpc: Rpc<SolanaRpcApi>;

beforeAll(async () => {
  // Its own database: the watcher's SOLANA cursor and payments must not reach other files (the health
  // check's test reads SOLANA as not configured, with no cursor).
  await switchToPrivateDatabase('read_solana_blocks');
  served = await serveSolanaCluster({ chain: 'SOLANA' });
  process.env.RPC_URL_SOLANA = served.url;
  resetEnvCache();
  merchant = await newMerchant({ verified: true });
  const http = createDefaultRpcTransport({ url: served.url });
  const transport = (async (request: Parameters<RpcTransport>[0]) => {
    const { method, params } = request.payload as { method: string; params: unknown[] };
    calls.push(method);
    const response = (await http(request)) as { result?: unknown };
    // kit's transport parses integers as bigint.
    // kit leaves `commitment: 'finalized'` out (a node's default): no commitment is finalized.
    const commitment = (params?.at(-1) as { commitment?: string } | undefined)?.commitment ?? 'finalized';
    if (method === 'getSlot' && commitment === 'finalized' && typeof response.result === 'bigint')
      return { ...response, result: response.result - finalizedLag };
    return response;
  }) as RpcTransport;
  rpc = createSolanaRpcFromTransport(transport);
  payer = await fundedWallet(served.cluster.ledger.svm, 10n);
  const minter = await createKeyPairSignerFromBytes(localSolanaMinterAccount.secretKey);
  await mintTokens(served.cluster.ledger, {
    authority: minter,
    mint: USDC.address as Address,
    owner: payer.address,
    amount: 1_000_000_000n,
  });
});

afterAll(async () => {
  await served?.stop();
  delete process.env.RPC_URL_SOLANA;
  resetEnvCache();
});

async function charge(symbol: string, tokenAddress: string, amount: string) {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.liveKey!,
    body: { chargeData: { symbol, chain: 'SOLANA', tokenAddress, amount } },
  });
  return { chargeId, address: deposit.address as Address, reference: deposit.reference as Address };
}

/** Sends over JSON-RPC; resolves once the slot it landed in is complete (its block readable). */
async function send(transaction: Transaction): Promise<bigint> {
  const signature = await rpc
    .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' })
    .send()
    .catch(() => undefined);
  const landed = served.cluster.ledger.sent.find((sent) => sent.signature === signature);
  expectSuccess(landed!);
  while (served.cluster.slot <= landed!.view.slot) await sleep(50);
  return BigInt(landed!.view.slot);
}

/** Reads blocks until the cursor passed `slot` (a pass reads at most 16: a busy machine may be further behind). */
async function readThrough(slot: bigint, cursor: Map<ChainName, bigint>) {
  const total = { blocks: 0, recorded: 0, promoted: 0 };
  do {
    const read = (await readSolanaBlocks('SOLANA', { rpc, cursor }))!;
    total.blocks += read.blocks;
    total.recorded += read.recorded;
    total.promoted += read.promoted;
  } while (cursor.get('SOLANA')! <= slot);
  return total;
}

const statusOf = async (chargeId: string) => (await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status;
const paymentsOf = (chargeId: string) => getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
const searchStateOf = async (chargeId: string) =>
  (
    await getDb()
      .select({
        referenceCursor: depositAddresses.referenceCursor,
        receiveCursor: depositAddresses.receiveCursor,
        searchedUntil: depositAddresses.searchedUntil,
        searchedSlot: depositAddresses.searchedSlot,
        searchedAt: depositAddresses.searchedAt,
      })
      .from(depositAddresses)
      .where(eq(depositAddresses.chargeId, chargeId))
  )[0];

describe('the Solana block reader', () => {
  it('records SOL and USDC payments from the new blocks (plain and Solana Pay), not another token, settles their charges, and leaves the search cursors to the poll', async () => {
    const cursor = new Map<ChainName, bigint>();
    const sol = await charge('SOL', SOLANA_NATIVE_MINT, '0.5');
    const usdc = await charge('USDC', USDC.address, '2');
    await readSolanaBlocks('SOLANA', { rpc, cursor }); // at the tip
    const before = [await searchStateOf(sol.chargeId), await searchStateOf(usdc.chargeId)];

    const svm = served.cluster.ledger.svm;
    // A copy-paste send (no reference) of SOL; a Solana Pay USDC transfer into the deposit's token account,
    // which it creates: the deposit address itself is only the token balance's owner.
    const solSlot = await send(await solPayment(svm, { payer, recipient: sol.address, lamports: 500_000_000n, references: [] }));
    const usdcSlot = await send(
      await tokenPayment(svm, {
        payer,
        mint: USDC.address as Address,
        decimals: USDC.decimals,
        recipient: usdc.address,
        amount: 2_000_000n,
        references: [usdc.reference],
      }),
    );
    // SOL into the USDC charge's address: in the block, matched, refused by the validation (another token).
    const lastSlot = await send(
      await solPayment(svm, { payer, recipient: usdc.address, lamports: 10_000_000n, references: [usdc.reference] }),
    );
    const read = await readThrough(lastSlot, cursor);
    expect(read).toMatchObject({ recorded: 2 });
    expect(await paymentsOf(sol.chargeId)).toMatchObject([
      { status: 'confirmed', amountBaseUnits: 500_000_000n, blockNumber: solSlot, fromAddress: payer.address },
    ]);
    expect(await paymentsOf(usdc.chargeId)).toMatchObject([{ status: 'confirmed', amountBaseUnits: 2_000_000n, blockNumber: usdcSlot }]);
    expect(await statusOf(sol.chargeId)).toBe('succeeded');
    expect(await statusOf(usdc.chargeId)).toBe('succeeded');
    // Nothing about the addresses' history was proved: their cursors (and so expiry) stay the poll's.
    expect([await searchStateOf(sol.chargeId), await searchStateOf(usdc.chargeId)]).toEqual(before);

    // The poll then finds the same transfers: counted once.
    await pollSolana('SOLANA', { rpc });
    expect(await paymentsOf(sol.chargeId)).toHaveLength(1);
    expect(await paymentsOf(usdc.chargeId)).toHaveLength(1);
    expect((await searchStateOf(sol.chargeId))?.receiveCursor).not.toBeNull();
    // Read again: nothing new.
    expect((await readSolanaBlocks('SOLANA', { rpc, cursor }))?.recorded).toBe(0);
  });

  it('records a payment whose slot is not finalized yet as pending, and confirms it once the cluster finalizes it', async () => {
    const cursor = new Map<ChainName, bigint>();
    const sol = await charge('SOL', SOLANA_NATIVE_MINT, '0.25');
    await readSolanaBlocks('SOLANA', { rpc, cursor });
    finalizedLag = 1_000n;
    try {
      const slot = await send(
        await solPayment(served.cluster.ledger.svm, { payer, recipient: sol.address, lamports: 250_000_000n, references: [sol.reference] }),
      );
      await readThrough(slot, cursor);
      expect(await paymentsOf(sol.chargeId)).toMatchObject([{ status: 'pending' }]);
      expect(await statusOf(sol.chargeId)).toBe('processing');
    } finally {
      finalizedLag = 0n;
    }
    await sleep(450);
    expect((await readSolanaBlocks('SOLANA', { rpc, cursor }))?.promoted).toBe(1);
    expect(await paymentsOf(sol.chargeId)).toMatchObject([{ status: 'confirmed' }]);
    expect(await statusOf(sol.chargeId)).toBe('succeeded');
  });

  it('asks the cluster the same per slot with a few or 200 open charges: getBlocks, then one getBlock per new block', async () => {
    const passCalls = async (cursor: Map<ChainName, bigint>) => {
      await readThrough(BigInt(served.cluster.slot) - 1n, cursor); // caught up (creating 199 charges takes many slots)
      await sleep(900); // two or three new slots
      calls.length = 0;
      const read = await readSolanaBlocks('SOLANA', { rpc, cursor });
      return { calls: [...calls], blocks: read!.blocks };
    };
    const cursor = new Map<ChainName, bigint>();
    const first = await charge('SOL', SOLANA_NATIVE_MINT, '0.1');
    await readSolanaBlocks('SOLANA', { rpc, cursor });
    const few = await passCalls(cursor);
    for (let i = 0; i < 199; i++) await charge('SOL', SOLANA_NATIVE_MINT, '0.1');
    const open = await getDb().select({ id: depositAddresses.id }).from(depositAddresses).where(eq(depositAddresses.chain, 'SOLANA'));
    expect(open.length).toBeGreaterThanOrEqual(200);
    const many = await passCalls(cursor);
    for (const pass of [few, many]) {
      expect(pass.blocks).toBeGreaterThanOrEqual(1);
      const reads = pass.calls.filter((method) => method === 'getBlocks' || method === 'getBlock');
      expect(reads).toEqual(['getBlocks', ...Array(pass.blocks).fill('getBlock')]);
      // At most getSlot + getSignatureStatuses besides, when a payment waits to be finalized (other suites' may).
      expect(pass.calls.length - reads.length).toBeLessThanOrEqual(2);
    }
    // The poll, by contrast, lists every watched address (at least once each, plus the slot and its time).
    calls.length = 0;
    await pollSolana('SOLANA', { rpc });
    expect(calls.filter((method) => method === 'getSignaturesForAddress').length).toBeGreaterThanOrEqual(200);
    // And a payment into the first of the 200 is still found by one block read.
    const slot = await send(
      await solPayment(served.cluster.ledger.svm, { payer, recipient: first.address, lamports: 100_000_000n, references: [] }),
    );
    expect((await readThrough(slot, cursor)).recorded).toBe(1);
    expect(await statusOf(first.chargeId)).toBe('succeeded');
  });
});

describe('the Solana block reader on a real cluster’s gaps', () => {
  /** A cluster answering getSlot with `tip` and getBlocks with `listed` (what a node with skipped slots does). */
  const stub = (tip: number, listed: (start: number, end: number) => number[]) => {
    const asked: string[] = [];
    const transport = (async ({ payload }: { payload: unknown }) => {
      const { id, method, params } = payload as { id: string; method: string; params: unknown[] };
      asked.push(method);
      const result =
        method === 'getSlot'
          ? tip
          : method === 'getBlocks'
            ? listed(Number(params[0]), Number(params[1]))
            : method === 'getSignatureStatuses' // other suites' pending payments, if any: unknown here
              ? { context: { slot: tip }, value: (params[0] as unknown[]).map(() => null) }
              : { blockHeight: 0, blockTime: null, blockhash: '', parentSlot: 0, previousBlockhash: '', transactions: [] };
      return { jsonrpc: '2.0', id, result };
    }) as RpcTransport;
    return { rpc: createSolanaRpcFromTransport(transport), asked };
  };

  it('moves past a confirmed range of skipped slots, and jumps to the tip when too far behind (the poll catches up)', async () => {
    const cursor = new Map<ChainName, bigint>([['SOLANA', 1_000n]]);
    // Sixteen skipped slots in a row, all confirmed: past them, without reading a block.
    const skipped = stub(1_100, () => []);
    await readSolanaBlocks('SOLANA', { rpc: skipped.rpc, cursor });
    expect(cursor.get('SOLANA')).toBe(1_016n);
    expect(skipped.asked).not.toContain('getBlock');
    // Not confirmed yet: the cursor waits.
    await readSolanaBlocks('SOLANA', { rpc: stub(1_020, () => []).rpc, cursor });
    expect(cursor.get('SOLANA')).toBe(1_016n);
    // Sixteen blocks listed and the tip far ahead: to the tip, reading none of them.
    const behind = stub(5_000, (start, end) => Array.from({ length: end - start + 1 }, (_, i) => start + i));
    await readSolanaBlocks('SOLANA', { rpc: behind.rpc, cursor });
    expect(cursor.get('SOLANA')).toBe(5_000n);
    expect(behind.asked).not.toContain('getBlock');
  });
});
