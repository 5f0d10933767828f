/**
 * Solana in reconciliation, on LiteSVM (its own database, so no other file's Solana records are read on this
 * ledger): charges paid by real transactions, found by the watcher, swept, the sweep settled by the
 * reconciler — then the ledger of each deposit address against its SOL and SPL balances at 'finalized'.
 * 0 differences after a payment and its sweep; a difference once the chain is changed behind the ledger's back.
 */
import { LiteSVM } from 'litesvm';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTokenDecoder, getTokenEncoder } from '@solana-program/token';
import { address, createSolanaRpcFromTransport, lamports, type Address, type KeyPairSigner } from '@solana/kit';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAINS, EVM_CHAIN_NAMES, SOLANA_NATIVE_MINT, type ChainName } from '@/lib/chains/registry';
import { outsideTransactionsTransport, type SolanaRpc } from '@/lib/chains/solana-rpc';
import { rpcEnvName } from '@/lib/env';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { pollSolana } from '@/lib/payments/solana/poll-solana';
import { sweepCharge } from '@/lib/payments/sweep-charges';
import { gasTankSolanaKeyFromSeed } from '@/lib/transactions/gas-tank-key';
import { createTestCharge, newMerchant, serveChainsWithoutNode, type TestMerchant } from '@/test/fixtures';
import { advanceClock, withClock } from '@/test/litesvm-clock';
import { LiteSvmLedger, expectSuccess, fundedWallet, mintTokens, plantMint, solPayment, tokenPayment } from '@/test/litesvm-view';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';
import { reconcileChains, type ChainReconciliation } from './reconcile-chains';

const USDC = CHAINS.SOLANA.tokens.find((t) => t.symbol === 'USDC')!;
const tank = address(gasTankSolanaKeyFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address);

let merchant: TestMerchant;
let ledger: LiteSvmLedger;
let rpc: SolanaRpc;
let options: { solanaRpcFor: (chain: ChainName) => SolanaRpc | undefined };
let payer: KeyPairSigner;

beforeAll(async () => {
  await switchToPrivateDatabase('solana_ledger');
  // The reconcilers below must not reach the shared EVM test chains.
  for (const chain of EVM_CHAIN_NAMES) delete process.env[rpcEnvName(chain)];
  serveChainsWithoutNode('SOLANA', 'SOLANA_DEVNET');
  merchant = await newMerchant({ verified: true });
});

beforeEach(async () => {
  ledger = new LiteSvmLedger(new LiteSVM());
  // Guarded like the configured RPC, and answering getSlot / getBlockTime so the watcher records how far it searched.
  rpc = createSolanaRpcFromTransport(outsideTransactionsTransport(withClock(ledger)));
  options = { solanaRpcFor: (chain) => (CHAINS[chain].family === 'solana' ? rpc : undefined) };
  payer = await fundedWallet(ledger.svm, 10n);
  ledger.svm.airdrop(tank, lamports(1_000_000_000n));
});

async function reconcile(chain: ChainName, solanaSearchWaitMs = 0): Promise<ChainReconciliation> {
  const [result] = await reconcileChains({ chains: [chain], ...options, solanaSearchWaitMs });
  expect(result!.error).toBeUndefined();
  return result!;
}

/** What reconciliation said of one address: checked or skipped, and its differences. */
const differencesAt = (result: ChainReconciliation, deposit: string) => result.discrepancies.filter((d) => d.address === deposit);

describe('Solana reconciliation', () => {
  it('a SOL payment and its sweep reconcile to 0 differences; lamports arriving behind the ledger’s back are reported', async () => {
    const { chargeId, deposit } = await createTestCharge({
      apiKey: merchant.testKey,
      body: { chargeData: { symbol: 'SOL', chain: 'SOLANA', tokenAddress: SOLANA_NATIVE_MINT, amount: '1.5' } },
    });
    const recipient = deposit.address as Address;
    expectSuccess(
      ledger.send(
        await solPayment(ledger.svm, {
          payer,
          recipient,
          lamports: 1_500_000_000n,
          references: [deposit.reference as Address],
        }),
      ),
    );
    ledger.finalizeThrough();
    await pollSolana('SOLANA_DEVNET', { rpc });

    let result = await reconcile('SOLANA_DEVNET');
    expect(result.checked).toBeGreaterThan(0);
    expect(differencesAt(result, recipient)).toEqual([]);

    expect(await sweepCharge(chargeId, options)).toBe('swept');
    // Signed and on its way: the address is skipped, not reported.
    result = await reconcile('SOLANA_DEVNET');
    expect(result.busy).toBeGreaterThan(0);
    expect(differencesAt(result, recipient)).toEqual([]);

    ledger.finalizeThrough();
    await reconcileDueTransfers({ ...options, ignoreSchedule: true });
    // The sweep's slot is past the watcher's last search: the deposit is not comparable until the watcher has
    // searched again. The gas tank (which paid the sweep's fee) is: its books open here, one balance per token.
    result = await reconcile('SOLANA_DEVNET');
    expect(result).toMatchObject({
      checked: CHAINS.SOLANA_DEVNET.tokens.length,
      busy: CHAINS.SOLANA_DEVNET.tokens.length,
      discrepancies: [],
    });
    await pollSolana('SOLANA_DEVNET', { rpc });
    result = await reconcile('SOLANA_DEVNET');
    expect(ledger.svm.getBalance(recipient) ?? 0n).toBe(0n);
    expect(result.busy).toBe(0);
    expect(result.discrepancies).toEqual([]);

    // Lamports nobody recorded (no transaction the watcher lists): more on chain than in the ledger.
    ledger.svm.airdrop(recipient, lamports(70_000_000n));
    await pollSolana('SOLANA_DEVNET', { rpc });
    result = await reconcile('SOLANA_DEVNET');
    expect(differencesAt(result, recipient)).toEqual([
      expect.objectContaining({ token: SOLANA_NATIVE_MINT, symbol: 'SOL', expected: 0n, actual: 70_000_000n, difference: 70_000_000n }),
    ]);
  });

  it('an SPL payment reconciles against the deposit’s token account; tokens appearing in it behind the ledger’s back are reported', async () => {
    const mint = address(USDC.address);
    const authority = await fundedWallet(ledger.svm, 1n);
    plantMint(ledger, { address: mint, authority: authority.address, decimals: USDC.decimals });
    await mintTokens(ledger, { authority, mint, owner: payer.address, amount: 100_000_000n });
    const { deposit } = await createTestCharge({
      apiKey: merchant.liveKey!,
      body: { chargeData: { symbol: 'USDC', chain: 'SOLANA', tokenAddress: USDC.address, amount: '12.5' } },
    });
    const recipient = deposit.address as Address;
    expectSuccess(
      ledger.send(
        await tokenPayment(ledger.svm, {
          payer,
          mint,
          decimals: USDC.decimals,
          recipient,
          amount: 12_500_000n,
          references: [deposit.reference as Address],
        }),
      ),
    );
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc });
    let result = await reconcile('SOLANA');
    expect(differencesAt(result, recipient)).toEqual([]);
    expect(result.checked).toBeGreaterThanOrEqual(2); // its SOL and its USDC

    // Its token account changed with no transaction at all (nothing the watcher could list).
    const [ata] = await findAssociatedTokenPda({ owner: recipient, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const account = ledger.svm.getAccount(ata);
    if (!account.exists) throw new Error('the payment opened the deposit’s token account');
    const held = getTokenDecoder().decode(account.data);
    ledger.svm.setAccount({ ...account, data: new Uint8Array(getTokenEncoder().encode({ ...held, amount: held.amount + 3_000_000n })) });
    await pollSolana('SOLANA', { rpc });
    result = await reconcile('SOLANA');
    expect(differencesAt(result, recipient)).toEqual([
      expect.objectContaining({ token: USDC.address, symbol: 'USDC', expected: 12_500_000n, actual: 15_500_000n, difference: 3_000_000n }),
    ]);
  });

  it('a watched address read after the watcher’s last search is compared once the watcher searches again: the run waits for it', async () => {
    const { deposit } = await createTestCharge({
      apiKey: merchant.testKey,
      body: { chargeData: { symbol: 'SOL', chain: 'SOLANA', tokenAddress: SOLANA_NATIVE_MINT, amount: '0.25' } },
    });
    const recipient = deposit.address as Address;
    expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: 250_000_000n, references: [deposit.reference as Address] })),
    );
    ledger.finalizeThrough();
    await pollSolana('SOLANA_DEVNET', { rpc });
    // The cluster moves on (as a live one does every 400 ms): every reading is past the watcher's last search.
    advanceClock(ledger, 3);
    ledger.finalizeThrough();

    // Without waiting, the address is not comparable: skipped.
    let result = await reconcile('SOLANA_DEVNET');
    expect(result.busy).toBeGreaterThanOrEqual(CHAINS.SOLANA_DEVNET.tokens.length);
    expect(differencesAt(result, recipient)).toEqual([]);

    // The run waits for the watcher's next search (here a second after it began), then compares.
    const searchLater = new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => pollSolana('SOLANA_DEVNET', { rpc }));
    result = await reconcile('SOLANA_DEVNET', 10_000);
    await searchLater;
    expect(result.busy).toBe(0);
    expect(result.checked).toBeGreaterThanOrEqual(CHAINS.SOLANA_DEVNET.tokens.length);
    expect(differencesAt(result, recipient)).toEqual([]);
  });
});
