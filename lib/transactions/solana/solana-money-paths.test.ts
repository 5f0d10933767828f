/**
 * Every Solana money path that sends value, end to end on real PostgreSQL and LiteSVM (through @solana/kit's
 * RPC, test/litesvm-view.ts): pay from balance (PIN), withdrawals from the merchant's Solana wallet,
 * refunds to the payer, wallet sends. Each asserts the on-chain balances, the records (the transfer and
 * the gas tank's fee record, recorded before broadcast and reconciled after), that the sender paid no
 * fee (the tank is the fee payer), and that a retry or a double submit sends once.
 *
 * As in sweep-solana.test.ts, PostgreSQL refuses any Solana status change the transfer table does not
 * list while this file runs, so every path below also proves the writer never skips a state.
 */
import { and, eq } from 'drizzle-orm';
import { address, createSolanaRpcFromTransport, generateKeyPairSigner, lamports, type Address, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser } from '@/lib/accounts/create-user';
import { setPin } from '@/lib/accounts/set-pin';
import { CHAINS, SOLANA_NATIVE_MINT, type ChainName } from '@/lib/chains/registry';
import type { SolanaRpc } from '@/lib/chains/solana-rpc';
import { getDb } from '@/lib/db/client';
import {
  auditLog,
  chargeEvents,
  charges,
  depositAddresses,
  merchantMembers,
  onrampOrders,
  outboundTransferAttempts,
  outboundTransfers,
  payments,
  webhookEvents,
} from '@/lib/db/schema';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { payChargeFromOrder } from '@/lib/onramp/pay-charge-from-order';
import { confirmPaymentRequest } from '@/lib/oauth/payment-requests';
import { getProvider } from '@/lib/oauth/provider';
import { registerOAuthApp } from '@/lib/oauth/register-oauth-app';
import { POST as createPaymentRequestRoute } from '@/app/api/oauth/payment-requests/route';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { sweepCharge } from '@/lib/payments/sweep-charges';
import { claimRefund } from '@/lib/refunds/claim-refund';
import { createRefund, newRefundRequestId } from '@/lib/refunds/create-refund';
import { pollSolana } from '@/lib/payments/solana/poll-solana';
import { newId } from '@/lib/ids';
import { MAX_SOLANA_RESIGNS } from '@/lib/transactions/solana/resign-solana-transfer';
import { solanaSignerForAddress } from '@/lib/transactions/solana/solana-signer-for-address';
import { NOT_SENT_ERROR } from '@/lib/transactions/solana/solana-transfers';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { newWithdrawalId, withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { listWallets } from '@/lib/wallets/list-wallets';
import { newSendId, previewSend } from '@/lib/wallets/preview-send';
import { sendFromWallet } from '@/lib/wallets/send-from-wallet';
import { enrolTotp, newUser, uniqueEmail } from '@/test/accounts';
import { callRoute, createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { type LiteSvmLedger, expectSuccess, fundedWallet, mintTokens, plantMint, solPayment, tokenPayment } from '@/test/litesvm-view';
import { freshSolanaLedger, startSolanaMoneyWorld, stopSolanaMoneyWorld, tank, tokenBalanceIn } from '@/test/solana-money-world';

const USDC = CHAINS.SOLANA.tokens.find((t) => t.symbol === 'USDC')!;
const PIN = '583920';
/** Two signatures (the tank's and the sender's) at LiteSVM's default 5000 lamports each. */
const FEE = 10_000n;

let merchant: TestMerchant;
let ledger: LiteSvmLedger;
let rpc: SolanaRpc;
let options: { solanaRpcFor: (chain: ChainName) => SolanaRpc | undefined };

beforeAll(async () => {
  merchant = await startSolanaMoneyWorld('solana_money_table_guard');
});

afterAll(() => stopSolanaMoneyWorld('solana_money_table_guard'));

beforeEach(() => {
  ({ ledger, rpc, options } = freshSolanaLedger({ tankLamports: 1_000_000_000n }));
});

const lamportsOf = (owner: Address) => ledger.svm.getBalance(owner) ?? 0n;

const usdcOf = (owner: Address) => tokenBalanceIn(ledger, owner, address(USDC.address));

/** The registry's USDC mint planted in this ledger, `amount` minted to `owner` (the mint authority pays the account's rent). */
async function giveUsdc(owner: Address, amount: bigint): Promise<void> {
  const mint = address(USDC.address);
  if (!ledger.svm.getAccount(mint).exists) {
    usdcAuthority = await fundedWallet(ledger.svm, 1n);
    plantMint(ledger, { address: mint, authority: usdcAuthority.address, decimals: USDC.decimals });
  }
  await mintTokens(ledger, { authority: usdcAuthority!, mint, owner, amount });
}
let usdcAuthority: KeyPairSigner | undefined;

/** `amount` of `owner`'s USDC spent outside the service (its own key, its own fee). */
async function moveUsdcAway(owner: Address, amount: bigint): Promise<void> {
  const signer = (await solanaSignerForAddress('SOLANA', owner))!;
  ledger.svm.airdrop(owner, lamports(1_000_000_000n));
  const away = await tokenPayment(ledger.svm, {
    payer: signer,
    mint: address(USDC.address),
    decimals: USDC.decimals,
    recipient: (await generateKeyPairSigner()).address,
    amount,
    references: [],
  });
  expectSuccess(ledger.send(away));
}

async function consumer(): Promise<{ userId: string; address: Address }> {
  const email = uniqueEmail('solpayer');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  await setPin({ userId: user.id, pin: PIN, confirm: PIN });
  const solana = (await listWallets(user.id)).find((w) => w.family === 'solana')!;
  return { userId: user.id, address: address(solana.address) };
}

async function charge(input: { token: 'SOL' | 'USDC'; amount: string }): Promise<{ chargeId: string; chain: ChainName; deposit: Address }> {
  const isSol = input.token === 'SOL';
  const { chargeId, deposit, charge } = await createTestCharge({
    apiKey: isSol ? merchant.testKey : merchant.liveKey!,
    body: {
      chargeData: { symbol: input.token, chain: 'SOLANA', tokenAddress: isSol ? SOLANA_NATIVE_MINT : USDC.address, amount: input.amount },
    },
  });
  return { chargeId, chain: charge.chain as ChainName, deposit: deposit.address as Address };
}

/** The cluster finalizes, the reconciler (with every outcome hook) and the watcher run. */
async function settle(chain?: ChainName): Promise<void> {
  ledger.finalizeThrough();
  await reconcileDueTransfers({ ...options, ignoreSchedule: true });
  if (!chain) return;
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await pollSolana(chain, { rpc })) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the ${chain} watcher stayed locked`);
}

const transfersOf = (where: ReturnType<typeof eq>) =>
  getDb().select().from(outboundTransfers).where(where).orderBy(outboundTransfers.createdAt);
const chargeStatus = async (chargeId: string) => (await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status;

/** The transfer of `purpose` and its fee record, both confirmed; the fee record is the tank's spend. */
function expectPaidByTank(rows: (typeof outboundTransfers.$inferSelect)[], purpose: string, from: string, fee = FEE) {
  const main = rows.find((r) => r.purpose === purpose)!;
  expect(main).toMatchObject({ status: 'confirmed', fromAddress: from });
  expect(rows.find((r) => r.txHash === `${main.txHash}-fee`)).toMatchObject({
    purpose: 'gas_topup',
    fromAddress: tank,
    toAddress: from,
    amountBaseUnits: fee,
    status: 'confirmed',
  });
  const sent = ledger.sent.find((s) => s.signature === main.txHash)!;
  expect(sent.view.transaction.message.accountKeys[0]).toBe(tank);
  return main;
}

describe('pay from balance on Solana', () => {
  it('SOL: the whole balance goes to the deposit, the tank pays the fee, the watcher settles the charge', async () => {
    const payer = await consumer();
    const { chargeId, chain, deposit } = await charge({ token: 'SOL', amount: '0.5' });
    ledger.svm.airdrop(payer.address, lamports(500_000_000n)); // exactly the price: nothing left for a fee
    const tankBefore = lamportsOf(tank);

    const [first, second] = await Promise.all([
      payFromBalance({ userId: payer.userId, chargeId, pin: PIN }, options),
      payFromBalance({ userId: payer.userId, chargeId, pin: PIN }, options),
    ]);
    expect(second.txHash).toBe(first.txHash); // a double submit is one payment
    await settle(chain);

    expect(lamportsOf(payer.address)).toBe(0n);
    expect(lamportsOf(deposit)).toBe(500_000_000n);
    expect(tankBefore - lamportsOf(tank)).toBe(FEE);
    expect(ledger.sent.filter((s) => s.signature === first.txHash)).toHaveLength(1);
    const rows = await transfersOf(eq(outboundTransfers.chargeId, chargeId));
    expect(rows).toHaveLength(2);
    expect(expectPaidByTank(rows, 'balance_payment', payer.address)).toMatchObject({
      toAddress: deposit,
      amountBaseUnits: 500_000_000n,
      tokenAddress: SOLANA_NATIVE_MINT,
    });
    expect(await chargeStatus(chargeId)).toBe('succeeded');
    // The payer is the consumer's wallet (whose value went out), not the gas tank that paid the fee.
    const [payment] = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
    expect(payment).toMatchObject({ fromAddress: payer.address, amountBaseUnits: 500_000_000n, status: 'confirmed' });
    // Paid: a retry now gets the same payment back, nothing new is sent.
    expect((await payFromBalance({ userId: payer.userId, chargeId, pin: PIN }, options)).txHash).toBe(first.txHash);
    expect(ledger.sent.filter((s) => s.signature === first.txHash)).toHaveLength(1);
  });

  it('USDC from a wallet without any SOL: the tank pays the fee and the deposit’s token account', async () => {
    const payer = await consumer();
    await giveUsdc(payer.address, 20_000_000n);
    const { chargeId, chain, deposit } = await charge({ token: 'USDC', amount: '12.5' });
    const payerLamports = lamportsOf(payer.address);
    expect(payerLamports).toBe(0n);
    const tankBefore = lamportsOf(tank);

    await payFromBalance({ userId: payer.userId, chargeId, pin: PIN }, options);
    await settle(chain);

    const rent = ledger.svm.minimumBalanceForRentExemption(165n);
    expect(await usdcOf(payer.address)).toBe(7_500_000n);
    expect(await usdcOf(deposit)).toBe(12_500_000n);
    expect(lamportsOf(payer.address)).toBe(0n);
    expect(tankBefore - lamportsOf(tank)).toBe(FEE + rent);
    expectPaidByTank(await transfersOf(eq(outboundTransfers.chargeId, chargeId)), 'balance_payment', payer.address, FEE + rent);
    expect(await chargeStatus(chargeId)).toBe('succeeded');
  });

  it('a payment whose transaction is dropped is signed again with a new blockhash and lands once: paid, no payment.failed', async () => {
    const payer = await consumer();
    const { chargeId, chain, deposit } = await charge({ token: 'SOL', amount: '0.25' });
    ledger.svm.airdrop(payer.address, lamports(250_000_000n));
    ledger.withholding = true; // the node accepts it, no leader ever gets it
    const lost = await payFromBalance({ userId: payer.userId, chargeId, pin: PIN }, options);
    ledger.withholding = false;
    ledger.svm.expireBlockhash();
    await settle(); // expired unlanded: the same movement signed again and sent
    const [resigned] = await transfersOf(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'balance_payment'))!);
    expect(resigned).toMatchObject({ id: lost.transferId, fromAddress: payer.address, toAddress: deposit, amountBaseUnits: 250_000_000n });
    expect(resigned!.txHash).not.toBe(lost.txHash);
    // The old signature is kept as the original attempt; the fee record follows the new one.
    const attempts = await getDb()
      .select()
      .from(outboundTransferAttempts)
      .where(eq(outboundTransferAttempts.transferId, lost.transferId))
      .orderBy(outboundTransferAttempts.createdAt);
    expect(attempts.map((a) => [a.kind, a.txHash])).toEqual([
      ['original', lost.txHash],
      ['new_blockhash', resigned!.txHash],
    ]);
    expect((await transfersOf(eq(outboundTransfers.txHash, `${lost.txHash}-fee`))).length).toBe(0);
    await settle(chain);
    expect(await chargeStatus(chargeId)).toBe('succeeded');
    const rows = await transfersOf(eq(outboundTransfers.chargeId, chargeId));
    expectPaidByTank(rows, 'balance_payment', payer.address);
    expect(rows).toHaveLength(2);
    // Exactly one transfer left the payer's wallet; the dropped one can never land (its blockhash expired).
    expect(ledger.releaseWithheld().map((sent) => sent.isLanded)).not.toContain(true);
    expect(ledger.sent.filter((sent) => sent.view.transaction.message.accountKeys.includes(payer.address))).toHaveLength(1);
    expect(lamportsOf(deposit)).toBe(250_000_000n);
    expect(lamportsOf(payer.address)).toBe(0n);
    const notices = await getDb().select().from(webhookEvents).where(eq(webhookEvents.chargeId, chargeId));
    expect(notices.filter((e) => e.type === 'payment.failed')).toHaveLength(0);
  });

  it(`a payment that never lands is signed again at most ${MAX_SOLANA_RESIGNS} times, then fails (payment.failed, once); paying again moves the funds once`, async () => {
    const payer = await consumer();
    const { chargeId, chain, deposit } = await charge({ token: 'SOL', amount: '0.25' });
    ledger.svm.airdrop(payer.address, lamports(250_000_000n));
    ledger.withholding = true; // the node accepts every version, no leader ever gets one
    const lost = await payFromBalance({ userId: payer.userId, chargeId, pin: PIN }, options);
    // While it may still land, the same payment is the answer and its value is spoken for.
    expect((await payFromBalance({ userId: payer.userId, chargeId, pin: PIN }, options)).txHash).toBe(lost.txHash);
    const signatures = new Set([lost.txHash]);
    for (let expiry = 0; expiry < MAX_SOLANA_RESIGNS; expiry++) {
      ledger.svm.expireBlockhash();
      await settle();
      const [row] = await transfersOf(eq(outboundTransfers.id, lost.transferId));
      expect(row!.status).not.toBe('failed');
      signatures.add(row!.txHash);
    }
    expect(signatures.size).toBe(MAX_SOLANA_RESIGNS + 1);
    ledger.svm.expireBlockhash();
    await settle();
    await settle();
    const failed = await transfersOf(eq(outboundTransfers.chargeId, chargeId));
    expect(failed.map((r) => r.status)).toEqual(['failed', 'failed']);
    expect(failed.find((r) => r.purpose === 'balance_payment')!.error).toContain(NOT_SENT_ERROR);
    const attempts = await getDb().select().from(outboundTransferAttempts).where(eq(outboundTransferAttempts.transferId, lost.transferId));
    expect(attempts).toHaveLength(MAX_SOLANA_RESIGNS + 1);
    const notices = await getDb().select().from(webhookEvents).where(eq(webhookEvents.chargeId, chargeId));
    expect(notices.filter((e) => e.type === 'payment.failed')).toHaveLength(1);
    ledger.withholding = false;
    expect(ledger.releaseWithheld().map((sent) => sent.isLanded)).not.toContain(true);

    const paid = await payFromBalance({ userId: payer.userId, chargeId, pin: PIN }, options);
    expect(signatures.has(paid.txHash)).toBe(false);
    await settle(chain);
    expect(await chargeStatus(chargeId)).toBe('succeeded');
    expect(lamportsOf(deposit)).toBe(250_000_000n);
    expect(lamportsOf(payer.address)).toBe(0n);
  });

  it('a dropped payment is not signed again when the wallet no longer holds the amount: it fails as before', async () => {
    const payer = await consumer();
    const { chargeId } = await charge({ token: 'USDC', amount: '4' });
    await giveUsdc(payer.address, 4_000_000n);
    ledger.withholding = true;
    const lost = await payFromBalance({ userId: payer.userId, chargeId, pin: PIN }, options);
    ledger.withholding = false;
    // The USDC leaves the wallet by other means (e.g. its key exported and used elsewhere).
    await moveUsdcAway(payer.address, 1_000_000n);
    ledger.svm.expireBlockhash();
    await settle();
    const [row] = await transfersOf(eq(outboundTransfers.id, lost.transferId));
    expect(row).toMatchObject({ status: 'failed', txHash: lost.txHash });
    expect(row!.error).toContain('holds 3 USDC');
    const notices = await getDb().select().from(webhookEvents).where(eq(webhookEvents.chargeId, chargeId));
    expect(notices.filter((e) => e.type === 'payment.failed')).toHaveLength(1);
  });

  it('the old signature found on the last look before re-signing (a lagging node): not signed again, confirmed once', async () => {
    const payer = await consumer();
    const { chargeId, chain } = await charge({ token: 'SOL', amount: '0.25' });
    ledger.svm.airdrop(payer.address, lamports(250_000_000n));
    ledger.withholding = true;
    const late = await payFromBalance({ userId: payer.userId, chargeId, pin: PIN }, options);
    await settle(); // sent again (withheld): broadcast
    // It lands late, just before its blockhash expires; the node the reconciler asks lags: it shows neither its
    // status (twice, the outcome's two looks) nor the transaction, so the outcome says "expired".
    ledger.withholding = false;
    expect(ledger.releaseWithheld().filter((sent) => sent.isLanded)).toHaveLength(1);
    ledger.svm.expireBlockhash();
    ledger.lagging.add(late.txHash);
    let hiddenStatuses = 2;
    const lagging = createSolanaRpcFromTransport((async (request: Parameters<typeof ledger.transport>[0]) => {
      const { method, params } = request.payload as { method: string; params: unknown[] };
      if (method === 'getSignatureStatuses' && (params[0] as string[]).includes(late.txHash) && hiddenStatuses > 0) {
        hiddenStatuses--;
        return { jsonrpc: '2.0', id: (request.payload as { id: string }).id, result: { context: { slot: ledger.slot }, value: [null] } };
      }
      return ledger.transport(request);
    }) as typeof ledger.transport);
    await reconcileDueTransfers({ solanaRpcFor: (c) => (CHAINS[c].family === 'solana' ? lagging : undefined), ignoreSchedule: true });
    expect(hiddenStatuses).toBe(0);
    const [row] = await transfersOf(eq(outboundTransfers.id, late.transferId));
    expect(row).toMatchObject({ status: 'broadcast', txHash: late.txHash });
    expect(await getDb().select().from(outboundTransferAttempts).where(eq(outboundTransferAttempts.transferId, late.transferId))).toEqual(
      [],
    );
    ledger.lagging.delete(late.txHash);
    await settle(chain);
    expect(await chargeStatus(chargeId)).toBe('succeeded');
    expect(ledger.sent.filter((sent) => sent.view.transaction.message.accountKeys.includes(payer.address))).toHaveLength(1);
    expectPaidByTank(await transfersOf(eq(outboundTransfers.chargeId, chargeId)), 'balance_payment', payer.address);
  });

  it('refuses what the wallet does not hold, counting what is already on its way', async () => {
    const payer = await consumer();
    await giveUsdc(payer.address, 5_000_000n);
    const { chargeId } = await charge({ token: 'USDC', amount: '6' });
    await expect(payFromBalance({ userId: payer.userId, chargeId, pin: PIN }, options)).rejects.toMatchObject({
      code: 'insufficient_balance',
    });
    expect(await transfersOf(eq(outboundTransfers.chargeId, chargeId))).toHaveLength(0);
  });
});

describe('withdrawals from the merchant’s Solana wallet', () => {
  let owners: TestMerchant;
  let owner: string;
  let admin: string;
  let serviceWallet: Address;

  beforeEach(async () => {
    owners = await newMerchant({ verified: true });
    owner = await newUser({ pin: PIN });
    await enrolTotp(owner); // a verified merchant's owner withdraws only with two-factor sign-in on
    admin = await newUser({ pin: PIN });
    await getDb()
      .insert(merchantMembers)
      .values([
        { merchantId: owners.id, userId: owner, role: 'owner' },
        { merchantId: owners.id, userId: admin, role: 'admin' },
      ]);
    serviceWallet = address((await ensureMerchantWallets(getDb(), owners.id)).find((w) => w.family === 'solana')!.address);
  });

  const withdraw = (overrides: Partial<Parameters<typeof withdrawFromMerchantWallet>[0]>) =>
    withdrawFromMerchantWallet(
      {
        userId: owner,
        merchantId: owners.id,
        mode: 'live',
        chain: 'SOLANA',
        tokenAddress: USDC.address,
        amount: '1',
        toAddress: '',
        pin: PIN,
        ...overrides,
      },
      options,
    );

  it('USDC from a wallet without SOL: the tank pays the fee and the new token account; recorded, audited, sent once', async () => {
    await giveUsdc(serviceWallet, 30_000_000n);
    const destination = (await generateKeyPairSigner()).address;
    const withdrawalId = newWithdrawalId();
    const tankBefore = lamportsOf(tank);
    const walletLamports = lamportsOf(serviceWallet);

    const [first, retry] = await Promise.all([
      withdraw({ amount: '12.345678', toAddress: destination, withdrawalId }),
      withdraw({ amount: '12.345678', toAddress: destination, withdrawalId }),
    ]);
    expect(retry.transferId).toBe(first.transferId);
    await settle();

    expect(await usdcOf(destination)).toBe(12_345_678n);
    expect(await usdcOf(serviceWallet)).toBe(30_000_000n - 12_345_678n);
    expect(lamportsOf(serviceWallet)).toBe(walletLamports);
    const rent = ledger.svm.minimumBalanceForRentExemption(165n);
    expect(tankBefore - lamportsOf(tank)).toBe(FEE + rent);
    expect(ledger.sent.filter((s) => s.signature === first.txHash)).toHaveLength(1);
    const rows = await transfersOf(eq(outboundTransfers.fromAddress, serviceWallet));
    expect(
      expectPaidByTank(
        [...rows, ...(await transfersOf(eq(outboundTransfers.toAddress, serviceWallet)))],
        'withdrawal',
        serviceWallet,
        FEE + rent,
      ),
    ).toMatchObject({
      id: first.transferId,
      toAddress: destination,
      amountBaseUnits: 12_345_678n,
      authority: `owner_step_up:${owner}@${owners.id}`,
    });
    const audits = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.merchantId, owners.id), eq(auditLog.targetId, first.transferId)));
    expect(audits).toHaveLength(1);
    expect(audits[0]!.data).toMatchObject({ chain: 'SOLANA', token: 'USDC', amount: '12.345678', toAddress: destination });
  });

  it('SOL in test mode; refuses admins, bad addresses, remainders below rent and more than the balance — sending nothing', async () => {
    ledger.svm.airdrop(serviceWallet, lamports(1_000_000_000n));
    const destination = (await generateKeyPairSigner()).address;
    const sol = { mode: 'test' as const, chain: 'SOLANA_DEVNET', tokenAddress: SOLANA_NATIVE_MINT };
    await expect(withdraw({ ...sol, userId: admin, amount: '0.4', toAddress: destination })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(withdraw({ ...sol, amount: '0.4', toAddress: '0xabc' })).rejects.toMatchObject({ code: 'invalid_address' });
    await expect(withdraw({ ...sol, amount: '0.9999999', toAddress: destination })).rejects.toMatchObject({ code: 'insufficient_balance' });
    await expect(withdraw({ ...sol, amount: '1.5', toAddress: destination })).rejects.toMatchObject({ code: 'insufficient_balance' });
    expect(await transfersOf(eq(outboundTransfers.fromAddress, serviceWallet))).toHaveLength(0);

    const { txHash } = await withdraw({ ...sol, amount: '0.4', toAddress: destination });
    await settle();
    expect(lamportsOf(destination)).toBe(400_000_000n);
    expect(lamportsOf(serviceWallet)).toBe(600_000_000n); // exactly the amount left: no fee
    expect(ledger.sent.find((s) => s.signature === txHash)!.view.transaction.message.accountKeys[0]).toBe(tank);
  });
});

describe('refunds on Solana', () => {
  let owner: string;
  beforeAll(async () => {
    owner = await newUser({ pin: PIN });
    await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: owner, role: 'admin' });
  });

  /** A charge paid from a consumer's balance and settled. */
  async function paidFromBalance(token: 'SOL' | 'USDC', amount: string, units: bigint) {
    const payer = await consumer();
    if (token === 'SOL') ledger.svm.airdrop(payer.address, lamports(units));
    else await giveUsdc(payer.address, units);
    const paid = await charge({ token, amount });
    await payFromBalance({ userId: payer.userId, chargeId: paid.chargeId, pin: PIN }, options);
    await settle(paid.chain);
    expect(await chargeStatus(paid.chargeId)).toBe('succeeded');
    return { payer, ...paid };
  }

  const refund = (
    chargeId: string,
    mode: 'test' | 'live',
    body: { amount?: string; toAddress?: string },
    idempotencyKey = newRefundRequestId(),
  ) => createRefund({ ctx: { merchantId: merchant.id, mode, actor: `member:${owner}` }, chargeId, body, idempotencyKey }, options);

  it('SOL, before the sweep: part goes back to the payer from the deposit, the tank paying; a retried request sends once', async () => {
    const { payer, chargeId, deposit } = await paidFromBalance('SOL', '0.5', 500_000_000n);
    const tankBefore = lamportsOf(tank);
    const key = newRefundRequestId();
    const [first, retried] = await Promise.all([
      refund(chargeId, 'test', { amount: '0.2' }, key),
      refund(chargeId, 'test', { amount: '0.2' }, key),
    ]);
    expect(retried.refund.id).toBe(first.refund.id);
    expect(first.refund.destination).toBe(payer.address); // the default destination: the payer
    await settle();

    expect(lamportsOf(payer.address)).toBe(200_000_000n);
    expect(lamportsOf(deposit)).toBe(300_000_000n);
    expect(tankBefore - lamportsOf(tank)).toBe(FEE);
    const rows = await transfersOf(eq(outboundTransfers.chargeId, chargeId));
    const transfer = expectPaidByTank(rows, 'refund', deposit);
    expect(transfer).toMatchObject({ toAddress: payer.address, amountBaseUnits: 200_000_000n });
    expect(rows.filter((r) => r.purpose === 'refund')).toHaveLength(1);
    expect(ledger.sent.filter((s) => s.signature === transfer.txHash)).toHaveLength(1);
    // The refund's end reached its owner through the outcome hook, once.
    const events = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
    expect(events.filter((e) => e.type === 'charge.refunded')).toHaveLength(1);
    const hooks = await getDb().select().from(webhookEvents).where(eq(webhookEvents.merchantId, merchant.id));
    expect(hooks.filter((e) => e.type === 'refund.succeeded' && JSON.stringify(e.payload).includes(first.refund.id))).toHaveLength(1);

    // The sweep then pays the merchant what is left, and the rest cannot be refunded twice.
    ledger.svm.airdrop(tank, lamports(100_000_000n));
    expect(await sweepCharge(chargeId, options)).toBe('swept');
    await settle();
    expect(lamportsOf(deposit)).toBe(0n);
    await expect(refund(chargeId, 'test', { amount: '0.31' })).rejects.toMatchObject({ code: 'refund_exceeds_refundable' });
  });

  it('paid from two wallets: a claim link; the payer claims it to a Solana address of theirs, sent once', async () => {
    const { chargeId, chain, deposit } = await charge({ token: 'SOL', amount: '0.6' });
    const [one, two] = [await fundedWallet(ledger.svm, 1n), await fundedWallet(ledger.svm, 1n)];
    const [row] = await getDb()
      .select({ reference: depositAddresses.reference })
      .from(depositAddresses)
      .where(eq(depositAddresses.chargeId, chargeId));
    for (const from of [one, two]) {
      const references = [address(row!.reference!)];
      expectSuccess(ledger.send(await solPayment(ledger.svm, { payer: from, recipient: deposit, lamports: 300_000_000n, references })));
    }
    await settle(chain);
    expect(await chargeStatus(chargeId)).toBe('succeeded');

    const { refund: link } = await refund(chargeId, 'test', { amount: '0.25' });
    expect(link).toMatchObject({ status: 'awaiting_claim' });
    const token = new URL(link.claimUrl!).pathname.split('/').pop()!;
    const to = (await generateKeyPairSigner()).address;
    await expect(claimRefund({ token, to: { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' } }, options)).rejects.toMatchObject({
      code: 'invalid_address',
    });
    const tankBefore = lamportsOf(tank);
    await Promise.all([claimRefund({ token, to: { address: to } }, options), claimRefund({ token, to: { address: to } }, options)]);
    await settle();
    expect(lamportsOf(to)).toBe(250_000_000n);
    expect(lamportsOf(deposit)).toBe(350_000_000n);
    expect(tankBefore - lamportsOf(tank)).toBe(FEE);
    const rows = await transfersOf(eq(outboundTransfers.chargeId, chargeId));
    expect(expectPaidByTank(rows, 'refund', deposit)).toMatchObject({ toAddress: to, amountBaseUnits: 250_000_000n });
    expect(rows.filter((r) => r.purpose === 'refund')).toHaveLength(1);
  });

  it('USDC after the sweep: from the merchant’s Solana wallet to the payer; an address that never paid is refused', async () => {
    const { payer, chargeId } = await paidFromBalance('USDC', '10', 10_000_000n);
    expect(await sweepCharge(chargeId, options)).toBe('swept');
    await settle();
    const merchantWallet = address((await ensureMerchantWallets(getDb(), merchant.id)).find((w) => w.family === 'solana')!.address);
    const walletUsdc = (await usdcOf(merchantWallet))!;
    const walletLamports = lamportsOf(merchantWallet);

    const stranger = (await generateKeyPairSigner()).address;
    await expect(refund(chargeId, 'live', { toAddress: stranger })).rejects.toMatchObject({ code: 'refund_destination_not_payer' });
    await expect(refund(chargeId, 'live', { toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' })).rejects.toMatchObject({
      code: 'invalid_address',
    });
    const tankBefore = lamportsOf(tank);
    const { refund: created } = await refund(chargeId, 'live', { amount: '4', toAddress: payer.address });
    expect(created).toMatchObject({ destination: payer.address });
    await settle();

    expect(await usdcOf(payer.address)).toBe(4_000_000n);
    expect(await usdcOf(merchantWallet)).toBe(walletUsdc - 4_000_000n);
    expect(lamportsOf(merchantWallet)).toBe(walletLamports);
    expect(lamportsOf(payer.address)).toBe(0n);
    expect(tankBefore - lamportsOf(tank)).toBe(FEE); // the payer's token account exists: no rent
    const rows = [
      ...(await transfersOf(eq(outboundTransfers.chargeId, chargeId))),
      ...(await transfersOf(eq(outboundTransfers.toAddress, merchantWallet))),
    ];
    expect(expectPaidByTank(rows, 'refund', merchantWallet)).toMatchObject({ toAddress: payer.address, amountBaseUnits: 4_000_000n });
  });
});

describe('wallet sends from the Solana wallet', () => {
  it('USDC without any SOL: previewed with the fee paid by the service, sent once per send id, the tank paying fee and rent', async () => {
    const user = await consumer();
    await giveUsdc(user.address, 9_000_000n);
    const recipient = (await generateKeyPairSigner()).address;
    const request = { chain: 'SOLANA', tokenAddress: USDC.address, toAddress: recipient, amount: '2.5' };
    const preview = await previewSend({ ...request, userId: user.userId }, options);
    const rent = ledger.svm.minimumBalanceForRentExemption(165n);
    expect(preview).toMatchObject({ available: '9', fee: { paidBy: 'service', symbol: 'SOL' } });
    expect(preview.fee.maxAmount).toBe((Number(FEE + rent) / 1e9).toString());

    const tankBefore = lamportsOf(tank);
    const sendId = newSendId();
    const [first, again] = await Promise.all([
      sendFromWallet({ ...request, userId: user.userId, sendId, pin: PIN }, options),
      sendFromWallet({ ...request, userId: user.userId, sendId, pin: PIN }, options),
    ]);
    expect(again.transferId).toBe(first.transferId);
    await settle();

    expect(await usdcOf(recipient)).toBe(2_500_000n);
    expect(await usdcOf(user.address)).toBe(6_500_000n);
    expect(lamportsOf(user.address)).toBe(0n);
    expect(tankBefore - lamportsOf(tank)).toBe(FEE + rent);
    expect(ledger.sent.filter((s) => s.signature === first.txHash)).toHaveLength(1);
    const rows = [
      ...(await transfersOf(eq(outboundTransfers.fromAddress, user.address))),
      ...(await transfersOf(eq(outboundTransfers.toAddress, user.address))),
    ];
    const sent = expectPaidByTank(rows, 'wallet_send', user.address, FEE + rent);
    expect(sent).toMatchObject({ id: first.transferId, toAddress: recipient, amountBaseUnits: 2_500_000n });
    // The tank's fee record counts toward the user's daily sponsorship cap.
    expect(rows.find((r) => r.txHash === `${sent.txHash}-fee`)).toMatchObject({ sponsorUserId: user.userId });
  });

  it('SOL: refuses EVM recipients, its own address, and a remainder below rent; sends the whole balance', async () => {
    const user = await consumer();
    ledger.svm.airdrop(user.address, lamports(300_000_000n));
    const recipient = (await generateKeyPairSigner()).address;
    const request = (overrides: Record<string, string>) => ({
      chain: 'SOLANA_DEVNET',
      tokenAddress: SOLANA_NATIVE_MINT,
      toAddress: recipient,
      amount: '0.3',
      userId: user.userId,
      ...overrides,
    });
    await expect(previewSend(request({ toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }), options)).rejects.toMatchObject({
      code: 'invalid_address',
    });
    await expect(previewSend(request({ toAddress: user.address }), options)).rejects.toMatchObject({ code: 'invalid_address' });
    await expect(previewSend(request({ amount: '0.2999999' }), options)).rejects.toMatchObject({ code: 'insufficient_balance' });
    await sendFromWallet({ ...request({}), sendId: newSendId(), pin: PIN }, options);
    await settle();
    expect(lamportsOf(recipient)).toBe(300_000_000n);
    expect(lamportsOf(user.address)).toBe(0n);
  });
});

describe('a card payment below the provider’s minimum, on Solana', () => {
  it('the minimum goes to the buyer’s Solana wallet, pays the charge once when finalized, the rest stays there', async () => {
    const buyer = await consumer();
    const { chargeId, chain, deposit } = await charge({ token: 'USDC', amount: '4.99' });
    // What payChargeWithFiat records for a buyMinimum order (the sandbox provider of the tests sells EVM
    // assets only; MoonPay sells usdc_sol): the minimum, to the buyer's own wallet of the charge's family.
    const placed = { orderId: newId('onrampOrder') };
    await getDb()
      .insert(onrampOrders)
      .values({
        id: placed.orderId,
        userId: buyer.userId,
        chargeId,
        purpose: 'charge_minimum',
        providerId: 'moonpay',
        chain,
        tokenSymbol: 'USDC',
        tokenAddress: USDC.address,
        tokenDecimals: USDC.decimals,
        walletAddress: buyer.address,
        walletLabel: 'Your Chargeport wallet',
        country: 'US',
        paymentMethod: 'card',
        fiatCurrency: 'USD',
        requestedBaseUnits: 4_990_000n,
        cryptoBaseUnits: 20_000_000n,
        raisedToMinimum: true,
        quote: {},
        fiatTotal: '20',
        expiresAt: new Date(Date.now() + 3_600_000),
      });
    const [order] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, placed.orderId));

    // The provider delivers (a mint stands in for its transfer); the order completes with the signature.
    await giveUsdc(buyer.address, order!.cryptoBaseUnits);
    const delivery = ledger.sent.at(-1)!.signature;
    await getDb()
      .update(onrampOrders)
      .set({ status: 'completed', deliveryTxHash: delivery, deliveredBaseUnits: order!.cryptoBaseUnits })
      .where(eq(onrampOrders.id, placed.orderId));
    expect(await payChargeFromOrder(placed.orderId, options)).toBe('not_delivered'); // not finalized yet
    ledger.finalizeThrough();

    const outcomes = await Promise.all([payChargeFromOrder(placed.orderId, options), payChargeFromOrder(placed.orderId, options)]);
    expect(outcomes.filter((o) => o === 'submitted')).toHaveLength(1);
    await settle(chain);

    expect(await chargeStatus(chargeId)).toBe('succeeded');
    expect(await usdcOf(deposit)).toBe(4_990_000n);
    expect(await usdcOf(buyer.address)).toBe(15_010_000n);
    expect(lamportsOf(buyer.address)).toBe(0n);
    const rows = await transfersOf(eq(outboundTransfers.chargeId, chargeId));
    const paid = expectPaidByTank(rows, 'balance_payment', buyer.address, FEE + ledger.svm.minimumBalanceForRentExemption(165n));
    expect(paid).toMatchObject({ amountBaseUnits: 4_990_000n, authority: 'system:order_delivery' });
    expect(rows.filter((r) => r.purpose === 'balance_payment')).toHaveLength(1);
    const [after] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, placed.orderId));
    expect(after!.chargeTransferId).toBe(paid.id);
  });
});

describe('in-app pay on Solana', () => {
  it('an app’s payment request for a SOLANA charge, confirmed with the PIN, pays once from the Solana balance', async () => {
    const owner = await newUser({ pin: PIN });
    await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: owner, role: 'owner' }).onConflictDoNothing();
    const { clientId } = await registerOAuthApp({
      userId: owner,
      merchantId: merchant.id,
      app: { name: 'Sol Quest', redirectUris: ['https://solquest.example/callback'], clientType: 'public' },
    });
    const player = await consumer();
    await giveUsdc(player.address, 3_000_000n);
    const { chargeId, chain, deposit } = await charge({ token: 'USDC', amount: '1.25' });
    // An access token exactly as the provider issues it after consent.
    const provider = await getProvider();
    const grant = new provider.Grant({ accountId: player.userId, clientId });
    grant.addOIDCScope('openid payments');
    const client = await provider.Client.find(clientId);
    const token = await new provider.AccessToken({
      accountId: player.userId,
      client: client!,
      grantId: await grant.save(),
      scope: 'openid payments',
      gty: 'authorization_code',
    }).save();
    const created = await callRoute(createPaymentRequestRoute, { headers: { authorization: `Bearer ${token}` }, body: { chargeId } });
    expect(created.status).toBe(201);

    const requestId = created.json.data.id as string;
    const [first, second] = await Promise.all([
      confirmPaymentRequest({ requestId, userId: player.userId, pin: PIN }, new Date(), options),
      confirmPaymentRequest({ requestId, userId: player.userId, pin: PIN }, new Date(), options),
    ]);
    expect(second.txHash).toBe(first.txHash);
    await settle(chain);
    expect(await chargeStatus(chargeId)).toBe('succeeded');
    expect(await usdcOf(deposit)).toBe(1_250_000n);
    expect(lamportsOf(player.address)).toBe(0n);
    expect(ledger.sent.filter((s) => s.signature === first.txHash)).toHaveLength(1);
  });
});
