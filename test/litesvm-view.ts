/**
 * Test helper (never imported by shipped code): real Solana transactions executed in LiteSVM, seen the way a
 * node's JSON-RPC would show them. The ledger itself (what it records, serves and does not model) lives in
 * scripts/stack/litesvm-ledger.ts, where the launcher's local Solana clusters use it too; this file re-exports
 * it and adds the transactions a Solana Pay wallet builds.
 */
import type { LiteSVM } from 'litesvm';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import {
  AccountRole,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Transaction,
} from '@solana/kit';
import type { LiteSvmLedger, SentTransaction } from '@/scripts/stack/litesvm-ledger';

export { LiteSvmLedger, plantMint, type RpcJsonTransaction } from '@/scripts/stack/litesvm-ledger';

// ───────────────────────── transactions, as a Solana Pay wallet builds them ─────────────────────────

export async function fundedWallet(svm: LiteSVM, sol = 10n): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  svm.airdrop(signer.address, lamports(sol * 1_000_000_000n));
  return signer;
}

/** Solana Pay: the references go on the transfer instruction as read-only non-signer accounts. */
function withReferences(instruction: Instruction, references: readonly Address[]): Instruction {
  return {
    ...instruction,
    accounts: [...(instruction.accounts ?? []), ...references.map((address) => ({ address, role: AccountRole.READONLY }))],
  };
}

async function signedTransaction(svm: LiteSVM, feePayer: KeyPairSigner, instructions: Instruction[]): Promise<Transaction> {
  return pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(feePayer, message),
    (message) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(message),
    (message) => appendTransactionMessageInstructions(instructions, message),
    (message) => signTransactionMessageWithSigners(message),
  );
}

export async function solPayment(
  svm: LiteSVM,
  input: { payer: KeyPairSigner; recipient: Address; lamports: bigint; references: readonly Address[] },
): Promise<Transaction> {
  const transfer = getTransferSolInstruction({ source: input.payer, destination: input.recipient, amount: lamports(input.lamports) });
  return signedTransaction(svm, input.payer, [withReferences(transfer, input.references)]);
}

/**
 * A token payment: create the recipient's ATA if needed, then TransferChecked with the references.
 * `createAccount: false` leaves the create out, as a wallet does when the ATA exists: the recipient's
 * wallet address then appears nowhere in the transaction, only its token account.
 */
export async function tokenPayment(
  svm: LiteSVM,
  input: {
    payer: KeyPairSigner;
    mint: Address;
    decimals: number;
    recipient: Address;
    amount: bigint;
    references: readonly Address[];
    createAccount?: boolean;
  },
): Promise<Transaction> {
  const [source] = await findAssociatedTokenPda({ owner: input.payer.address, mint: input.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [destination] = await findAssociatedTokenPda({ owner: input.recipient, mint: input.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const createAta = await getCreateAssociatedTokenIdempotentInstructionAsync({
    payer: input.payer,
    owner: input.recipient,
    mint: input.mint,
  });
  const transfer = getTransferCheckedInstruction({
    source,
    mint: input.mint,
    destination,
    authority: input.payer,
    amount: input.amount,
    decimals: input.decimals,
  });
  const pay = withReferences(transfer, input.references);
  return signedTransaction(svm, input.payer, input.createAccount === false ? [pay] : [createAta, pay]);
}

/** A new mint, created by real System + Token instructions. */
export async function createMint(ledger: LiteSvmLedger, input: { authority: KeyPairSigner; decimals: number }): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const space = BigInt(getMintSize());
  const instructions = [
    getCreateAccountInstruction({
      payer: input.authority,
      newAccount: mint,
      lamports: lamports(ledger.svm.minimumBalanceForRentExemption(space)),
      space,
      programAddress: TOKEN_PROGRAM_ADDRESS,
    }),
    getInitializeMint2Instruction({ mint: mint.address, decimals: input.decimals, mintAuthority: input.authority.address }),
  ];
  expectSuccess(ledger.send(await signedTransaction(ledger.svm, input.authority, instructions)));
  return mint.address;
}

/** Mints `amount` base units into `owner`'s associated token account (created if needed). */
export async function mintTokens(
  ledger: LiteSvmLedger,
  input: { authority: KeyPairSigner; mint: Address; owner: Address; amount: bigint },
): Promise<void> {
  const [token] = await findAssociatedTokenPda({ owner: input.owner, mint: input.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const instructions = [
    await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: input.authority, owner: input.owner, mint: input.mint }),
    getMintToInstruction({ mint: input.mint, token, mintAuthority: input.authority, amount: input.amount }),
  ];
  expectSuccess(ledger.send(await signedTransaction(ledger.svm, input.authority, instructions)));
}

export function expectSuccess(sent: SentTransaction): SentTransaction {
  if (!sent.isSuccess)
    throw new Error(`Transaction failed: ${JSON.stringify(sent.view.meta.err)}\n${sent.view.meta.logMessages.join('\n')}`);
  return sent;
}
