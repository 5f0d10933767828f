/**
 * The Solana watcher end to end through the database: charges created by the API, paid by real
 * transactions executed in LiteSVM, found through @solana/kit's RPC client whose transport serves them
 * (test/litesvm-view.ts says what a live node would add).
 */
import { eq } from 'drizzle-orm';
import { LiteSVM } from 'litesvm';
import { address, createSolanaRpcFromTransport, type Address, type KeyPairSigner } from '@solana/kit';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAINS, SOLANA_NATIVE_MINT } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, payments } from '@/lib/db/schema';
import { createTestCharge, newMerchant, serveChainsWithoutNode, type TestMerchant } from '@/test/fixtures';
import { loadCheckoutStatus } from '@/lib/payments/checkout-status';
import { parseSolanaPayTransferRequest } from './solana-pay-transfer-request';
import { LiteSvmLedger, expectSuccess, fundedWallet, mintTokens, plantMint, solPayment, tokenPayment } from '@/test/litesvm-view';
import { outsideTransactionsTransport } from '@/lib/chains/solana-rpc';
import { pollSolana, type SolanaWatcherRpc } from './poll-solana';

let merchant: TestMerchant;
let ledger: LiteSvmLedger;
let rpc: SolanaWatcherRpc;
let payer: KeyPairSigner;

beforeAll(async () => {
  serveChainsWithoutNode('SOLANA');
  merchant = await newMerchant({ verified: true });
});

beforeEach(async () => {
  ledger = new LiteSvmLedger(new LiteSVM());
  // Guarded like the configured RPC: a request inside a database transaction fails the test.
  rpc = createSolanaRpcFromTransport(outsideTransactionsTransport(ledger.transport));
  payer = await fundedWallet(ledger.svm, 10n);
});

const USDC = CHAINS.SOLANA.tokens.find((t) => t.symbol === 'USDC')!;

const solCharge = (amount: string) => charge('SOL', SOLANA_NATIVE_MINT, amount);

async function charge(
  symbol: string,
  tokenAddress: string,
  amount: string,
): Promise<{ chargeId: string; address: Address; reference: Address }> {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.liveKey!,
    body: { chargeData: { symbol, chain: 'SOLANA', tokenAddress, amount } },
  });
  return { chargeId, address: deposit.address as Address, reference: deposit.reference as Address };
}

const statusOf = async (chargeId: string) => (await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status;
const paymentsOf = (chargeId: string) => getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
const cursorsOf = async (chargeId: string) =>
  (
    await getDb()
      .select({ referenceCursor: depositAddresses.referenceCursor, receiveCursor: depositAddresses.receiveCursor })
      .from(depositAddresses)
      .where(eq(depositAddresses.chargeId, chargeId))
  )[0];

describe('Solana Pay charges', () => {
  it('get their own deposit address and reference key, offered as a Solana Pay transfer request', async () => {
    const { chargeId, address, reference } = await solCharge('0.25');
    expect(reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const checkout = await loadCheckoutStatus(chargeId);
    const parsed = parseSolanaPayTransferRequest(checkout!.deposit!.uri, { decimals: 9 });
    expect(parsed).toMatchObject({ ok: true, request: { recipient: address, amount: '0.25', references: [reference] } });
    expect(checkout!.deposit!.address).toBe(address);
  });

  it('a referenced payment is pending at confirmed, succeeds when finalized, and is counted once however often it is seen', async () => {
    const { chargeId, address, reference } = await solCharge('1.5');
    const sent = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 1_500_000_000n, references: [reference] })),
    );
    await pollSolana('SOLANA', { rpc });
    expect(await statusOf(chargeId)).toBe('processing');
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc });
    await pollSolana('SOLANA', { rpc });
    expect(await statusOf(chargeId)).toBe('succeeded');
    const rows = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      txHash: sent.signature,
      status: 'confirmed',
      amountBaseUnits: 1_500_000_000n,
      fromAddress: payer.address,
    });
  });

  it('underpaid shows the amount still due; a plain transfer without the reference counts too; payments to others are ignored', async () => {
    const { chargeId, address, reference } = await solCharge('2');
    expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 500_000_000n, references: [reference] })),
    );
    // A copy-paste send from any wallet: the deposit address, no reference. It is this charge's money too.
    const plain = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 250_000_000n, references: [] })),
    );
    // The charge's reference on a transfer to someone else: not a payment of it.
    const elsewhere = await fundedWallet(ledger.svm, 1n);
    expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: elsewhere.address, lamports: 5_000_000_000n, references: [reference] })),
    );
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc });
    expect(await statusOf(chargeId)).toBe('processing');
    expect((await loadCheckoutStatus(chargeId))!.due).toBe('1.25');
    expect((await paymentsOf(chargeId)).find((p) => p.txHash === plain.signature)).toMatchObject({
      status: 'confirmed',
      amountBaseUnits: 250_000_000n,
    });
    expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 1_250_000_000n, references: [reference] })),
    );
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc });
    expect(await statusOf(chargeId)).toBe('succeeded');
  });

  it('a plain token transfer to the deposit address’s token account (the wallet address nowhere in it) is credited', async () => {
    const authority = await fundedWallet(ledger.svm, 1n);
    const mint = address(USDC.address);
    plantMint(ledger, { address: mint, authority: authority.address, decimals: USDC.decimals });
    await mintTokens(ledger, { authority, mint, owner: payer.address, amount: 50_000_000n });
    const { chargeId, address: deposit } = await charge('USDC', USDC.address, '12.5');
    // The deposit's token account exists already (opened by someone, receiving nothing).
    await mintTokens(ledger, { authority, mint, owner: deposit, amount: 0n });
    const sent = expectSuccess(
      ledger.send(
        await tokenPayment(ledger.svm, {
          payer,
          mint,
          decimals: USDC.decimals,
          recipient: deposit,
          amount: 12_500_000n,
          references: [],
          createAccount: false,
        }),
      ),
    );
    expect(sent.view.transaction.message.accountKeys).not.toContain(deposit);
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc });
    expect(await statusOf(chargeId)).toBe('succeeded');
    expect(await paymentsOf(chargeId)).toEqual([
      expect.objectContaining({ txHash: sent.signature, amountBaseUnits: 12_500_000n, status: 'confirmed' }),
    ]);
  });

  it('each reference and receiving account keeps its own cursor: a poll lists only what is newer than what is finalized and handled', async () => {
    const first = await solCharge('1');
    const second = await solCharge('1');
    const a = expectSuccess(
      ledger.send(
        await solPayment(ledger.svm, { payer, recipient: first.address, lamports: 1_000_000_000n, references: [first.reference] }),
      ),
    );
    const b = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: second.address, lamports: 400_000_000n, references: [] })),
    );
    // Confirmed, not finalized: no cursor may pass them yet.
    await pollSolana('SOLANA', { rpc });
    expect(await cursorsOf(first.chargeId)).toEqual({ referenceCursor: null, receiveCursor: null });
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc });
    expect(await cursorsOf(first.chargeId)).toEqual({ referenceCursor: a.signature, receiveCursor: a.signature });
    expect(await cursorsOf(second.chargeId)).toEqual({ referenceCursor: null, receiveCursor: b.signature });
    expect(await statusOf(first.chargeId)).toBe('succeeded');

    ledger.calls.length = 0;
    await pollSolana('SOLANA', { rpc });
    const untilFor = (listed: string) =>
      ledger.calls
        .filter((call) => call.method === 'getSignaturesForAddress' && call.params[0] === listed)
        .map((call) => (call.params[1] as { until?: string }).until);
    expect(untilFor(first.reference)).toEqual([a.signature]);
    expect(untilFor(first.address)).toEqual([a.signature]);
    expect(untilFor(second.reference)).toEqual([undefined]);
    expect(untilFor(second.address)).toEqual([b.signature]);
    // Nothing behind a cursor is fetched again.
    expect(
      ledger.calls.filter((call) => call.method === 'getTransaction' && [a.signature, b.signature].includes(call.params[0] as string)),
    ).toEqual([]);
    // The payments stay as they were.
    expect(await paymentsOf(first.chargeId)).toHaveLength(1);
    expect(await paymentsOf(second.chargeId)).toEqual([expect.objectContaining({ txHash: b.signature, status: 'confirmed' })]);
  });

  it('one charge’s RPC error skips that charge only: the others’ payments still commit, and it is caught up on the next poll', async () => {
    const failing = await solCharge('1');
    const healthy = await solCharge('1');
    for (const target of [failing, healthy]) {
      expectSuccess(
        ledger.send(
          await solPayment(ledger.svm, { payer, recipient: target.address, lamports: 1_000_000_000n, references: [target.reference] }),
        ),
      );
    }
    ledger.finalizeThrough();
    let isFailing = true;
    const flaky = createSolanaRpcFromTransport(
      outsideTransactionsTransport(async (request) => {
        const { method, params } = request.payload as { method: string; params: unknown[] };
        if (isFailing && method === 'getSignaturesForAddress' && params[0] === failing.address) throw new Error('HTTP 502 from the RPC');
        return ledger.transport(request);
      }),
    );
    expect(await pollSolana('SOLANA', { rpc: flaky })).not.toBeNull();
    expect(await statusOf(healthy.chargeId)).toBe('succeeded');
    expect(await statusOf(failing.chargeId)).toBe('pending');
    expect(await paymentsOf(failing.chargeId)).toHaveLength(0);
    isFailing = false;
    await pollSolana('SOLANA', { rpc: flaky });
    expect(await statusOf(failing.chargeId)).toBe('succeeded');
  });
});
