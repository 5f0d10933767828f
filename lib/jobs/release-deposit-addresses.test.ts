/**
 * EVM deposit addresses reused through a per-merchant pool (ADR 0038), on a private Polygon node (anvil, prague,
 * sponsored sweeps) and database: a lease is released only when every condition holds (one test each); createCharge
 * draws a pooled address of the same merchant, chain and mode only, never the same one twice at once; a payment
 * after the re-lease is the new charge's alone; a payment to a pooled address is found by the slow pass, credited to
 * nobody and takes the address out of the pool; a reused address's charge is paid, swept and reconciled.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { createPublicClient, erc20Abi, http, parseEther, parseUnits, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, depositAddressPool, depositAddresses, outboundTransfers, payments, refunds, sweepSchedule } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { newId } from '@/lib/ids';
import { auditDepositAddresses } from '@/lib/ledger/audit-deposit-addresses';
import { reconcileChain } from '@/lib/ledger/reconcile-chains';
import { pollChain, watchedAddresses } from '@/lib/payments/poll-chain';
import { sweepCharge } from '@/lib/payments/sweep-charges';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { setTraceMode } from '@/lib/scanner/internal-transfers';
import { pollIncomingTransfers } from '@/lib/wallets/poll-incoming-transfers';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { sendTokenFrom } from '@/test/anvil';
import { createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';
import { reconcileDueTransfers } from './transfer-outcome-hooks';
import { releaseDepositAddresses } from './release-deposit-addresses';

const CHAIN = 'POLYGON' as const;
const USDC = CHAINS[CHAIN].tokens.find((t) => t.symbol === 'USDC')!;
const USDT = CHAINS[CHAIN].tokens.find((t) => t.symbol === 'USDT')!;
const NATIVE = CHAINS[CHAIN].tokens.find((t) => t.isNative)!;
let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;
const payer = privateKeyToAccount(generatePrivateKey());
const gasTank = gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address;

function setEnv(values: Record<string, string | undefined>) {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetEnvCache();
}

beforeAll(async () => {
  await switchToPrivateDatabase('deposit_pool');
  node = await startLocalChain({ chain: CHAIN });
  await provisionLocalChain({ chain: CHAIN, url: node.url });
  setEnv({
    RPC_URL_POLYGON: node.url,
    LOCAL_CHAINS: 'POLYGON,POLYGON_AMOY',
    SMART_ACCOUNT_CHAINS: CHAIN,
    DEPOSIT_ADDRESS_REUSE_AFTER: '0',
    DEPOSIT_ADDRESS_REUSE: undefined,
  });
  client = createPublicClient({ transport: http(node.url) });
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: payer.address });
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: gasTank });
  await pollChain(CHAIN);
});

afterAll(async () => {
  setEnv({ SMART_ACCOUNT_CHAINS: undefined, DEPOSIT_ADDRESS_REUSE_AFTER: undefined, DEPOSIT_ADDRESS_REUSE: undefined });
  await node.stop();
});

beforeEach(async () => {
  // Each test its own merchant: its pool starts empty.
  merchant = await newMerchant({ verified: true });
  setEnv({ DEPOSIT_ADDRESS_REUSE_AFTER: '0', DEPOSIT_ADDRESS_REUSE: undefined });
});

async function newCharge(apiKey = merchant.liveKey!, amount = '5') {
  const { chargeId, deposit } = await createTestCharge({
    apiKey,
    body: { chargeData: { symbol: 'USDC', chain: CHAIN, tokenAddress: USDC.address, amount } },
  });
  return { chargeId, address: deposit.address as Address };
}

const send = async (token: typeof USDC, to: Address, amount: string): Promise<void> => {
  await sendTokenFrom(node, payer, token, to, amount);
};

/** The charge is over (expired, unpaid) and its late-payment watch has passed. */
async function retire(chargeId: string, status: 'expired' | 'succeeded' = 'expired'): Promise<void> {
  await getDb().update(charges).set({ status }).where(eq(charges.id, chargeId));
  await getDb()
    .update(depositAddresses)
    .set({ watchUntil: new Date(Date.now() - 60_000) })
    .where(eq(depositAddresses.chargeId, chargeId));
}

const lease = async (chargeId: string) =>
  (await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId)))[0]!;
const poolOf = (merchantId: string) => getDb().select().from(depositAddressPool).where(eq(depositAddressPool.merchantId, merchantId));
/** One run of the job over this test's lease only (other tests' leases stay as they are). */
async function release(chargeId: string): Promise<boolean> {
  await getDb()
    .update(depositAddresses)
    .set({ releaseCheckAt: new Date(Date.now() + 3_600_000) })
    .where(and(isNull(depositAddresses.releasedAt), eq(depositAddresses.family, 'evm')));
  await getDb().update(depositAddresses).set({ releaseCheckAt: null }).where(eq(depositAddresses.chargeId, chargeId));
  await releaseDepositAddresses();
  return (await lease(chargeId)).releasedAt !== null;
}
/** Makes `chargeId`'s lease due for the job even though its watch has not passed (to test the watch rule itself). */
const dueNow = (chargeId: string) =>
  getDb()
    .update(depositAddresses)
    .set({ releaseCheckAt: new Date(Date.now() - 1_000) })
    .where(eq(depositAddresses.chargeId, chargeId));

describe('releasing a lease into its merchant pool', () => {
  it('releases a settled, swept, empty lease past its watch: released once, pooled once', async () => {
    const { chargeId, address } = await newCharge();
    await retire(chargeId);
    expect(await release(chargeId)).toBe(true);
    expect(await poolOf(merchant.id)).toEqual([
      expect.objectContaining({ chain: CHAIN, address, mode: 'live', lastDepositAddressId: (await lease(chargeId)).id }),
    ]);
    // Idempotent: a second run (another worker) changes nothing.
    const releasedAt = (await lease(chargeId)).releasedAt;
    await getDb().update(depositAddresses).set({ releaseCheckAt: null }).where(eq(depositAddresses.chargeId, chargeId));
    await releaseDepositAddresses();
    expect((await lease(chargeId)).releasedAt).toEqual(releasedAt);
    expect(await poolOf(merchant.id)).toHaveLength(1);
  });

  it('releases a lease once when several workers run at the same time', async () => {
    const { chargeId } = await newCharge();
    await retire(chargeId);
    await getDb()
      .update(depositAddresses)
      .set({ releaseCheckAt: new Date(Date.now() + 3_600_000) })
      .where(and(isNull(depositAddresses.releasedAt), eq(depositAddresses.family, 'evm')));
    await getDb().update(depositAddresses).set({ releaseCheckAt: null }).where(eq(depositAddresses.chargeId, chargeId));
    const runs = await Promise.all([releaseDepositAddresses(), releaseDepositAddresses(), releaseDepositAddresses()]);
    expect(runs.reduce((sum, run) => sum + run.released, 0)).toBe(1);
    expect(await poolOf(merchant.id)).toHaveLength(1);
  });

  it('keeps the lease of a charge that is not terminal', async () => {
    const { chargeId } = await newCharge();
    await retire(chargeId);
    await getDb().update(charges).set({ status: 'processing' }).where(eq(charges.id, chargeId));
    expect(await release(chargeId)).toBe(false);
    expect(await poolOf(merchant.id)).toEqual([]);
  });

  it('keeps the lease of a charge flagged for review', async () => {
    const { chargeId } = await newCharge();
    await retire(chargeId);
    await getDb().update(charges).set({ needsReviewSince: new Date() }).where(eq(charges.id, chargeId));
    expect(await release(chargeId)).toBe(false);
  });

  it('keeps the lease while its late-payment watch runs', async () => {
    const { chargeId } = await newCharge();
    await getDb().update(charges).set({ status: 'expired' }).where(eq(charges.id, chargeId));
    await dueNow(chargeId);
    await releaseDepositAddresses();
    expect((await lease(chargeId)).releasedAt).toBeNull();
  });

  it('keeps the lease while a sweep of its charge is due or stuck', async () => {
    const { chargeId } = await newCharge();
    await retire(chargeId, 'succeeded');
    await getDb()
      .insert(sweepSchedule)
      .values({ chargeId, dueAt: new Date() })
      .onConflictDoUpdate({ target: sweepSchedule.chargeId, set: { dueAt: new Date() } });
    expect(await release(chargeId)).toBe(false);
    await getDb().update(sweepSchedule).set({ dueAt: null, stuckAt: new Date() }).where(eq(sweepSchedule.chargeId, chargeId));
    expect(await release(chargeId)).toBe(false);
    await getDb().update(sweepSchedule).set({ stuckAt: null }).where(eq(sweepSchedule.chargeId, chargeId));
    expect(await release(chargeId)).toBe(true);
  });

  it('keeps the lease while a refund of its charge waits for the payer', async () => {
    const { chargeId } = await newCharge();
    await retire(chargeId);
    await getDb()
      .insert(refunds)
      .values({
        id: newId('refund'),
        chargeId,
        merchantId: merchant.id,
        mode: 'live',
        chain: CHAIN,
        tokenAddress: USDC.address,
        amountBaseUnits: 1n,
        actor: 'test',
        claimStatus: 'awaiting_claim',
        claimExpiresAt: new Date(Date.now() + 3_600_000),
      });
    expect(await release(chargeId)).toBe(false);
  });

  it('keeps the lease while a transfer from its address is in flight', async () => {
    const { chargeId, address } = await newCharge();
    await retire(chargeId);
    const id = newId('outboundTransfer');
    await getDb()
      .insert(outboundTransfers)
      .values({
        id,
        purpose: 'refund',
        chain: CHAIN,
        chargeId,
        fromAddress: address,
        toAddress: payer.address,
        tokenAddress: USDC.address,
        amountBaseUnits: 1n,
        nonce: 0,
        txHash: `0x${'ab'.repeat(32)}`,
        rawTransaction: '0x00',
        status: 'broadcast',
        nextCheckAt: new Date(Date.now() + 3_600_000),
      });
    try {
      expect(await release(chargeId)).toBe(false);
    } finally {
      await getDb().delete(outboundTransfers).where(eq(outboundTransfers.id, id));
    }
    expect(await release(chargeId)).toBe(true);
  });

  it('keeps the lease of an address that holds anything: the charge token, another token, the coin', async () => {
    for (const [token, amount] of [
      [USDC, '1'],
      [USDT, '1'],
      [NATIVE, '0.001'],
    ] as const) {
      const { chargeId, address } = await newCharge();
      await retire(chargeId);
      await send(token, address, amount);
      expect(await release(chargeId), token.symbol).toBe(false);
    }
    expect(await poolOf(merchant.id)).toEqual([]);
  });

  it('backs off a lease it could not release, so stuck leases do not hold the queue', async () => {
    const { chargeId } = await newCharge();
    await retire(chargeId);
    await getDb().update(charges).set({ status: 'processing' }).where(eq(charges.id, chargeId));
    await release(chargeId);
    expect((await lease(chargeId)).releaseCheckAt!.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
  });
});

describe('drawing a pooled address in createCharge', () => {
  async function pooled(count: number, apiKey = merchant.liveKey!): Promise<Address[]> {
    // All leased first: with REUSE_AFTER=0 a charge made after a release would lease that address again.
    const made = [];
    for (let i = 0; i < count; i++) made.push(await newCharge(apiKey));
    for (const { chargeId } of made) {
      await retire(chargeId);
      expect(await release(chargeId)).toBe(true);
    }
    expect(await poolOf(merchant.id)).toHaveLength(count);
    return made.map((m) => m.address);
  }

  it('gives a fresh address when the pool is empty, as before', async () => {
    const before = await getDb().select({ address: depositAddresses.address }).from(depositAddresses);
    const { address } = await newCharge();
    expect(before.map((row) => row.address)).not.toContain(address);
  });

  it('leases a pooled address of the merchant again: a new row, the old lease kept as history', async () => {
    const [address] = await pooled(1);
    const { chargeId } = await newCharge();
    const row = await lease(chargeId);
    expect(row).toMatchObject({ address, releasedAt: null });
    const history = await getDb().select().from(depositAddresses).where(eq(depositAddresses.address, address!));
    expect(history).toHaveLength(2);
    expect(new Set(history.map((h) => h.derivationIndex)).size).toBe(1);
    expect(await poolOf(merchant.id)).toEqual([]);
  });

  it('never draws the same pooled address twice at once: 20 charges in parallel against 5 pooled addresses', async () => {
    const free = await pooled(5);
    const made = await Promise.all(Array.from({ length: 20 }, () => newCharge()));
    const addresses = made.map((m) => m.address);
    expect(new Set(addresses).size).toBe(20);
    // Each pooled address went to exactly one charge (a locked one is skipped, not waited for), the other 15 are fresh.
    expect(addresses.filter((a) => free.includes(a)).sort()).toEqual([...free].sort());
    const open = await getDb()
      .select()
      .from(depositAddresses)
      .where(and(inArray(depositAddresses.address, free), isNull(depositAddresses.releasedAt)));
    expect(open).toHaveLength(5);
    expect(await poolOf(merchant.id)).toEqual([]);
  });

  it("never draws another merchant's address, nor one of another mode", async () => {
    const [address] = await pooled(1);
    const other = await newMerchant({ verified: true });
    const theirs = await newCharge(other.liveKey!);
    expect(theirs.address).not.toBe(address);
    // The same merchant's pool row turned to test mode: a live charge leaves it.
    await getDb().update(depositAddressPool).set({ mode: 'test' }).where(eq(depositAddressPool.merchantId, merchant.id));
    expect((await newCharge()).address).not.toBe(address);
    await getDb().update(depositAddressPool).set({ mode: 'live' }).where(eq(depositAddressPool.merchantId, merchant.id));
    expect((await newCharge()).address).toBe(address);
  });

  it('leaves an address in the pool until it has rested DEPOSIT_ADDRESS_REUSE_AFTER, and not at all with reuse off', async () => {
    const [address] = await pooled(1);
    setEnv({ DEPOSIT_ADDRESS_REUSE_AFTER: '1h' });
    expect((await newCharge()).address).not.toBe(address);
    setEnv({ DEPOSIT_ADDRESS_REUSE_AFTER: '0', DEPOSIT_ADDRESS_REUSE: 'false' });
    expect((await newCharge()).address).not.toBe(address);
    setEnv({ DEPOSIT_ADDRESS_REUSE: undefined });
    expect((await newCharge()).address).toBe(address);
  });
});

describe('a reused address in the books', () => {
  const scanners = async () => {
    for (let i = 0; i < 3; i++) {
      await pollChain(CHAIN);
      await pollIncomingTransfers(CHAIN);
    }
  };
  const paymentsOf = (chargeId: string) => getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
  const ours = (run: Awaited<ReturnType<typeof reconcileChain>>, address: string) =>
    run.discrepancies.filter((d) => d.address.toLowerCase() === address.toLowerCase());

  async function sweepUntilDone(chargeId: string): Promise<void> {
    for (let i = 0; i < 10; i++) {
      if ((await sweepCharge(chargeId)) === 'nothing_owed') return;
      await reconcileDueTransfers({ ignoreSchedule: true });
    }
    throw new Error('the sweep did not finish');
  }

  it('pays, sweeps and reconciles a charge on a reused address; the payment is the new charge’s only', async () => {
    const first = await newCharge(merchant.liveKey!, '3');
    await send(USDC, first.address, '3');
    await scanners();
    expect((await getDb().select().from(charges).where(eq(charges.id, first.chargeId)))[0]!.status).toBe('succeeded');
    await sweepUntilDone(first.chargeId);
    await getDb()
      .update(depositAddresses)
      .set({ watchUntil: new Date(Date.now() - 60_000) })
      .where(eq(depositAddresses.chargeId, first.chargeId));
    expect(await release(first.chargeId)).toBe(true);

    const second = await newCharge(merchant.liveKey!, '4');
    expect(second.address).toBe(first.address);
    await send(USDC, second.address, '4');
    await scanners();
    expect(await paymentsOf(first.chargeId)).toHaveLength(1); // its own 3 USDC only
    expect(await paymentsOf(second.chargeId)).toEqual([expect.objectContaining({ amountBaseUnits: parseUnits('4', 6), isLate: false })]);
    expect((await getDb().select().from(charges).where(eq(charges.id, second.chargeId)))[0]!.status).toBe('succeeded');
    await sweepUntilDone(second.chargeId);
    const sweeps = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, second.chargeId), eq(outboundTransfers.purpose, 'sweep')));
    expect(sweeps).toEqual([
      expect.objectContaining({ amountBaseUnits: parseUnits('4', 6), status: 'confirmed', fromAddress: first.address }),
    ]);
    expect(
      await client.readContract({ address: USDC.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [first.address] }),
    ).toBe(0n);
    await scanners();
    expect(ours(await reconcileChain(CHAIN), first.address)).toEqual([]);
    // The delegation made for the first sweep served the second: the deposit never held POL.
    expect(await client.getBalance({ address: first.address })).toBe(0n);

    // Leased a third time, for a POL charge: what earlier leases moved out of the address (their sweeps, the fees
    // recorded on them) is not this lease's, so the watcher's balance check credits it nothing.
    await getDb()
      .update(depositAddresses)
      .set({ watchUntil: new Date(Date.now() - 60_000) })
      .where(eq(depositAddresses.chargeId, second.chargeId));
    expect(await release(second.chargeId)).toBe(true);
    const { chargeId: third, deposit } = await createTestCharge({
      apiKey: merchant.liveKey!,
      body: { chargeData: { symbol: 'POL', chain: CHAIN, tokenAddress: NATIVE.address, amount: '1' } },
    });
    expect(deposit.address).toBe(first.address);
    // An earlier lease's POL outflow, as a top-up chain records it (its fee paid from the deposit, its dust-free
    // balance released at zero): before this lease began, so not this lease's.
    const earlierOutflow = newId('outboundTransfer');
    await getDb()
      .insert(outboundTransfers)
      .values({
        id: earlierOutflow,
        purpose: 'sweep',
        chain: CHAIN,
        chargeId: first.chargeId,
        fromAddress: first.address,
        toAddress: payer.address,
        tokenAddress: NATIVE.address,
        amountBaseUnits: parseEther('0.5'),
        gasFeeBaseUnits: 21_000n,
        nonce: 0,
        txHash: `0x${'cd'.repeat(32)}`,
        rawTransaction: '0x00',
        status: 'confirmed',
        includedBlockNumber: 1n,
        nextCheckAt: new Date(Date.now() + 3_600_000),
        createdAt: new Date(Date.now() - 3_600_000),
      });
    // As on a node without traces: the watcher credits native balance the records do not explain.
    setTraceMode(publicClientFor(CHAIN)!, 'none');
    try {
      await client.request({ method: 'evm_mine' } as never);
      await scanners();
    } finally {
      setTraceMode(publicClientFor(CHAIN)!, 'trace_block');
      await getDb().delete(outboundTransfers).where(eq(outboundTransfers.id, earlierOutflow));
    }
    expect(await paymentsOf(third)).toEqual([]);
    expect((await getDb().select().from(charges).where(eq(charges.id, third)))[0]!.status).toBe('pending');
  });

  it('never watches a released lease, even one whose watch would still run', async () => {
    const { chargeId, address } = await newCharge();
    const watchUntil = (await lease(chargeId)).watchUntil;
    await retire(chargeId);
    expect(await release(chargeId)).toBe(true);
    await getDb().update(depositAddresses).set({ watchUntil }).where(eq(depositAddresses.chargeId, chargeId));
    expect((await watchedAddresses(getDb(), CHAIN, new Date(), [address])).size).toBe(0);
    const next = await newCharge();
    expect(next.address).toBe(address);
    expect((await watchedAddresses(getDb(), CHAIN, new Date(), [address])).get(address.toLowerCase())).toMatchObject({
      chargeId: next.chargeId,
    });
  });

  it('finds a payment to a pooled address with the slow pass: the last lease’s late payment, credited to nobody, out of the pool', async () => {
    // Leased twice before it was pooled: the funds are the latest lease's.
    const earlier = await newCharge();
    await retire(earlier.chargeId);
    expect(await release(earlier.chargeId)).toBe(true);
    const { chargeId, address } = await newCharge();
    expect(address).toBe(earlier.address);
    await retire(chargeId);
    expect(await release(chargeId)).toBe(true);
    await send(USDC, address, '2');
    await scanners();
    expect(await paymentsOf(chargeId)).toEqual([]); // unwatched, as any address past its watch

    await getDb().update(depositAddresses).set({ lastAuditedAt: null }).where(eq(depositAddresses.address, address));
    const [run] = await auditDepositAddresses({ chains: [CHAIN] });
    expect(run!.latePayments).toBeGreaterThanOrEqual(1);
    expect(await paymentsOf(chargeId)).toEqual([expect.objectContaining({ isLate: true, amountBaseUnits: parseUnits('2', 6) })]);
    expect(await paymentsOf(earlier.chargeId)).toEqual([]);
    expect(await poolOf(merchant.id)).toEqual([]);
    // The next charge gets a fresh address, and the books agree.
    expect((await newCharge()).address).not.toBe(address);
    expect(ours(await reconcileChain(CHAIN), address)).toEqual([]);
  });
});
