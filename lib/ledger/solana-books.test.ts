/**
 * No Solana funds outside the books (docs/adr/0033-every-address-in-the-books.md, "Solana"), on LiteSVM and a
 * private database (so no other file's Solana records are read on this ledger):
 *  - the slow pass finds a SOL or USDC payment made to a deposit address after its watch window, with its
 *    signature, payer and block time, reports it late, and it is refundable to its payer; a token the charge
 *    is not in becomes a stray deposit, once, and two operators return it (recover-deposit);
 *  - reconciliation covers a merchant's Solana service wallet (its incoming transfers indexed, its withdrawal
 *    recorded: 0 differences; an outflow no record explains: a difference) and the gas tank's Solana key (books
 *    opened at the first run, fees paid as fee payer in the ledger, an unrecorded spend reported).
 */
import { and, eq, like } from 'drizzle-orm';
import { LiteSVM } from 'litesvm';
import { address, createSolanaRpcFromTransport, generateKeyPairSigner, lamports, type Address, type KeyPairSigner } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTokenDecoder } from '@solana-program/token';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAINS, EVM_CHAIN_NAMES, SOLANA_NATIVE_MINT, type ChainName } from '@/lib/chains/registry';
import { outsideTransactionsTransport, type SolanaRpc } from '@/lib/chains/solana-rpc';
import { getDb } from '@/lib/db/client';
import {
  chargeEvents,
  charges,
  depositAddresses,
  ledgerOpenings,
  merchantMembers,
  outboundTransfers,
  payments,
  solanaWalletCursors,
  strayDeposits,
  walletIncomingTransfers,
  wallets,
} from '@/lib/db/schema';
import { rpcEnvName } from '@/lib/env';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { newWithdrawalId, withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { pollSolana } from '@/lib/payments/solana/poll-solana';
import { createRefund } from '@/lib/refunds/create-refund';
import { gasTankSolanaSigner } from '@/lib/transactions/gas-tank';
import { walletSigner } from '@/lib/transactions/record-chain-transfer';
import { enrolTotp, newUser } from '@/test/accounts';
import { createTestCharge, newMerchant, serveChainsWithoutNode, type TestMerchant } from '@/test/fixtures';
import { advanceClock, withClock } from '@/test/litesvm-clock';
import { LiteSvmLedger, expectSuccess, fundedWallet, mintTokens, plantMint, solPayment, tokenPayment } from '@/test/litesvm-view';
import { switchToPrivateDatabase } from '@/test/private-database';
import { auditDepositAddresses } from './audit-deposit-addresses';
import { approveDepositRecovery, requestDepositRecovery } from './recover-deposit';
import { pollSolanaWallets } from './poll-solana-wallets';
import { reconcileChains, type ChainReconciliation } from './reconcile-chains';

const USDC = CHAINS.SOLANA.tokens.find((t) => t.symbol === 'USDC')!;
const mint = address(USDC.address);
const PIN = '583920';

let merchant: TestMerchant;
let ledger: LiteSvmLedger;
let rpc: SolanaRpc;
let options: { solanaRpcFor: (chain: ChainName) => SolanaRpc | undefined };
let payer: KeyPairSigner;
let usdcAuthority: KeyPairSigner;
let tank: Address;
let lastSlot = 0n;

beforeAll(async () => {
  await switchToPrivateDatabase('solana_books');
  for (const chain of EVM_CHAIN_NAMES) delete process.env[rpcEnvName(chain)];
  serveChainsWithoutNode('SOLANA', 'SOLANA_DEVNET');
  merchant = await newMerchant({ verified: true });
  tank = address((await gasTankSolanaSigner()).address);
});

beforeEach(async () => {
  ledger = new LiteSvmLedger(new LiteSVM());
  // Slots keep rising from one test's ledger to the next, as on one cluster: earlier records stay in the past.
  advanceClock(ledger, Number(lastSlot) + 100);
  rpc = createSolanaRpcFromTransport(outsideTransactionsTransport(withClock(ledger)));
  options = { solanaRpcFor: (chain) => (CHAINS[chain].family === 'solana' ? rpc : undefined) };
  payer = await fundedWallet(ledger.svm, 10n);
  ledger.svm.airdrop(tank, lamports(1_000_000_000n));
  usdcAuthority = await fundedWallet(ledger.svm, 1n);
  plantMint(ledger, { address: mint, authority: usdcAuthority.address, decimals: USDC.decimals });
  await mintTokens(ledger, { authority: usdcAuthority, mint, owner: payer.address, amount: 100_000_000n });
  // Each test has a new ledger: the tank's books and the indexer's records of earlier ones do not apply to it.
  await getDb().delete(ledgerOpenings).where(like(ledgerOpenings.chain, 'SOLANA%'));
  await getDb().delete(solanaWalletCursors).where(like(solanaWalletCursors.chain, 'SOLANA%'));
  await getDb().delete(walletIncomingTransfers).where(like(walletIncomingTransfers.chain, 'SOLANA%'));
});

afterEach(() => {
  lastSlot = ledger.svm.getClock().slot;
});

/** The cluster finalizes; the transfer reconciler runs. */
async function settle(): Promise<void> {
  ledger.finalizeThrough();
  await reconcileDueTransfers({ ...options, ignoreSchedule: true });
}

const audit = async (chain: ChainName) => {
  const [result] = await auditDepositAddresses({ chains: [chain], ...options });
  expect(result!.error).toBeUndefined();
  return result!;
};

async function reconcile(chain: ChainName): Promise<ChainReconciliation> {
  const [result] = await reconcileChains({ chains: [chain], ...options, solanaSearchWaitMs: 0 });
  expect(result!.error).toBeUndefined();
  return result!;
}
const differencesAt = (result: ChainReconciliation, at: string) => result.discrepancies.filter((d) => d.address === at);
const paymentsOf = (chargeId: string) => getDb().select().from(payments).where(eq(payments.chargeId, chargeId));

/** A charge whose watch window ended an hour ago (expired a day before). */
async function oldCharge(token: 'SOL' | 'USDC', amount: string) {
  const isSol = token === 'SOL';
  const { chargeId, deposit } = await createTestCharge({
    apiKey: isSol ? merchant.testKey : merchant.liveKey!,
    body: { chargeData: { symbol: token, chain: 'SOLANA', tokenAddress: isSol ? SOLANA_NATIVE_MINT : USDC.address, amount } },
  });
  await getDb()
    .update(charges)
    .set({ expiresAt: new Date(Date.now() - 25 * 3_600_000), status: 'expired' })
    .where(eq(charges.id, chargeId));
  await getDb()
    .update(depositAddresses)
    .set({ watchUntil: new Date(Date.now() - 3_600_000) })
    .where(eq(depositAddresses.chargeId, chargeId));
  return { chargeId, deposit: deposit.address as Address, chain: (isSol ? 'SOLANA_DEVNET' : 'SOLANA') as ChainName };
}

describe('the slow pass over Solana deposit addresses', () => {
  for (const token of ['SOL', 'USDC'] as const) {
    it(`finds a ${token} payment made after the watch window: its signature, payer and block time, late, refundable to its payer, once`, async () => {
      const { chargeId, deposit, chain } = await oldCharge(token, '2');
      // The payer re-uses the old address (a plain transfer: no reference).
      const sent = expectSuccess(
        ledger.send(
          token === 'SOL'
            ? await solPayment(ledger.svm, { payer, recipient: deposit, lamports: 2_000_000_000n, references: [] })
            : await tokenPayment(ledger.svm, {
                payer,
                mint,
                decimals: USDC.decimals,
                recipient: deposit,
                amount: 2_000_000n,
                references: [],
              }),
        ),
      );
      ledger.finalizeThrough();
      await pollSolana(chain, { rpc });
      expect(await paymentsOf(chargeId)).toEqual([]); // the watcher no longer looks
      // Not in the books yet: reconciliation (which reads only addresses with entries) does not even see it.
      expect(differencesAt(await reconcile(chain), deposit)).toEqual([]);

      const first = await audit(chain);
      expect(first.latePayments).toBe(1);
      expect(await paymentsOf(chargeId)).toEqual([
        expect.objectContaining({
          txHash: sent.signature,
          fromAddress: payer.address,
          isLate: true,
          status: 'confirmed',
          amountBaseUnits: token === 'SOL' ? 2_000_000_000n : 2_000_000n,
          tokenAddress: token === 'SOL' ? SOLANA_NATIVE_MINT : USDC.address,
          blockNumber: BigInt(sent.view.slot),
          blockTime: new Date(sent.view.blockTime * 1000),
        }),
      ]);
      const events = await getDb()
        .select()
        .from(chargeEvents)
        .where(and(eq(chargeEvents.chargeId, chargeId), eq(chargeEvents.type, 'charge.late_payment')));
      expect(events).toHaveLength(1);

      // Found once: the ledger now explains the balance, and reconciliation agrees.
      await getDb().update(depositAddresses).set({ lastAuditedAt: null }).where(eq(depositAddresses.chargeId, chargeId));
      expect((await audit(chain)).latePayments).toBe(0);
      expect(await paymentsOf(chargeId)).toHaveLength(1);
      expect(differencesAt(await reconcile(chain), deposit)).toEqual([]);

      // Refundable, to the payer the signature names.
      const { refund } = await createRefund(
        { ctx: { merchantId: merchant.id, mode: token === 'SOL' ? 'test' : 'live', actor: 'api_key:key_books' }, chargeId, body: {} },
        options,
      );
      expect(refund).toMatchObject({ amount: '2', destination: payer.address });
      await settle();
      expect(token === 'SOL' ? (ledger.svm.getBalance(deposit) ?? 0n) : undefined).toBe(token === 'SOL' ? 0n : undefined);
    });
  }

  it('what no transaction explains (lamports without a transfer) is a balance: payment, late', async () => {
    const { chargeId, deposit, chain } = await oldCharge('SOL', '1');
    ledger.svm.airdrop(deposit, lamports(1_000_000_000n));
    ledger.finalizeThrough();
    expect((await audit(chain)).latePayments).toBe(1);
    expect(await paymentsOf(chargeId)).toEqual([
      expect.objectContaining({
        txHash: expect.stringMatching(/^balance:/),
        fromAddress: '',
        isLate: true,
        amountBaseUnits: 1_000_000_000n,
      }),
    ]);
  });

  it('records USDC sent to a SOL charge as a stray deposit, while it is still watched, once; two operators return it', async () => {
    const { chargeId, deposit } = await createTestCharge({
      apiKey: merchant.liveKey!,
      body: { chargeData: { symbol: 'SOL', chain: 'SOLANA', tokenAddress: SOLANA_NATIVE_MINT, amount: '1' } },
    });
    const at = deposit.address as Address;
    expectSuccess(
      ledger.send(
        await tokenPayment(ledger.svm, { payer, mint, decimals: USDC.decimals, recipient: at, amount: 3_000_000n, references: [] }),
      ),
    );
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc });
    expect((await audit('SOLANA')).strayDeposits).toBe(1);
    const strays = () => getDb().select().from(strayDeposits).where(eq(strayDeposits.chargeId, chargeId));
    expect(await strays()).toEqual([expect.objectContaining({ tokenAddress: USDC.address, amountBaseUnits: 3_000_000n, address: at })]);
    expect(await paymentsOf(chargeId)).toEqual([]); // never a payment of the charge
    expect(differencesAt(await reconcile('SOLANA'), at)).toEqual([]);

    await getDb().update(depositAddresses).set({ lastAuditedAt: null }).where(eq(depositAddresses.chargeId, chargeId));
    expect((await audit('SOLANA')).strayDeposits).toBe(0);
    expect(await strays()).toHaveLength(1);

    // Returned by two operators to the address support names, through the engine's Solana path (the tank pays).
    const named = (await generateKeyPairSigner()).address;
    const request = await requestDepositRecovery(
      {
        chain: 'SOLANA',
        deposit: at,
        token: USDC.address,
        amount: 'all',
        to: named,
        operator: 'alice@ops.example',
        reason: 'USDC sent to a SOL charge; the payer asked for it back',
      },
      options,
    );
    expect(request).toMatchObject({ amount: '3', symbol: 'USDC', status: 'requested', chargeId, tokenAddress: USDC.address });
    await expect(approveDepositRecovery({ recoveryId: request.id, operator: 'Alice@ops.example' }, options)).rejects.toMatchObject({
      code: 'forbidden',
    });
    const approved = await approveDepositRecovery({ recoveryId: request.id, operator: 'bob@ops.example' }, options);
    expect(approved).toMatchObject({ status: 'sent', transferId: expect.any(String) });
    await settle();
    const [transfer] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, approved.transferId!));
    expect(transfer).toMatchObject({ purpose: 'recovery', status: 'confirmed', fromAddress: at, toAddress: named });
    const [namedAta] = await findAssociatedTokenPda({ owner: named, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const held = ledger.svm.getAccount(namedAta);
    expect(held.exists && getTokenDecoder().decode(held.data).amount).toBe(3_000_000n);
    // In the books: the stray in, the recovery out.
    await pollSolana('SOLANA', { rpc });
    expect(differencesAt(await reconcile('SOLANA'), at)).toEqual([]);
  });
});

describe('Solana service wallets and the gas tank in reconciliation', () => {
  it('a merchant wallet with an incoming transfer and a withdrawal reconciles to 0; an unrecorded outflow is reported; so are the tank’s books', async () => {
    const owners = await newMerchant({ verified: true });
    const owner = await newUser({ pin: PIN });
    await enrolTotp(owner);
    await getDb().insert(merchantMembers).values({ merchantId: owners.id, userId: owner, role: 'owner' });
    const serviceWallet = address((await ensureMerchantWallets(getDb(), owners.id)).find((w) => w.family === 'solana')!.address);
    const ours = (result: ChainReconciliation) => result.discrepancies.filter((d) => d.address === serviceWallet || d.address === tank);

    // Incoming: USDC from an outside wallet, and SOL.
    expectSuccess(
      ledger.send(
        await tokenPayment(ledger.svm, {
          payer,
          mint,
          decimals: USDC.decimals,
          recipient: serviceWallet,
          amount: 30_000_000n,
          references: [],
        }),
      ),
    );
    expectSuccess(ledger.send(await solPayment(ledger.svm, { payer, recipient: serviceWallet, lamports: 50_000_000n, references: [] })));
    ledger.finalizeThrough();
    const indexed = await pollSolanaWallets('SOLANA', options); // the indexer's job
    expect(indexed?.recorded).toBe(2);

    // The first run opens the tank's books; the wallet's transfers are in the ledger: 0 differences.
    let result = await reconcile('SOLANA');
    expect(ours(result)).toEqual([]);
    const openings = await getDb().select().from(ledgerOpenings).where(eq(ledgerOpenings.address, tank));
    expect(openings.map((o) => o.token).sort()).toEqual([SOLANA_NATIVE_MINT, USDC.address].sort());
    expect(result.checked).toBeGreaterThanOrEqual(4); // the wallet's SOL and USDC, the tank's SOL and USDC

    // A withdrawal: the wallet's USDC out, the tank paying the fee and the destination's token account.
    const destination = (await generateKeyPairSigner()).address;
    await withdrawFromMerchantWallet(
      {
        userId: owner,
        merchantId: owners.id,
        mode: 'live',
        chain: 'SOLANA',
        tokenAddress: USDC.address,
        amount: '12.5',
        toAddress: destination,
        pin: PIN,
        withdrawalId: newWithdrawalId(),
      },
      options,
    );
    // Signed, on its way: the wallet and the tank are skipped, not reported.
    result = await reconcile('SOLANA');
    expect(result.busy).toBeGreaterThanOrEqual(4);
    expect(ours(result)).toEqual([]);
    const checkedBefore = result.checked;
    await settle();
    result = await reconcile('SOLANA');
    expect(result.checked).toBe(checkedBefore + 4); // the wallet and the tank, compared again
    expect(ours(result)).toEqual([]);

    // An outflow no record explains: the wallet's key used outside the engine.
    const [row] = await getDb().select().from(wallets).where(eq(wallets.address, serviceWallet));
    const signer = (await walletSigner(row!)) as KeyPairSigner;
    const sink = (await generateKeyPairSigner()).address;
    expectSuccess(ledger.send(await solPayment(ledger.svm, { payer: signer, recipient: sink, lamports: 20_000_000n, references: [] })));
    ledger.finalizeThrough();
    result = await reconcile('SOLANA');
    expect(differencesAt(result, serviceWallet)).toEqual([
      expect.objectContaining({
        symbol: 'SOL',
        holder: `wallet of merchant ${owners.id}`,
        expected: 50_000_000n,
        actual: 50_000_000n - 20_000_000n - 5_000n, // the amount and its fee, both unrecorded
        difference: -20_005_000n,
      }),
    ]);

    // The fee payer's books: the tank spending outside the engine is reported too.
    const tankSigner = await gasTankSolanaSigner();
    expectSuccess(ledger.send(await solPayment(ledger.svm, { payer: tankSigner, recipient: sink, lamports: 7_000_000n, references: [] })));
    ledger.finalizeThrough();
    result = await reconcile('SOLANA');
    expect(differencesAt(result, tank)).toEqual([expect.objectContaining({ symbol: 'SOL', holder: 'gas tank', difference: -7_005_000n })]);
  });

  it('the tank’s funding by a transfer is in its books; lamports appearing without one are reported', async () => {
    await reconcile('SOLANA_DEVNET'); // opens the tank's books on devnet
    const funder = await fundedWallet(ledger.svm, 2n);
    expectSuccess(ledger.send(await solPayment(ledger.svm, { payer: funder, recipient: tank, lamports: 500_000_000n, references: [] })));
    ledger.finalizeThrough();
    expect(differencesAt(await reconcile('SOLANA_DEVNET'), tank)).toEqual([]);

    ledger.svm.airdrop(tank, lamports(3_000_000n));
    ledger.finalizeThrough();
    expect(differencesAt(await reconcile('SOLANA_DEVNET'), tank)).toEqual([
      expect.objectContaining({ symbol: 'SOL', holder: 'gas tank', difference: 3_000_000n }),
    ]);
  });
});
