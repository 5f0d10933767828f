import { and, eq } from 'drizzle-orm';
import { createWalletClient, erc20Abi, http, parseEther, parseUnits, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { chargeEvents, charges, outboundTransfers, payments, sweepSchedule } from '@/lib/db/schema';
import type { LocalChainNode } from '@/scripts/stack/local-chain';
import { createTestCharge, type TestMerchant } from '@/test/fixtures';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import {
  gasTank,
  merchantWallet as merchantEvmWallet,
  payer,
  startRelayedSweepWorld,
  stopRelayedSweepWorld,
} from '@/test/relayed-sweep-world';
import { chargesAwaitingSweep, SWEEP_MAX_ATTEMPTS, sweepCharge } from './sweep-charges';
import { pollChain } from './poll-chain';

// A private BSC node, configured as the app's BSC RPC (relayed-sweep-world.ts without the relayer): this file pauses
// mining and drops transactions.
let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;
const USDT = CHAINS.BSC.tokens.find((t) => t.symbol === 'USDT')!;

beforeAll(async () => {
  ({ node, client, merchant } = await startRelayedSweepWorld({}, { chain: 'BSC', relayer: false }));
});

afterAll(stopRelayedSweepWorld);

async function paidCharge(input: {
  symbol: 'USDT' | 'BNB';
  amount: string;
  send: string;
  toAddress?: Hex;
}): Promise<{ chargeId: string; deposit: Hex }> {
  const token = CHAINS.BSC.tokens.find((t) => t.symbol === input.symbol)!;
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.liveKey!,
    body: {
      chargeData: { symbol: input.symbol, chain: 'BSC', tokenAddress: token.address, amount: input.amount, toAddress: input.toAddress },
    },
  });
  const wallet = createWalletClient({ account: payer, transport: http(node.url) });
  const hash = token.isNative
    ? await wallet.sendTransaction({ to: deposit.address as Hex, value: parseEther(input.send), chain: null })
    : await wallet.writeContract({
        address: USDT.address as Hex,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [deposit.address as Hex, parseUnits(input.send, USDT.decimals)],
        chain: null,
      });
  await client.waitForTransactionReceipt({ hash });
  await pollChain('BSC');
  const [row] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  expect(row!.status).toBe('succeeded');
  return { chargeId, deposit: deposit.address as Hex };
}

/** Runs sweep passes (and the reconciler, as the scheduler does) until nothing is owed. */
async function sweepUntilDone(chargeId: string): Promise<string[]> {
  const outcomes: string[] = [];
  for (let i = 0; i < 10; i++) {
    const outcome = await sweepCharge(chargeId);
    outcomes.push(outcome);
    if (outcome === 'nothing_owed') break;
    await reconcileDueTransfers({ ignoreSchedule: true });
  }
  return outcomes;
}

const usdtBalance = (address: Hex) =>
  client.readContract({ address: USDT.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [address] });

describe('sweeps to the payee', () => {
  it('moves an ERC-20 payment to the merchant wallet; the gas tank pays the exact fee shortfall, recorded as platform cost', async () => {
    const { chargeId, deposit } = await paidCharge({ symbol: 'USDT', amount: '12.5', send: '12.5' });
    expect(await client.getBalance({ address: deposit })).toBe(0n);
    expect(await chargesAwaitingSweep(1000)).toContain(chargeId);

    const outcomes = await sweepUntilDone(chargeId);
    // One pass records both: the gas tank's top-up and the sweep that waits for it.
    expect(outcomes[0]).toBe('swept');
    expect(outcomes.filter((o) => o === 'swept')).toHaveLength(1);
    expect(outcomes.at(-1)).toBe('nothing_owed');

    const merchantWallet = await merchantEvmWallet();
    expect(await usdtBalance(merchantWallet)).toBe(parseUnits('12.5', USDT.decimals));
    expect(await usdtBalance(deposit)).toBe(0n);

    const transfers = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId));
    const topUp = transfers.find((t) => t.purpose === 'gas_topup')!;
    const sweep = transfers.find((t) => t.purpose === 'sweep')!;
    expect(topUp).toMatchObject({ fromAddress: gasTank, toAddress: deposit, status: 'confirmed' });
    expect(topUp.amountBaseUnits).toBeGreaterThan(0n);
    expect(sweep).toMatchObject({
      fromAddress: deposit,
      toAddress: merchantWallet,
      status: 'confirmed',
      amountBaseUnits: parseUnits('12.5', USDT.decimals),
    });
    const events = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
    expect(events.map((e) => e.type)).toContain('charge.sweep_submitted');
    expect(await chargesAwaitingSweep(1000)).not.toContain(chargeId);
  });

  it('sends a deliver-to-wallet charge to its toAddress, overpayment included (the excess is on the timeline for refund)', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const { chargeId } = await paidCharge({ symbol: 'BNB', amount: '0.5', send: '0.75', toAddress: recipient });
    await sweepUntilDone(chargeId);
    expect(await client.getBalance({ address: recipient })).toBe(parseEther('0.75'));
    const [sweep] = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'sweep')));
    expect(sweep!.amountBaseUnits).toBe(parseEther('0.75'));
    // The gas tank's top-up into the deposit address is platform cost: the watcher does not count it as a payment.
    await pollChain('BSC');
    const counted = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
    expect(counted).toHaveLength(1);
    expect(await chargesAwaitingSweep(1000)).not.toContain(chargeId);
  });

  it('retries: a sweep waits for its gas top-up in the mempool, and a sweep dropped by the node is sent again', async () => {
    const { chargeId, deposit } = await paidCharge({ symbol: 'USDT', amount: '3', send: '3' });
    const before = await usdtBalance(await merchantEvmWallet());
    await client.request({ method: 'evm_setAutomine' as never, params: [false] as never });
    try {
      expect(await sweepCharge(chargeId)).toBe('swept');
      const sweepRow = async () =>
        (
          await getDb()
            .select()
            .from(outboundTransfers)
            .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'sweep')))
        )[0]!;
      // The top-up is in the mempool, unmined: the sweep waits, signed, and nothing new is signed.
      expect((await sweepRow()).status).toBe('signed');
      await reconcileDueTransfers({ ignoreSchedule: true });
      expect((await sweepRow()).status).toBe('signed');
      expect(await sweepCharge(chargeId)).toBe('in_flight');
      await client.request({ method: 'evm_mine' as never, params: [] as never });
      await reconcileDueTransfers({ ignoreSchedule: true });
      const sweep = await sweepRow();
      expect(sweep.status).toBe('broadcast');
      // The node forgets it (mempool eviction, restart)…
      await client.request({ method: 'anvil_dropTransaction' as never, params: [sweep.txHash] as never });
      expect(await client.getTransaction({ hash: sweep.txHash as Hex }).catch(() => null)).toBeNull();
      // …the reconciler sends the same bytes again; nothing new is signed meanwhile.
      await reconcileDueTransfers({ ignoreSchedule: true });
      expect(await client.getTransaction({ hash: sweep.txHash as Hex }).catch(() => null)).not.toBeNull();
      expect(await sweepCharge(chargeId)).toBe('in_flight');
      await client.request({ method: 'evm_mine' as never, params: [] as never });
      await reconcileDueTransfers({ ignoreSchedule: true });
    } finally {
      await client.request({ method: 'evm_setAutomine' as never, params: [true] as never });
    }
    expect(await usdtBalance(deposit)).toBe(0n);
    expect((await usdtBalance(await merchantEvmWallet())) - before).toBe(parseUnits('3', USDT.decimals));
    const sweeps = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'sweep')));
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0]!.status).toBe('confirmed');
    expect(await sweepCharge(chargeId)).toBe('nothing_owed');
  });

  it('a sweep that keeps failing backs off, never holds up other sweeps, and stops after the most attempts', async () => {
    // A deliver-to-wallet charge whose toAddress refuses the coin (a contract that reverts on any call).
    const refusing = privateKeyToAccount(generatePrivateKey()).address;
    await client.request({ method: 'anvil_setCode' as never, params: [refusing, '0x60006000fd'] as never });
    const { chargeId } = await paidCharge({ symbol: 'BNB', amount: '0.1', send: '0.1', toAddress: refusing });
    let now = new Date();
    expect(await sweepCharge(chargeId, {}, now)).toBe('swept');
    await reconcileDueTransfers({ ignoreSchedule: true });
    expect(await sweepCharge(chargeId, {}, now)).toBe('backing_off');

    // Due later, so a healthy charge paid meanwhile is swept first.
    const healthy = await paidCharge({ symbol: 'USDT', amount: '1', send: '1' });
    const due = await chargesAwaitingSweep(1000);
    expect(due).toContain(healthy.chargeId);
    expect(due).not.toContain(chargeId);

    const outcomes: string[] = [];
    for (let pass = 0; pass < SWEEP_MAX_ATTEMPTS * 2 && outcomes.at(-1) !== 'stuck'; pass++) {
      now = new Date(now.getTime() + 7 * 60 * 60_000); // past any back-off
      const outcome = await sweepCharge(chargeId, {}, now);
      outcomes.push(outcome);
      if (outcome === 'swept') await reconcileDueTransfers({ ignoreSchedule: true });
    }
    expect(outcomes.at(-1)).toBe('stuck');
    const failed = (await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId))).filter(
      (t) => t.purpose === 'sweep' && t.status === 'failed',
    );
    expect(failed).toHaveLength(SWEEP_MAX_ATTEMPTS);
    const [schedule] = await getDb().select().from(sweepSchedule).where(eq(sweepSchedule.chargeId, chargeId));
    expect(schedule).toMatchObject({ dueAt: null, stuckAt: expect.any(Date) });
    expect(await chargesAwaitingSweep(1000)).not.toContain(chargeId);
    // The funds never left: they wait at the deposit address for the merchant to refund.
    expect(await client.getBalance({ address: refusing })).toBe(0n);
  });

  it('leaves funds of a charge that did not succeed where they are, for refund', async () => {
    const { chargeId } = await createTestCharge({
      apiKey: merchant.liveKey!,
      body: { chargeData: { symbol: 'USDT', chain: 'BSC', tokenAddress: USDT.address, amount: '1' } },
    });
    await getDb().update(charges).set({ status: 'canceled' }).where(eq(charges.id, chargeId));
    expect(await sweepCharge(chargeId)).toBe('not_sweepable');
    expect(await chargesAwaitingSweep(1000)).not.toContain(chargeId);
  });
});
