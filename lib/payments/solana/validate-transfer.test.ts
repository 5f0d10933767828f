/**
 * validateSolanaPayTransfer against transactions really executed by LiteSVM (the Solana runtime with
 * the System and SPL Token programs), seen as JSON-RPC getTransaction would show them — see
 * test/litesvm-view.ts for how that view is built and what it does not cover.
 */
import { LiteSVM } from 'litesvm';
import { generateKeyPairSigner, lamports, type Address, type KeyPairSigner } from '@solana/kit';
import { beforeEach, describe, expect, it } from 'vitest';
import { newReferenceKey } from '@/lib/keyring/solana-deposit-keys';
import {
  LiteSvmLedger,
  createMint,
  expectSuccess,
  fundedWallet,
  mintTokens,
  solPayment,
  tokenPayment,
  type RpcJsonTransaction,
} from '@/test/litesvm-view';
import { allAccountKeys, validateSolanaPayTransfer, type ConfirmedTransactionView } from './validate-transfer';

const SOL = 1_000_000_000n;

let ledger: LiteSvmLedger;
let payer: KeyPairSigner;
let recipient: Address;
let reference: Address;

beforeEach(async () => {
  ledger = new LiteSvmLedger(new LiteSVM());
  payer = await fundedWallet(ledger.svm, 10n);
  recipient = (await generateKeyPairSigner()).address;
  reference = newReferenceKey() as Address;
});

describe('native SOL', () => {
  it('accepts a transfer carrying the reference and returns what the recipient received', async () => {
    const sent = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: 1_500_000_000n, references: [reference] })),
    );

    // The wallet's shape: the reference is a read-only non-signer key of the transfer instruction.
    const { accountKeys, header, instructions } = sent.view.transaction.message;
    const referenceIndex = accountKeys.indexOf(reference);
    expect(referenceIndex).toBeGreaterThanOrEqual(accountKeys.length - header.numReadonlyUnsignedAccounts);
    expect(instructions.at(-1)?.accounts).toContain(referenceIndex);

    expect(validateSolanaPayTransfer(sent.view, { recipient, references: [reference] })).toEqual({
      ok: true,
      received: 1_500_000_000n,
      payer: payer.address,
      signature: sent.signature,
      slot: BigInt(sent.view.slot),
      blockTime: BigInt(sent.view.blockTime),
    });
    // The view is LiteSVM's real state: the recipient's account now holds the amount.
    expect(ledger.svm.getBalance(recipient)).toBe(1_500_000_000n);
  });

  it('reports an underpayment as the smaller amount received, for the caller to compare', async () => {
    const due = 1n * SOL;
    const sent = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: 900_000_000n, references: [reference] })),
    );
    const result = validateSolanaPayTransfer(sent.view, { recipient, references: [reference] });
    expect(result).toMatchObject({ ok: true, received: 900_000_000n });
    expect(result.ok && result.received < due).toBe(true);
  });

  it('refuses a transfer to another recipient', async () => {
    const someoneElse = (await generateKeyPairSigner()).address;
    const sent = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: someoneElse, lamports: SOL, references: [reference] })),
    );
    expect(validateSolanaPayTransfer(sent.view, { recipient, references: [reference] })).toEqual({
      ok: false,
      reason: 'recipient_not_found',
    });
  });

  it('refuses a transfer without the reference, or without one of several', async () => {
    const other = newReferenceKey() as Address;
    const unreferenced = expectSuccess(ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: SOL, references: [] })));
    expect(validateSolanaPayTransfer(unreferenced.view, { recipient, references: [reference] })).toEqual({
      ok: false,
      reason: 'reference_not_found',
    });

    const both = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: SOL, references: [reference, other] })),
    );
    expect(validateSolanaPayTransfer(both.view, { recipient, references: [reference, other] })).toMatchObject({ ok: true, received: SOL });
    expect(validateSolanaPayTransfer(both.view, { recipient, references: [reference, newReferenceKey()] })).toEqual({
      ok: false,
      reason: 'reference_not_found',
    });
  });

  it('refuses a failed transaction, whose fee was still charged', async () => {
    const poor = await generateKeyPairSigner();
    ledger.svm.airdrop(poor.address, lamports(1_000_000n));
    const sent = ledger.send(await solPayment(ledger.svm, { payer: poor, recipient, lamports: SOL, references: [reference] }));
    expect(sent.isSuccess).toBe(false);
    expect(sent.view.meta.err).toEqual({ InstructionError: [0, { Custom: 1 }] }); // system program: insufficient funds
    expect(sent.view.meta.preBalances[0]! - sent.view.meta.postBalances[0]!).toBe(5000);
    expect(validateSolanaPayTransfer(sent.view, { recipient, references: [reference] })).toEqual({
      ok: false,
      reason: 'transaction_failed',
    });
  });

  it('refuses a token payment when SOL was asked for', async () => {
    const mint = await createMint(ledger, { authority: payer, decimals: 6 });
    await mintTokens(ledger, { authority: payer, mint, owner: payer.address, amount: 1_000_000n });
    const sent = expectSuccess(
      ledger.send(await tokenPayment(ledger.svm, { payer, mint, decimals: 6, recipient, amount: 1_000_000n, references: [reference] })),
    );
    // The recipient wallet is an account of the ATA creation, but its lamports did not move.
    expect(sent.view.transaction.message.accountKeys).toContain(recipient);
    expect(validateSolanaPayTransfer(sent.view, { recipient, references: [reference] })).toEqual({ ok: false, reason: 'nothing_received' });
  });
});

describe('SPL token', () => {
  let mint: Address;
  beforeEach(async () => {
    mint = await createMint(ledger, { authority: payer, decimals: 6 });
    await mintTokens(ledger, { authority: payer, mint, owner: payer.address, amount: 1_000_000_000n }); // 1000 tokens
  });

  it("accepts a TransferChecked into the recipient's new associated token account", async () => {
    const sent = expectSuccess(
      ledger.send(await tokenPayment(ledger.svm, { payer, mint, decimals: 6, recipient, amount: 12_345_678n, references: [reference] })),
    );
    // The account was created by this transaction: no pre balance, a post balance owned by the recipient.
    expect(sent.view.meta.preTokenBalances.some((balance) => balance.owner === recipient)).toBe(false);
    expect(sent.view.meta.postTokenBalances.find((balance) => balance.owner === recipient)?.uiTokenAmount.uiAmountString).toBe('12.345678');
    expect(validateSolanaPayTransfer(sent.view, { recipient, splToken: mint, references: [reference] })).toMatchObject({
      ok: true,
      received: 12_345_678n,
      payer: payer.address,
      signature: sent.signature,
    });
  });

  it('counts the delta, not the balance, when the account already held tokens', async () => {
    expectSuccess(ledger.send(await tokenPayment(ledger.svm, { payer, mint, decimals: 6, recipient, amount: 5_000_000n, references: [] })));
    const second = expectSuccess(
      ledger.send(await tokenPayment(ledger.svm, { payer, mint, decimals: 6, recipient, amount: 2_500_000n, references: [reference] })),
    );
    expect(validateSolanaPayTransfer(second.view, { recipient, splToken: mint, references: [reference] })).toMatchObject({
      ok: true,
      received: 2_500_000n,
    });
  });

  it('refuses another mint, and SOL, when this token was asked for', async () => {
    const otherMint = await createMint(ledger, { authority: payer, decimals: 6 });
    await mintTokens(ledger, { authority: payer, mint: otherMint, owner: payer.address, amount: 1_000_000n });
    const wrongToken = expectSuccess(
      ledger.send(
        await tokenPayment(ledger.svm, { payer, mint: otherMint, decimals: 6, recipient, amount: 1_000_000n, references: [reference] }),
      ),
    );
    expect(validateSolanaPayTransfer(wrongToken.view, { recipient, splToken: mint, references: [reference] })).toEqual({
      ok: false,
      reason: 'recipient_not_found',
    });

    const sol = expectSuccess(ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: SOL, references: [reference] })));
    expect(validateSolanaPayTransfer(sol.view, { recipient, splToken: mint, references: [reference] })).toEqual({
      ok: false,
      reason: 'recipient_not_found',
    });
  });

  it('refuses a token transfer to another owner, or without the reference', async () => {
    const someoneElse = (await generateKeyPairSigner()).address;
    const toOther = expectSuccess(
      ledger.send(
        await tokenPayment(ledger.svm, { payer, mint, decimals: 6, recipient: someoneElse, amount: 1_000_000n, references: [reference] }),
      ),
    );
    expect(validateSolanaPayTransfer(toOther.view, { recipient, splToken: mint, references: [reference] })).toEqual({
      ok: false,
      reason: 'recipient_not_found',
    });

    const unreferenced = expectSuccess(
      ledger.send(await tokenPayment(ledger.svm, { payer, mint, decimals: 6, recipient, amount: 1_000_000n, references: [] })),
    );
    expect(validateSolanaPayTransfer(unreferenced.view, { recipient, splToken: mint, references: [reference] })).toEqual({
      ok: false,
      reason: 'reference_not_found',
    });
  });

  it('refuses a failed token transfer (more than the balance)', async () => {
    const sent = ledger.send(
      await tokenPayment(ledger.svm, { payer, mint, decimals: 6, recipient, amount: 2_000_000_000n, references: [reference] }),
    );
    expect(sent.isSuccess).toBe(false);
    expect(validateSolanaPayTransfer(sent.view, { recipient, splToken: mint, references: [reference] })).toEqual({
      ok: false,
      reason: 'transaction_failed',
    });
  });
});

/**
 * The two other shapes of getTransaction, derived from a real view: 'jsonParsed' (account keys as
 * objects) and a transaction whose recipient and reference came from an address lookup table
 * (moved, with their balances, from the static keys to meta.loadedAddresses). LiteSVM transactions
 * here use no lookup table, so the second one is a rearrangement, not an execution.
 */
describe('account key shapes', () => {
  it('reads jsonParsed account keys', async () => {
    const sent = expectSuccess(ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: SOL, references: [reference] })));
    const { accountKeys, header } = sent.view.transaction.message;
    const parsed: ConfirmedTransactionView = {
      ...sent.view,
      transaction: {
        ...sent.view.transaction,
        message: {
          accountKeys: accountKeys.map((pubkey, index) => ({
            pubkey,
            signer: index < header.numRequiredSignatures,
            source: 'transaction' as const,
          })),
        },
      },
    };
    expect(validateSolanaPayTransfer(parsed, { recipient, references: [reference] })).toMatchObject({
      ok: true,
      received: SOL,
      payer: payer.address,
    });
  });

  it('indexes balances over static keys, then loaded writable, then loaded read-only addresses', async () => {
    const sent = expectSuccess(ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: SOL, references: [reference] })));
    const lookedUp = asIfLoadedFromLookupTable(sent.view, { writable: recipient, readonly: reference });
    expect(allAccountKeys(lookedUp).slice(-2)).toEqual([recipient, reference]);
    expect(lookedUp.transaction.message.accountKeys).not.toContain(recipient);
    expect(validateSolanaPayTransfer(lookedUp, { recipient, references: [reference] })).toMatchObject({ ok: true, received: SOL });
  });
});

function asIfLoadedFromLookupTable(view: RpcJsonTransaction, loaded: { writable: string; readonly: string }): ConfirmedTransactionView {
  const keys = view.transaction.message.accountKeys;
  const order = [...keys.filter((key) => key !== loaded.writable && key !== loaded.readonly), loaded.writable, loaded.readonly];
  const reindex = (balances: readonly number[]) => order.map((key) => balances[keys.indexOf(key)]!);
  const staticCount = order.length - 2;
  return {
    ...view,
    transaction: { ...view.transaction, message: { accountKeys: order.slice(0, staticCount) } },
    meta: {
      ...view.meta,
      preBalances: reindex(view.meta.preBalances),
      postBalances: reindex(view.meta.postBalances),
      loadedAddresses: { writable: [loaded.writable], readonly: [loaded.readonly] },
    },
  };
}
