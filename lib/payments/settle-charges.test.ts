import { randomBytes } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { createPublicClient, createWalletClient, custom, defineChain, http, parseEther, type Hex, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transitionCharge } from '@/lib/charges/transition-charge';
import { outsideTransactions } from '@/lib/chains/clients';
import { CHAINS } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { chargeEvents, charges, payments, scannerCursors, webhookEvents } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { newId } from '@/lib/ids';
import { localDemoPayerAccount, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { createTestCharge, NATIVE_EVM, newMerchant, type TestMerchant } from '@/test/fixtures';
import { settleCharges } from './settle-charge';
import { pollChain } from './poll-chain';

// The watcher settles the payments of a block together (settleCharges): a fixed number of statements per
// poll, each charge still settled exactly once. A private BSC_TESTNET node: no other test file runs one,
// so its cursor and blocks are this file's alone.
const CHAIN = 'BSC_TESTNET';
let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;
/** RPC methods the watcher called, in order. */
const rpcCalls: string[] = [];
/** Makes the node refuse eth_getBlockReceipts (as some do). */
let refuseBlockReceipts = false;

beforeAll(async () => {
  node = await startLocalChain({ chain: CHAIN });
  const guarded = createPublicClient({ transport: outsideTransactions(http(node.url)) });
  client = createPublicClient({
    transport: custom({
      request: (args: { method: string; params?: unknown }) => {
        rpcCalls.push(args.method);
        if (refuseBlockReceipts && args.method === 'eth_getBlockReceipts')
          throw new Error('the method eth_getBlockReceipts does not exist');
        return guarded.request(args as never);
      },
    }),
  });
  process.env.RPC_URL_BSC_TESTNET = node.url;
  process.env.LOCAL_CHAINS = 'BSC_TESTNET,POLYGON,POLYGON_AMOY';
  resetEnvCache();
  merchant = await newMerchant();
  await client.request({ method: 'evm_setAutomine' as never, params: [false] as never });
  await poll();
});

afterAll(async () => {
  await node.stop();
});

const poll = () => pollChain(CHAIN, { client });

async function newCharge(amount: string): Promise<{ chargeId: string; deposit: Hex }> {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.testKey,
    body: { chargeData: { symbol: 'BNB', chain: CHAIN, tokenAddress: NATIVE_EVM, amount }, isTest: true },
  });
  return { chargeId, deposit: deposit.address as Hex };
}

const wallet = () =>
  createWalletClient({
    account: localDemoPayerAccount,
    chain: defineChain({
      id: CHAINS[CHAIN].evmChainId!,
      name: 'local',
      nativeCurrency: { name: 'BNB', symbol: 'BNB', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    }),
    transport: http(node.url),
  });

/** Sends these payments and mines them into one block. */
async function payInOneBlock(sends: { to: Hex; amount: string }[]): Promise<Hex[]> {
  const payer = wallet();
  let nonce = await client.getTransactionCount({ address: localDemoPayerAccount.address, blockTag: 'pending' });
  const hashes: Hex[] = [];
  for (const send of sends)
    hashes.push(await payer.sendTransaction({ to: send.to, value: parseEther(send.amount), gas: 30_000n, nonce: nonce++ }));
  await client.request({ method: 'evm_mine' as never, params: [] as never });
  return hashes;
}

async function statusOf(chargeIds: string[]): Promise<Map<string, string>> {
  const rows = await getDb().select({ id: charges.id, status: charges.status }).from(charges).where(inArray(charges.id, chargeIds));
  return new Map(rows.map((row) => [row.id, row.status]));
}

/** Webhook events of each charge, as "type#sequence", in sequence order. */
async function webhooksOf(chargeIds: string[]): Promise<Map<string, string[]>> {
  const rows = await getDb()
    .select({ chargeId: webhookEvents.chargeId, type: webhookEvents.type, sequence: webhookEvents.sequence })
    .from(webhookEvents)
    .where(inArray(webhookEvents.chargeId, chargeIds))
    .orderBy(webhookEvents.sequence);
  const byCharge = new Map<string, string[]>(chargeIds.map((id) => [id, []]));
  for (const row of rows) byCharge.get(row.chargeId!)!.push(`${row.type}#${row.sequence}`);
  return byCharge;
}

async function timelineOf(chargeId: string): Promise<string[]> {
  const rows = await getDb().select({ type: chargeEvents.type }).from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
  return rows.map((row) => row.type).sort();
}

const SUCCEEDED_ONCE = ['charge.created#1', 'charge.processing#2', 'charge.succeeded#3'];

describe('settling a block of payments together', () => {
  it('one poll records and settles 40 payments of one block: each charge once, its webhooks numbered in order', async () => {
    const list = await Promise.all(Array.from({ length: 40 }, () => newCharge('0.01')));
    const hashes = await payInOneBlock(list.map((c) => ({ to: c.deposit, amount: '0.01' })));
    rpcCalls.length = 0;
    const result = await poll();
    expect(result).toMatchObject({ recorded: 40, settled: 40 });
    // The payments' statuses from one read of the block's receipts, not a receipt per payment.
    expect(rpcCalls.filter((method) => method === 'eth_getBlockReceipts')).toHaveLength(1);
    expect(rpcCalls.filter((method) => method === 'eth_getTransactionReceipt')).toHaveLength(0);
    const ids = list.map((c) => c.chargeId);
    expect([...(await statusOf(ids)).values()]).toEqual(ids.map(() => 'succeeded'));
    for (const events of (await webhooksOf(ids)).values()) expect(events).toEqual(SUCCEEDED_ONCE);
    // The payload of each charge.succeeded lists the charge's own payment, confirmed.
    const [event] = await getDb()
      .select({ payload: webhookEvents.payload })
      .from(webhookEvents)
      .where(and(eq(webhookEvents.chargeId, ids[7]!), eq(webhookEvents.type, 'charge.succeeded')));
    expect((event!.payload as { data: { charge: { payments?: unknown } } }).data.charge.payments).toMatchObject([
      { txHash: hashes[7], status: 'confirmed' },
    ]);
    // Polling again changes nothing.
    await poll();
    for (const events of (await webhooksOf(ids)).values()) expect(events).toEqual(SUCCEEDED_ONCE);
  });

  it('two payments to one charge in the same block, an overpayment, a canceled charge and a reverted transfer settle once each', async () => {
    const split = await newCharge('0.02');
    const twice = await newCharge('0.01');
    const canceled = await newCharge('0.01');
    const exact = await newCharge('0.01');
    const reverted = await newCharge('0.01');
    await getDb().transaction((tx) => transitionCharge(tx, { chargeId: canceled.chargeId, to: 'canceled', actor: 'consumer' }));
    // Code at a deposit address that refuses every call (EIP-7702 could put code there): the transfer is mined, reverted.
    await client.request({ method: 'anvil_setCode' as never, params: [reverted.deposit, '0x60006000fd'] as never });
    await payInOneBlock([
      { to: split.deposit, amount: '0.01' },
      { to: twice.deposit, amount: '0.01' },
      { to: canceled.deposit, amount: '0.01' },
      { to: reverted.deposit, amount: '0.01' },
      { to: split.deposit, amount: '0.01' },
      { to: twice.deposit, amount: '0.01' },
      { to: exact.deposit, amount: '0.01' },
    ]);
    await poll();
    // Read from the block's receipts: the reverted transfer is no payment.
    expect(await getDb().select().from(payments).where(eq(payments.chargeId, reverted.chargeId))).toEqual([]);
    expect((await statusOf([reverted.chargeId])).get(reverted.chargeId)).toBe('pending');
    const ids = [split, twice, canceled, exact].map((c) => c.chargeId);
    expect(Object.fromEntries(await statusOf(ids))).toEqual({
      [split.chargeId]: 'succeeded',
      [twice.chargeId]: 'succeeded',
      [canceled.chargeId]: 'canceled',
      [exact.chargeId]: 'succeeded',
    });
    const webhooks = await webhooksOf(ids);
    for (const id of [split.chargeId, twice.chargeId, exact.chargeId]) expect(webhooks.get(id)).toEqual(SUCCEEDED_ONCE);
    expect(webhooks.get(canceled.chargeId)).toEqual(['charge.created#1', 'charge.canceled#2']);
    // Both payments counted once each toward the split charge; the double payment's excess recorded for refund.
    const [splitSucceeded] = await getDb()
      .select({ data: chargeEvents.data })
      .from(chargeEvents)
      .where(and(eq(chargeEvents.chargeId, split.chargeId), eq(chargeEvents.type, 'charge.succeeded')));
    expect(splitSucceeded!.data).toMatchObject({ receivedBaseUnits: parseEther('0.02').toString(), excessBaseUnits: '0' });
    const [twiceSucceeded] = await getDb()
      .select({ data: chargeEvents.data })
      .from(chargeEvents)
      .where(and(eq(chargeEvents.chargeId, twice.chargeId), eq(chargeEvents.type, 'charge.succeeded')));
    expect(twiceSucceeded!.data).toMatchObject({ excessBaseUnits: parseEther('0.01').toString() });
    // The canceled charge's payment is late: recorded, reported once, never counted.
    expect(await timelineOf(canceled.chargeId)).toEqual(['charge.canceled', 'charge.late_payment', 'charge.pending']);
    const [late] = await getDb().select().from(payments).where(eq(payments.chargeId, canceled.chargeId));
    expect(late!.isLate).toBe(true);
  });

  it('a settlement that fails rolls the whole poll back, and the next poll settles every charge once', async () => {
    const list = await Promise.all(Array.from({ length: 6 }, () => newCharge('0.01')));
    const poisoned = list[3]!.chargeId;
    // This node now refuses eth_getBlockReceipts: the statuses come from one receipt per transfer.
    refuseBlockReceipts = true;
    const [before] = await getDb()
      .select()
      .from(scannerCursors)
      .where(and(eq(scannerCursors.chain, CHAIN), eq(scannerCursors.consumer, 'charges')));
    // The webhook outbox refuses one charge's event, as a crash between the batch's statements would stop it.
    await getDb().execute(
      sql.raw(`create function settle_charges_test_refuse() returns trigger language plpgsql as $$
        begin
          if new.charge_id = '${poisoned}' and new.type = 'charge.succeeded' then raise exception 'refused by the test'; end if;
          return new;
        end $$`),
    );
    await getDb().execute(
      sql.raw(
        'create trigger settle_charges_test_refuse before insert on webhook_events for each row execute function settle_charges_test_refuse()',
      ),
    );
    const ids = list.map((c) => c.chargeId);
    try {
      await payInOneBlock(list.map((c) => ({ to: c.deposit, amount: '0.01' })));
      await expect(poll()).rejects.toThrow();
      // Nothing of the poll is left: no payment, no status change, no event, the cursor where it was.
      expect(await getDb().select().from(payments).where(inArray(payments.chargeId, ids))).toEqual([]);
      expect([...(await statusOf(ids)).values()]).toEqual(ids.map(() => 'pending'));
      for (const events of (await webhooksOf(ids)).values()) expect(events).toEqual(['charge.created#1']);
      const [after] = await getDb()
        .select()
        .from(scannerCursors)
        .where(and(eq(scannerCursors.chain, CHAIN), eq(scannerCursors.consumer, 'charges')));
      expect(after!.lastBlock).toBe(before!.lastBlock);
    } finally {
      await getDb().execute(sql.raw('drop trigger settle_charges_test_refuse on webhook_events'));
      await getDb().execute(sql.raw('drop function settle_charges_test_refuse()'));
    }
    rpcCalls.length = 0;
    await poll();
    refuseBlockReceipts = false;
    expect(rpcCalls.filter((method) => method === 'eth_getTransactionReceipt')).toHaveLength(6);
    expect([...(await statusOf(ids)).values()]).toEqual(ids.map(() => 'succeeded'));
    for (const events of (await webhooksOf(ids)).values()) expect(events).toEqual(SUCCEEDED_ONCE);
    expect(await getDb().select().from(payments).where(inArray(payments.chargeId, ids))).toHaveLength(6);
  });

  it('two settlers of overlapping charges, in opposite orders, settle each charge once and never deadlock', async () => {
    const list = await Promise.all(Array.from({ length: 8 }, () => newCharge('0.01')));
    const ids = list.map((c) => c.chargeId);
    await confirmedPayments(ids);
    await Promise.all([
      getDb().transaction((tx) => settleCharges(tx, ids)),
      getDb().transaction((tx) => settleCharges(tx, [...ids].reverse())),
      getDb().transaction((tx) => settleCharges(tx, ids.slice(2, 6))),
    ]);
    for (const events of (await webhooksOf(ids)).values()) expect(events).toEqual(SUCCEEDED_ONCE);
  });

  it("the settlement's statements do not grow with the number of charges it settles", async () => {
    const few = (await Promise.all(Array.from({ length: 2 }, () => newCharge('0.01')))).map((c) => c.chargeId);
    const many = (await Promise.all(Array.from({ length: 30 }, () => newCharge('0.01')))).map((c) => c.chargeId);
    await confirmedPayments([...few, ...many]);
    const statements = async (ids: string[]) => {
      let count = 0;
      await getDb().transaction((tx) =>
        settleCharges(
          countingStatements(tx, () => count++),
          ids,
        ),
      );
      return count;
    };
    const forFew = await statements(few);
    const forMany = await statements(many);
    expect(forFew).toBeGreaterThan(0);
    expect(forMany).toBe(forFew);
    for (const events of (await webhooksOf([...few, ...many])).values()) expect(events).toEqual(SUCCEEDED_ONCE);
  });
});

/** A confirmed payment of the full amount for each charge, written directly (no chain needed). */
async function confirmedPayments(chargeIds: string[]): Promise<void> {
  const rows = await getDb().select().from(charges).where(inArray(charges.id, chargeIds));
  await getDb()
    .insert(payments)
    .values(
      rows.map((charge) => ({
        id: newId('payment'),
        chargeId: charge.id,
        chain: CHAIN,
        txHash: `0x${randomBytes(32).toString('hex')}`,
        logIndex: -1,
        fromAddress: localDemoPayerAccount.address,
        toAddress: '0x0000000000000000000000000000000000000001',
        tokenAddress: NATIVE_EVM,
        amountBaseUnits: charge.totalBaseUnits,
        blockNumber: 1n,
        blockHash: '0x00',
        blockTime: new Date(),
        status: 'confirmed' as const,
      })),
    );
}

/** `tx`, counting every statement started through it (select, insert, update, delete, execute). */
function countingStatements(tx: DbOrTx, count: () => void): DbOrTx {
  return new Proxy(tx, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (['select', 'selectDistinct', 'insert', 'update', 'delete', 'execute'].includes(String(property))) {
        return (...args: unknown[]) => {
          count();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}
