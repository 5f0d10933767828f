/**
 * Solana expiry waits for the watcher (issue 29 point 2, review N5 b), through the database: charges created by
 * the API, paid by real transactions in LiteSVM, found by pollSolana through @solana/kit's RPC client over a
 * transport that also answers getSlot / getBlockTime (test/litesvm-clock.ts), then expired by expireDueCharges.
 * Its own database: the Solana cursor row this file moves must not hold other files' Solana charges, and no
 * other file's watcher searches these deposits on another ledger.
 */
import { and, eq } from 'drizzle-orm';
import { LiteSVM } from 'litesvm';
import { createSolanaRpcFromTransport, type Address, type KeyPairSigner } from '@solana/kit';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SOLANA_NATIVE_MINT } from '@/lib/chains/registry';
import { outsideTransactionsTransport } from '@/lib/chains/solana-rpc';
import { expireDueCharges } from '@/lib/charges/expire-charges';
import { failUnderpaidCharges } from '@/lib/payments/settle-charge';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, payments, scannerCursors } from '@/lib/db/schema';
import { createTestCharge, newMerchant, serveChainsWithoutNode, type TestMerchant } from '@/test/fixtures';
import { advanceClock, ledgerNow, withClock } from '@/test/litesvm-clock';
import { LiteSvmLedger, expectSuccess, fundedWallet, solPayment } from '@/test/litesvm-view';
import { switchToPrivateDatabase } from '@/test/private-database';
import { pollSolana, type SolanaWatcherRpc } from './poll-solana';

let merchant: TestMerchant;
let ledger: LiteSvmLedger;
let payer: KeyPairSigner;

beforeAll(async () => {
  await switchToPrivateDatabase('solana_expiry');
  serveChainsWithoutNode('SOLANA');
  merchant = await newMerchant({ verified: true });
});

beforeEach(async () => {
  ledger = new LiteSvmLedger(new LiteSVM());
  payer = await fundedWallet(ledger.svm, 10n);
});

async function solCharge(amount: string): Promise<{ chargeId: string; address: Address; reference: Address }> {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.liveKey!,
    body: { chargeData: { symbol: 'SOL', chain: 'SOLANA', tokenAddress: SOLANA_NATIVE_MINT, amount } },
  });
  return { chargeId, address: deposit.address as Address, reference: deposit.reference as Address };
}

const statusOf = async (chargeId: string) => (await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status;
const paymentsOf = (chargeId: string) => getDb().select().from(payments).where(eq(payments.chargeId, chargeId));

describe('Solana expiry waits for the watcher’s cursor (review N5 b)', () => {
  /** The ledger's RPC answering getSlot / getBlockTime too, so the watcher can claim time. */
  let timed: SolanaWatcherRpc;

  beforeEach(() => {
    timed = createSolanaRpcFromTransport(outsideTransactionsTransport(withClock(ledger)));
  });

  const setExpiry = (chargeId: string, expiresAt: Date) => getDb().update(charges).set({ expiresAt }).where(eq(charges.id, chargeId));
  const searchedOf = async (chargeId: string) =>
    (
      await getDb()
        .select({ until: depositAddresses.searchedUntil, slot: depositAddresses.searchedSlot })
        .from(depositAddresses)
        .where(eq(depositAddresses.chargeId, chargeId))
    )[0]!;
  const chainCursor = async () =>
    (
      await getDb()
        .select()
        .from(scannerCursors)
        .where(and(eq(scannerCursors.chain, 'SOLANA'), eq(scannerCursors.consumer, 'charges')))
    )[0];
  const seconds = (at: Date, delta: number) => new Date(at.getTime() + delta * 1000);

  it('a payment made before expiry but found after it (the watcher delayed) makes the charge succeed, not expire-then-late', async () => {
    const { chargeId, address, reference } = await solCharge('1');
    await pollSolana('SOLANA', { rpc: timed });
    const expiresAt = seconds(ledgerNow(ledger), 30);
    await setExpiry(chargeId, expiresAt);
    // Searched up to just before the pass's slot: not past expiry.
    expect((await searchedOf(chargeId)).until).toEqual(seconds(ledgerNow(ledger), -1));
    expect((await chainCursor())!.scannedUntil!.getTime()).toBeLessThan(expiresAt.getTime());

    // Paid 1 s after the last search, well before expiry…
    const sent = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 1_000_000_000n, references: [reference] })),
    );
    expect(sent.view.blockTime * 1000).toBeLessThan(expiresAt.getTime());
    ledger.finalizeThrough();
    // …and the cluster moves past expiry while the watcher does not run.
    advanceClock(ledger, 120);
    // Expiry is due by the clock (expiresAt is long past on this machine), but the watcher has not searched that far.
    expect(expiresAt.getTime()).toBeLessThan(Date.now());
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('pending');

    await pollSolana('SOLANA', { rpc: timed });
    expect(await statusOf(chargeId)).toBe('succeeded');
    expect(await paymentsOf(chargeId)).toEqual([
      expect.objectContaining({ txHash: sent.signature, isLate: false, blockTime: new Date(sent.view.blockTime * 1000) }),
    ]);
    expect((await searchedOf(chargeId)).until!.getTime()).toBeGreaterThan(expiresAt.getTime());
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('succeeded');
  });

  it('once the watcher has searched past expiry and found nothing, the charge expires', async () => {
    const { chargeId } = await solCharge('1');
    await pollSolana('SOLANA', { rpc: timed });
    const expiresAt = seconds(ledgerNow(ledger), 10);
    await setExpiry(chargeId, expiresAt);
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('pending');
    advanceClock(ledger, 10);
    // The cluster is at expiry's second, which a later slot may still carry: not searched through it yet.
    await pollSolana('SOLANA', { rpc: timed });
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('pending');
    advanceClock(ledger, 1);
    await pollSolana('SOLANA', { rpc: timed });
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('expired');
  });

  it('an underpaid charge fails only once the watcher has searched past its expiry: a top-up made in time still completes it', async () => {
    const { chargeId, address, reference } = await solCharge('1');
    expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 400_000_000n, references: [reference] })),
    );
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc: timed });
    expect(await statusOf(chargeId)).toBe('processing');
    const expiresAt = seconds(ledgerNow(ledger), 20);
    await setExpiry(chargeId, expiresAt);
    // The rest, paid in time; the cluster moves on past expiry before the watcher looks again.
    const topUp = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 600_000_000n, references: [reference] })),
    );
    ledger.finalizeThrough();
    advanceClock(ledger, 60);
    await getDb().transaction((tx) => failUnderpaidCharges(tx));
    expect(await statusOf(chargeId)).toBe('processing');
    await pollSolana('SOLANA', { rpc: timed });
    expect(await statusOf(chargeId)).toBe('succeeded');
    expect((await paymentsOf(chargeId)).find((p) => p.txHash === topUp.signature)).toMatchObject({ isLate: false });
  });

  it('an underpaid charge with nothing more in time fails once the watcher has searched past its expiry', async () => {
    const { chargeId, address, reference } = await solCharge('1');
    expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 400_000_000n, references: [reference] })),
    );
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc: timed });
    await setExpiry(chargeId, seconds(ledgerNow(ledger), 5));
    await getDb().transaction((tx) => failUnderpaidCharges(tx));
    expect(await statusOf(chargeId)).toBe('processing');
    advanceClock(ledger, 10);
    await pollSolana('SOLANA', { rpc: timed });
    await getDb().transaction((tx) => failUnderpaidCharges(tx));
    expect(await statusOf(chargeId)).toBe('failed');
  });

  it('lateness is judged by block time: mined after expiry but found while the charge was still open, it is late and not counted', async () => {
    const { chargeId, address, reference } = await solCharge('1');
    await pollSolana('SOLANA', { rpc: timed });
    const expiresAt = seconds(ledgerNow(ledger), 5);
    await setExpiry(chargeId, expiresAt);
    advanceClock(ledger, 10);
    const sent = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 1_000_000_000n, references: [reference] })),
    );
    expect(sent.view.blockTime * 1000).toBeGreaterThan(expiresAt.getTime());
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc: timed });
    expect(await paymentsOf(chargeId)).toEqual([
      expect.objectContaining({ txHash: sent.signature, isLate: true, blockTime: new Date(sent.view.blockTime * 1000) }),
    ]);
    expect(await statusOf(chargeId)).toBe('pending');
    await expireDueCharges();
    expect(await statusOf(chargeId)).toBe('expired');
  });

  it('a listed transaction the node cannot return yet holds the address’s cursor: it may be a payment in time', async () => {
    const { chargeId, address, reference } = await solCharge('1');
    await pollSolana('SOLANA', { rpc: timed });
    const before = await searchedOf(chargeId);
    const sent = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 1_000_000_000n, references: [reference] })),
    );
    ledger.lagging.add(sent.signature);
    advanceClock(ledger, 60);
    await pollSolana('SOLANA', { rpc: timed });
    expect(await searchedOf(chargeId)).toEqual(before);
    ledger.lagging.delete(sent.signature);
    await pollSolana('SOLANA', { rpc: timed });
    expect((await searchedOf(chargeId)).until).toEqual(seconds(ledgerNow(ledger), -1));
  });

  it('a pass cut by its budget moves only the addresses it searched, and the chain’s cursor never claims more', async () => {
    await solCharge('1');
    const second = await solCharge('1');
    // Past every earlier test's clock, so that each address's search time is this ledger's.
    advanceClock(ledger, 1_000);
    // Every watched address searched once, at one time.
    await pollSolana('SOLANA', { rpc: timed, maxDeposits: 100_000 });
    const searchedAt = seconds(ledgerNow(ledger), -1);
    expect((await chainCursor())!.scannedUntil).toEqual(searchedAt);
    advanceClock(ledger, 100);
    const tried = () =>
      getDb()
        .select({ id: depositAddresses.id, at: depositAddresses.searchedAt, until: depositAddresses.searchedUntil })
        .from(depositAddresses)
        .orderBy(depositAddresses.id);
    const before = await tried();
    ledger.calls.length = 0;
    await pollSolana('SOLANA', { rpc: timed, maxDeposits: 1 });
    // One address searched (its reference and its receiving account), the others not touched.
    const listed = new Set(ledger.calls.filter((call) => call.method === 'getSignaturesForAddress').map((call) => call.params[0]));
    expect(listed.size).toBe(2);
    const after = await tried();
    const changed = after.filter((row, i) => row.at!.getTime() !== before[i]!.at!.getTime());
    expect(changed).toHaveLength(1);
    expect(changed[0]!.until).toEqual(seconds(ledgerNow(ledger), -1));
    expect(after.filter((row, i) => row.until?.getTime() !== before[i]!.until?.getTime()).map((row) => row.id)).toEqual(
      changed.map((row) => row.id),
    );
    expect((await chainCursor())!.scannedUntil).toEqual(searchedAt);
    // A full pass catches up.
    await pollSolana('SOLANA', { rpc: timed, maxDeposits: 100_000 });
    expect((await chainCursor())!.scannedUntil).toEqual(seconds(ledgerNow(ledger), -1));
    expect((await searchedOf(second.chargeId)).until).toEqual(seconds(ledgerNow(ledger), -1));
  });
});
