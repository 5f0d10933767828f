/**
 * Solana sweeps end to end through the database: charges created by the API, paid by real transactions
 * executed in LiteSVM, found by pollSolana, then swept by lib/payments/sweep-charges.ts and reconciled by
 * the outbound-transfer reconciler, all through @solana/kit's RPC client whose transport serves LiteSVM
 * (test/litesvm-view.ts says what a live node would add).
 *
 * SOL charges use a test key (SOLANA_DEVNET), the SPL charge a live key (SOLANA, whose registry has
 * USDC): watch-solana.test.ts polls SOLANA with its own ledger from another worker, and two watchers of one
 * chain on two different ledgers would disagree, so this file stays off SOLANA where it can.
 *
 * Its RPC is guarded as the configured one is (lib/db/transaction-scope.ts): the sweep reads the chain before it
 * takes the charge's lock (review N12), or every sweep below fails.
 *
 * While this file runs, PostgreSQL itself refuses any status change of a Solana outbound transfer that the
 * transfer table (lib/transactions/state.ts) does not list, so every sweep below also proves the Solana
 * writer follows the table (it once moved broadcast → confirmed directly).
 */
import { and, eq } from 'drizzle-orm';
import {
  address,
  createSolanaRpcFromTransport,
  generateKeyPairSigner,
  lamports,
  type Address,
  type KeyPairSigner,
  type RpcTransport,
} from '@solana/kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAINS, SOLANA_NATIVE_MINT, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { chargeEvents, charges, outboundTransfers, wallets } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';
import { createTestCharge, type TestMerchant } from '@/test/fixtures';
import { gasTankReport } from '@/lib/transactions/gas-tank';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { chargesAwaitingSweep, sweepCharge, type SweepOutcome } from '@/lib/payments/sweep-charges';
import { type LiteSvmLedger, expectSuccess, fundedWallet, mintTokens, plantMint, solPayment, tokenPayment } from '@/test/litesvm-view';
import { EXPIRED_ERROR } from './solana-transfers';
import { outsideTransactionsTransport, type SolanaRpc } from '@/lib/chains/solana-rpc';
import { RpcInsideTransactionError } from '@/lib/db/transaction-scope';
import { pollSolana } from '@/lib/payments/solana/poll-solana';
import { freshSolanaLedger, startSolanaMoneyWorld, stopSolanaMoneyWorld, tank, tokenBalanceIn } from '@/test/solana-money-world';

const USDC = CHAINS.SOLANA.tokens.find((t) => t.symbol === 'USDC')!;
/** Two signatures (the gas tank's and the deposit's) at LiteSVM's default 5000 lamports each. */
const SWEEP_FEE = 10_000n;

let merchant: TestMerchant;
let ledger: LiteSvmLedger;
let rpc: SolanaRpc;
let options: { solanaRpcFor: (chain: ChainName) => SolanaRpc | undefined };
let payer: KeyPairSigner;

beforeAll(async () => {
  merchant = await startSolanaMoneyWorld('solana_transfer_table_guard');
});

afterAll(() => stopSolanaMoneyWorld('solana_transfer_table_guard'));

beforeEach(async () => {
  // Guarded like the configured RPC (review N12): a request while a database transaction is open fails the test.
  ({ ledger, rpc, options } = freshSolanaLedger({ wrap: outsideTransactionsTransport }));
  payer = await fundedWallet(ledger.svm, 10n);
});

const balanceOf = (owner: Address) => ledger.svm.getBalance(owner) ?? 0n;

const tokenBalanceOf = (owner: Address, mint: Address) => tokenBalanceIn(ledger, owner, mint);

/** The watcher of `chain` (retried while another worker's watcher holds the chain's lock). */
async function poll(chain: ChainName): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await pollSolana(chain, { rpc })) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the ${chain} watcher stayed locked`);
}

/** A charge created through the API and paid in LiteSVM with its Solana Pay reference, finalized and watched. */
async function paidCharge(input: {
  token: 'SOL' | 'USDC';
  amount: string;
  paid: bigint;
  toAddress?: Address;
}): Promise<{ chargeId: string; chain: ChainName; deposit: Address }> {
  const isSol = input.token === 'SOL';
  const { chargeId, deposit, charge } = await createTestCharge({
    apiKey: isSol ? merchant.testKey : merchant.liveKey!,
    body: {
      chargeData: {
        symbol: input.token,
        chain: 'SOLANA',
        tokenAddress: isSol ? SOLANA_NATIVE_MINT : USDC.address,
        amount: input.amount,
        toAddress: input.toAddress,
      },
    },
  });
  const recipient = deposit.address as Address;
  const references = [deposit.reference as Address];
  const transaction = isSol
    ? await solPayment(ledger.svm, { payer, recipient, lamports: input.paid, references })
    : await tokenPayment(ledger.svm, {
        payer,
        mint: address(USDC.address),
        decimals: USDC.decimals,
        recipient,
        amount: input.paid,
        references,
      });
  expectSuccess(ledger.send(transaction));
  ledger.finalizeThrough();
  const chain = charge.chain as ChainName;
  await poll(chain);
  return { chargeId, chain, deposit: recipient };
}

/** Sweep passes and reconciler passes (as the scheduler runs them), the cluster finalizing in between, until nothing is owed. */
async function sweepUntilDone(chargeId: string): Promise<SweepOutcome[]> {
  const outcomes: SweepOutcome[] = [];
  for (let i = 0; i < 10; i++) {
    const outcome = await sweepCharge(chargeId, options);
    outcomes.push(outcome);
    if (outcome === 'nothing_owed') break;
    ledger.finalizeThrough();
    await reconcileDueTransfers({ ...options, ignoreSchedule: true });
  }
  return outcomes;
}

const transfersOf = (chargeId: string) =>
  getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId)).orderBy(outboundTransfers.createdAt);
const statusOf = async (chargeId: string) => (await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status;

async function merchantSolanaWallet(): Promise<Address> {
  const [wallet] = await getDb()
    .select()
    .from(wallets)
    .where(and(eq(wallets.merchantId, merchant.id), eq(wallets.family, 'solana')));
  return wallet!.address as Address;
}

describe('Solana sweeps', () => {
  it('the guard of this file is live: PostgreSQL refuses a Solana transfer going broadcast → confirmed', async () => {
    const { chargeId } = await paidCharge({ token: 'SOL', amount: '0.5', paid: 500_000_000n });
    ledger.svm.airdrop(tank, lamports(1_000_000_000n));
    ledger.withholding = true;
    expect(await sweepCharge(chargeId, options)).toBe('swept');
    const [sweep] = (await transfersOf(chargeId)).filter((t) => t.purpose === 'sweep');
    expect(sweep!.status).toBe('broadcast');
    const refused = await getDb()
      .update(outboundTransfers)
      .set({ status: 'confirmed' })
      .where(eq(outboundTransfers.id, sweep!.id))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect((refused as Error | undefined)?.cause).toMatchObject({
      message: expect.stringContaining('cannot go from broadcast to confirmed'),
    });
    ledger.withholding = false;
    expect(ledger.releaseWithheld().map((sent) => sent.isLanded)).toEqual([true]);
    ledger.finalizeThrough();
    // Through the writer, the finalized sweep passes `included` and ends confirmed.
    await reconcileDueTransfers({ ...options, ignoreSchedule: true });
    expect((await transfersOf(chargeId)).map((t) => t.status)).toEqual(['confirmed', 'confirmed']);
  });

  it('reads the chain only outside database transactions: this file’s RPC refuses a request under a lock (N12)', async () => {
    // Every sweep below goes through this RPC, so a sweep reading the chain under the charge's lock fails them.
    await expect(getDb().transaction(() => rpc.getLatestBlockhash().send())).rejects.toThrow(RpcInsideTransactionError);
    await expect(rpc.getLatestBlockhash().send()).resolves.toBeDefined();
  });

  it('moves a SOL payment to the merchant wallet, the gas tank paying the fee as fee payer, recorded as platform cost', async () => {
    const { chargeId, chain, deposit } = await paidCharge({ token: 'SOL', amount: '1.5', paid: 1_500_000_000n });
    expect(chain).toBe('SOLANA_DEVNET');
    expect(await statusOf(chargeId)).toBe('succeeded');
    expect(await chargesAwaitingSweep(1000)).toContain(chargeId);

    // An empty tank cannot pay: nothing is signed or recorded until it is funded.
    expect(await sweepCharge(chargeId, options)).toBe('waiting_for_gas');
    expect(await transfersOf(chargeId)).toHaveLength(0);
    ledger.svm.airdrop(tank, lamports(1_000_000_000n));

    const payee = await merchantSolanaWallet();
    const payeeBefore = balanceOf(payee);
    const tankBefore = balanceOf(tank);
    const outcomes = await sweepUntilDone(chargeId);
    expect(outcomes).toEqual(['swept', 'nothing_owed']);

    expect(balanceOf(payee) - payeeBefore).toBe(1_500_000_000n);
    expect(balanceOf(deposit)).toBe(0n);
    expect(tankBefore - balanceOf(tank)).toBe(SWEEP_FEE);

    const transfers = await transfersOf(chargeId);
    const sweep = transfers.find((t) => t.purpose === 'sweep');
    const fee = transfers.find((t) => t.purpose === 'gas_topup');
    expect(sweep).toMatchObject({
      purpose: 'sweep',
      chain,
      fromAddress: deposit,
      toAddress: payee,
      tokenAddress: SOLANA_NATIVE_MINT,
      amountBaseUnits: 1_500_000_000n,
      nonce: 0,
      status: 'confirmed',
    });
    expect(ledger.sent.at(-1)!.signature).toBe(sweep!.txHash);
    expect(ledger.sent.at(-1)!.view.transaction.message.accountKeys[0]).toBe(tank); // fee payer
    expect(fee).toMatchObject({
      purpose: 'gas_topup',
      fromAddress: tank,
      toAddress: deposit,
      txHash: `${sweep!.txHash}-fee`,
      amountBaseUnits: SWEEP_FEE,
      status: 'confirmed',
    });
    expect(fee!.rawTransaction).toBe(sweep!.rawTransaction);

    const events = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
    expect(events.find((e) => e.type === 'charge.sweep_submitted')?.data).toMatchObject({
      txHash: sweep!.txHash,
      to: payee,
      amountBaseUnits: '1500000000',
    });
    expect(await chargesAwaitingSweep(1000)).not.toContain(chargeId);

    const report = await gasTankReport(options);
    expect(report.solanaAddress).toBe(tank);
    const devnet = report.chains.find((c) => c.chain === 'SOLANA_DEVNET')!;
    expect(devnet).toMatchObject({ address: tank, symbol: 'SOL', balance: formatAmount(balanceOf(tank), 9) });
    expect(devnet.topUps).toBeGreaterThanOrEqual(1);
  });

  /** The registry's USDC mint, planted at its canonical address with a mint authority this test holds; the payer gets some. */
  async function plantUsdc(): Promise<Address> {
    const mint = address(USDC.address);
    const authority = await fundedWallet(ledger.svm, 1n);
    plantMint(ledger, { address: mint, authority: authority.address, decimals: USDC.decimals });
    await mintTokens(ledger, { authority, mint, owner: payer.address, amount: 100_000_000n });
    return mint;
  }

  it('sweeps an SPL token to a deliver-to-wallet toAddress, creating its token account at the gas tank’s expense', async () => {
    const mint = await plantUsdc();
    ledger.svm.airdrop(tank, lamports(1_000_000_000n));
    const recipient = (await generateKeyPairSigner()).address;

    const { chargeId, chain, deposit } = await paidCharge({ token: 'USDC', amount: '12.5', paid: 12_500_000n, toAddress: recipient });
    expect(chain).toBe('SOLANA');
    expect(await statusOf(chargeId)).toBe('succeeded');
    expect(await tokenBalanceOf(recipient, mint)).toBeUndefined();
    const tankBefore = balanceOf(tank);

    expect(await sweepUntilDone(chargeId)).toEqual(['swept', 'nothing_owed']);
    expect(await tokenBalanceOf(recipient, mint)).toBe(12_500_000n);
    expect(await tokenBalanceOf(deposit, mint)).toBe(0n);
    const rent = ledger.svm.minimumBalanceForRentExemption(165n);
    expect(tankBefore - balanceOf(tank)).toBe(SWEEP_FEE + rent);

    const transfers = await transfersOf(chargeId);
    expect(transfers.find((t) => t.purpose === 'sweep')).toMatchObject({
      toAddress: recipient,
      tokenAddress: USDC.address,
      amountBaseUnits: 12_500_000n,
      status: 'confirmed',
    });
    expect(transfers.find((t) => t.purpose === 'gas_topup')).toMatchObject({
      fromAddress: tank,
      amountBaseUnits: SWEEP_FEE + rent,
      status: 'confirmed',
    });
  });

  it('records what the tank really paid: no rent when the token account appeared before the sweep landed', async () => {
    const mint = await plantUsdc();
    ledger.svm.airdrop(tank, lamports(1_000_000_000n));
    const recipient = (await generateKeyPairSigner()).address;
    const { chargeId } = await paidCharge({ token: 'USDC', amount: '3', paid: 3_000_000n, toAddress: recipient });

    ledger.withholding = true;
    expect(await sweepCharge(chargeId, options)).toBe('swept');
    const rent = ledger.svm.minimumBalanceForRentExemption(165n);
    expect((await transfersOf(chargeId)).find((t) => t.purpose === 'gas_topup')!.amountBaseUnits).toBe(SWEEP_FEE + rent); // expected when signed
    // Meanwhile someone else creates the recipient's token account; the idempotent create then costs nothing.
    expectSuccess(
      ledger.send(await tokenPayment(ledger.svm, { payer, mint, decimals: USDC.decimals, recipient, amount: 0n, references: [] })),
    );
    expect(await tokenBalanceOf(recipient, mint)).toBe(0n);
    const tankBefore = balanceOf(tank);
    ledger.withholding = false;
    expect(ledger.releaseWithheld().every((sent) => sent.isSuccess)).toBe(true);

    ledger.finalizeThrough();
    await reconcileDueTransfers({ ...options, ignoreSchedule: true });
    expect(tankBefore - balanceOf(tank)).toBe(SWEEP_FEE);
    expect(await tokenBalanceOf(recipient, mint)).toBe(3_000_000n);
    const fee = (await transfersOf(chargeId)).find((t) => t.purpose === 'gas_topup')!;
    expect(fee).toMatchObject({ status: 'confirmed', amountBaseUnits: SWEEP_FEE });
  });

  it('a sweep that never lands is failed once its blockhash expires, and signed again: the funds move exactly once', async () => {
    const { chargeId, deposit } = await paidCharge({ token: 'SOL', amount: '0.75', paid: 750_000_000n });
    ledger.svm.airdrop(tank, lamports(1_000_000_000n));
    const payee = await merchantSolanaWallet();
    const payeeBefore = balanceOf(payee);

    // The node accepts the transaction but it never reaches a leader.
    ledger.withholding = true;
    expect(await sweepCharge(chargeId, options)).toBe('swept');
    const [first] = (await transfersOf(chargeId)).filter((t) => t.purpose === 'sweep');
    expect(first!.status).toBe('broadcast');
    // In flight, the blockhash still valid: the same bytes are sent again, nothing new is signed.
    expect(await sweepCharge(chargeId, options)).toBe('in_flight');
    await reconcileDueTransfers({ ...options, ignoreSchedule: true });
    expect((await transfersOf(chargeId)).map((t) => t.status)).toEqual(['broadcast', 'broadcast']);

    ledger.svm.expireBlockhash();
    await reconcileDueTransfers({ ...options, ignoreSchedule: true });
    const expired = await transfersOf(chargeId);
    expect(expired.map((t) => [t.status, t.error])).toEqual([
      ['failed', EXPIRED_ERROR],
      ['failed', EXPIRED_ERROR],
    ]);
    // The old transaction reaching a leader now cannot land: its blockhash is gone.
    ledger.withholding = false;
    expect(ledger.releaseWithheld().map((sent) => sent.isLanded)).not.toContain(true);

    expect(await sweepUntilDone(chargeId)).toEqual(['swept', 'nothing_owed']);
    expect(balanceOf(payee) - payeeBefore).toBe(750_000_000n);
    expect(balanceOf(deposit)).toBe(0n);
    const sweeps = (await transfersOf(chargeId)).filter((t) => t.purpose === 'sweep');
    expect(sweeps.map((t) => t.status)).toEqual(['failed', 'confirmed']);
    expect(sweeps[1]!.txHash).not.toBe(sweeps[0]!.txHash);
    expect(ledger.sent.filter((sent) => sent.signature === sweeps[0]!.txHash)).toHaveLength(0);
    const fees = (await transfersOf(chargeId)).filter((t) => t.purpose === 'gas_topup');
    expect(fees.map((t) => [t.status, t.amountBaseUnits])).toEqual([
      ['failed', SWEEP_FEE],
      ['confirmed', SWEEP_FEE],
    ]);
    const submitted = (await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId))).filter(
      (e) => e.type === 'charge.sweep_submitted',
    );
    expect(submitted).toHaveLength(2);
  });

  it('a landed sweep whose status the node no longer serves is confirmed after its blockhash expires, never signed again', async () => {
    const { chargeId, deposit } = await paidCharge({ token: 'SOL', amount: '0.4', paid: 400_000_000n });
    ledger.svm.airdrop(tank, lamports(1_000_000_000n));
    const payee = await merchantSolanaWallet();
    const payeeBefore = balanceOf(payee);
    // A node without that history (pruned, or another one behind a balancer): every status "not seen".
    const forgetful = createSolanaRpcFromTransport(
      outsideTransactionsTransport((async (request: Parameters<RpcTransport>[0]) => {
        const answer = await ledger.transport<{ result?: { value?: unknown[] } }>(request);
        const { method } = request.payload as { method: string };
        if (method !== 'getSignatureStatuses' || !answer.result?.value) return answer;
        return { ...answer, result: { ...answer.result, value: answer.result.value.map(() => null) } };
      }) as RpcTransport),
    );
    const forgetfulOptions = { solanaRpcFor: (chain: ChainName) => (CHAINS[chain].family === 'solana' ? forgetful : undefined) };
    expect(await sweepCharge(chargeId, forgetfulOptions)).toBe('swept');
    ledger.finalizeThrough();
    ledger.svm.expireBlockhash();
    await reconcileDueTransfers({ ...forgetfulOptions, ignoreSchedule: true });
    // Without getTransaction as a second witness this was `failed` and the next pass swept again.
    expect((await transfersOf(chargeId)).map((t) => t.status)).toEqual(['confirmed', 'confirmed']);
    expect(await sweepUntilDone(chargeId)).toEqual(['nothing_owed']);
    expect(balanceOf(payee) - payeeBefore).toBe(400_000_000n);
    expect(balanceOf(deposit)).toBe(0n);
  });

  it('leaves the funds of a charge that did not succeed at its deposit address', async () => {
    ledger.svm.airdrop(tank, lamports(1_000_000_000n));
    const { chargeId, deposit } = await paidCharge({ token: 'SOL', amount: '2', paid: 500_000_000n });
    expect(await statusOf(chargeId)).not.toBe('succeeded');
    expect(await chargesAwaitingSweep(1000)).not.toContain(chargeId);
    expect(await sweepCharge(chargeId, options)).toBe('not_sweepable');
    expect(await transfersOf(chargeId)).toHaveLength(0);
    expect(balanceOf(deposit)).toBe(500_000_000n);
  });

  it('never leaves the deposit address below rent exemption: an uncounted remainder too small to stay goes along; a larger one stays', async () => {
    ledger.svm.airdrop(tank, lamports(1_000_000_000n));
    const payee = await merchantSolanaWallet();
    const rentExempt = ledger.svm.minimumBalanceForRentExemption(0n);

    // Dust arrives after the charge succeeded and before it is counted (not yet polled): 0 < remainder < rent exemption.
    const dusty = await paidCharge({ token: 'SOL', amount: '1.5', paid: 1_500_000_000n });
    const dust = rentExempt / 10n;
    expectSuccess(ledger.send(await solPayment(ledger.svm, { payer, recipient: dusty.deposit, lamports: dust, references: [] })));
    const payeeBefore = balanceOf(payee);
    expect(await sweepCharge(dusty.chargeId, options)).toBe('swept');
    ledger.finalizeThrough();
    await reconcileDueTransfers({ ...options, ignoreSchedule: true });
    expect((await transfersOf(dusty.chargeId)).find((t) => t.purpose === 'sweep')!.status).toBe('confirmed');
    expect(balanceOf(dusty.deposit)).toBe(0n);
    expect(balanceOf(payee) - payeeBefore).toBe(1_500_000_000n + dust);

    // A remainder that can stay rent-exempt stays, for its own accounting (refund or a later sweep).
    const kept = await paidCharge({ token: 'SOL', amount: '0.5', paid: 500_000_000n });
    const extra = rentExempt * 2n;
    expectSuccess(ledger.send(await solPayment(ledger.svm, { payer, recipient: kept.deposit, lamports: extra, references: [] })));
    expect(await sweepCharge(kept.chargeId, options)).toBe('swept');
    ledger.finalizeThrough();
    await reconcileDueTransfers({ ...options, ignoreSchedule: true });
    expect(balanceOf(kept.deposit)).toBe(extra);
  });
});
