/**
 * Solana sweeps, chain side: build and sign the transaction that moves a charge's funds from its deposit
 * address to the payee, send it, and read back what became of it. The database side (recorded before
 * broadcast, reconciled) is ./solana-transfers.ts; the entry point is lib/payments/sweep-charges.ts.
 *
 *  - The gas tank's Solana key is the transaction's FEE PAYER, so the deposit address never needs SOL of
 *    its own and no top-up transaction is needed (unlike EVM chains). Both keys sign the one transaction.
 *  - SOL: a System transfer of the amount owed. The deposit is a plain system account (no data): the
 *    runtime lets it end at exactly 0 lamports or at least rent-exempt, nothing in between. So when what
 *    would stay (lamports not counted yet, e.g. dust that arrived after the charge succeeded) is above 0
 *    but below rent exemption, it goes along and the deposit ends at 0; `amount` in the result says what
 *    the transaction really moves. (Sweeping the owed amount alone would fail preflight on every pass.)
 *  - SPL: create the payee's associated token account idempotently (payer: the gas tank, whose rent is
 *    then a platform cost) and TransferChecked from the deposit's associated token account. Classic Token
 *    program only, as the registry's mints are; Token-2022 would need its program id in both places.
 *  - Lifetime: a blockhash read at 'finalized'. A transaction whose blockhash the *finalized* bank no
 *    longer accepts can never land on any fork that may still win, so "not found, blockhash invalid at
 *    'finalized'" proves it dead (solanaTransactionOutcome) — "not found" by its status AND by
 *    getTransaction, since one node's status answer may lack the history. A blockhash read at 'confirmed' could be
 *    unknown to the finalized bank and look expired while the transaction may still land.
 */
import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  fetchEncodedAccount,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  signature as toSignature,
  type Address,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type GetAccountInfoApi,
  type GetBalanceApi,
  type GetLatestBlockhashApi,
  type GetMinimumBalanceForRentExemptionApi,
  type GetSignatureStatusesApi,
  type GetTransactionApi,
  type Instruction,
  type IsBlockhashValidApi,
  type KeyPairSigner,
  type Rpc,
  type SendTransactionApi,
  type Signature,
  type TransactionError,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTokenSize,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import type { TokenInfo } from '@/lib/chains/registry';

/** Solana's base fee. No compute-unit price is set, so this is the whole fee of a sweep. */
const LAMPORTS_PER_SIGNATURE = 5000n;

export type SolanaSweepRpc = Rpc<GetAccountInfoApi & GetBalanceApi & GetLatestBlockhashApi & GetMinimumBalanceForRentExemptionApi>;
export type SolanaTransferRpc = Rpc<GetSignatureStatusesApi & GetTransactionApi & IsBlockhashValidApi & SendTransactionApi>;

export type SignSolanaSweepResult =
  | {
      kind: 'signed';
      signature: Signature;
      /** The signed transaction, base64 wire format: what is recorded, and sent (again) as is. */
      wireTransaction: Base64EncodedWireTransaction;
      /** What the fee payer spends if it lands: the signatures' fees, plus the rent of the payee's token account when this creates it. */
      feePayerCost: bigint;
      /** What the transaction moves: the amount asked for, or (SOL) the whole balance when the rest could not stay rent-exempt. */
      amount: bigint;
    }
  | { kind: 'fee_payer_short'; needed: bigint; balance: bigint };

/**
 * Signs the sweep of `amount` (base units of `token`) from `deposit` to `payee`, `feePayer` paying. Reads
 * the chain (payee token account, fee payer balance, blockhash); sends nothing. `fee_payer_short` when
 * the fee payer could not pay and stay rent-exempt, as the runtime requires of a fee payer.
 */
export async function signSolanaSweep(
  rpc: SolanaSweepRpc,
  input: { feePayer: KeyPairSigner; deposit: KeyPairSigner; payee: Address; token: TokenInfo; amount: bigint },
): Promise<SignSolanaSweepResult> {
  const instructions: Instruction[] = [];
  let rent = 0n;
  let amount = input.amount;
  if (input.token.isNative) {
    const [{ value: held }, rentExempt] = await Promise.all([
      rpc.getBalance(input.deposit.address, { commitment: 'confirmed' }).send(),
      rpc.getMinimumBalanceForRentExemption(0n).send(),
    ]);
    const remainder = held - amount;
    if (remainder > 0n && remainder < rentExempt) amount = held;
    instructions.push(getTransferSolInstruction({ source: input.deposit, destination: input.payee, amount: lamports(amount) }));
  } else {
    const mint = address(input.token.address);
    const [source] = await findAssociatedTokenPda({ owner: input.deposit.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const [destination] = await findAssociatedTokenPda({ owner: input.payee, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    if (!(await fetchEncodedAccount(rpc, destination)).exists) {
      rent = await rpc.getMinimumBalanceForRentExemption(BigInt(getTokenSize())).send();
    }
    instructions.push(
      getCreateAssociatedTokenIdempotentInstruction({ payer: input.feePayer, ata: destination, owner: input.payee, mint }),
      getTransferCheckedInstruction({
        source,
        mint,
        destination,
        authority: input.deposit,
        amount: input.amount,
        decimals: input.token.decimals,
      }),
    );
  }

  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'finalized' }).send();
  const transaction = await pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(input.feePayer, message),
    (message) => setTransactionMessageLifetimeUsingBlockhash(lifetime, message),
    (message) => appendTransactionMessageInstructions(instructions, message),
    (message) => signTransactionMessageWithSigners(message),
  );
  const feePayerCost = LAMPORTS_PER_SIGNATURE * BigInt(Object.keys(transaction.signatures).length) + rent;

  const [{ value: balance }, reserve] = await Promise.all([
    rpc.getBalance(input.feePayer.address).send(),
    rpc.getMinimumBalanceForRentExemption(0n).send(),
  ]);
  if (balance < feePayerCost + reserve) return { kind: 'fee_payer_short', needed: feePayerCost + reserve, balance };
  return {
    kind: 'signed',
    signature: getSignatureFromTransaction(transaction),
    wireTransaction: getBase64EncodedWireTransaction(transaction),
    feePayerCost,
    amount,
  };
}

/** Sends recorded bytes; the node simulates them first (preflight) and rejects what would fail. Repeating is harmless. */
export async function sendSolanaTransaction(rpc: SolanaTransferRpc, wireTransaction: string): Promise<void> {
  await rpc.sendTransaction(wireTransaction as Base64EncodedWireTransaction, { encoding: 'base64' }).send();
}

export type SolanaTransactionOutcome =
  /** In a finalized block: it cannot be rolled back. `err` null when it succeeded. */
  | { kind: 'finalized'; err: TransactionError | null }
  /** Seen at 'processed' or 'confirmed': wait for finality. */
  | { kind: 'landing' }
  /** Not seen; its blockhash is still valid: it may still land (send it again). */
  | { kind: 'not_seen' }
  /** Not seen and its blockhash expired at 'finalized': it never landed and never will. */
  | { kind: 'expired' };

export async function solanaTransactionOutcome(rpc: SolanaTransferRpc, wireTransaction: string): Promise<SolanaTransactionOutcome> {
  const { signature, blockhash } = decodeWireTransaction(wireTransaction);
  const status = await signatureStatus(rpc, signature);
  if (status) return status;
  const { value: isValid } = await rpc.isBlockhashValid(blockhash, { commitment: 'finalized' }).send();
  if (isValid) return { kind: 'not_seen' };
  // It may have landed between the two reads: if so it is in a finalized block now, found in history.
  const again = await signatureStatus(rpc, signature);
  if (again) return again;
  // "Expired" lets the caller sign a new transaction, so it needs a second witness: a node that answers
  // statuses without that history (pruned, or another node behind a balancer) would otherwise make a landed
  // transfer look dead and send it twice (test/faults/solana-faults.test.ts).
  const landed = await rpc
    .getTransaction(signature, { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 })
    .send();
  return landed ? { kind: 'finalized', err: landed.meta?.err ?? null } : { kind: 'expired' };
}

/** What the fee payer (the first account) really spent in a landed transaction: fee, plus any rent it paid. */
export async function feePayerSpent(rpc: SolanaTransferRpc, signature: string): Promise<bigint | undefined> {
  const transaction = await rpc
    .getTransaction(toSignature(signature), { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 })
    .send();
  const before = transaction?.meta?.preBalances[0];
  const after = transaction?.meta?.postBalances[0];
  return before === undefined || after === undefined ? undefined : before - after;
}

export function decodeWireTransaction(wireTransaction: string): { signature: Signature; blockhash: Blockhash } {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wireTransaction));
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  return { signature: getSignatureFromTransaction(transaction), blockhash: message.lifetimeToken as Blockhash };
}

async function signatureStatus(rpc: SolanaTransferRpc, signature: Signature): Promise<SolanaTransactionOutcome | undefined> {
  const { value } = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send();
  const status = value[0];
  if (!status) return undefined;
  return status.confirmationStatus === 'finalized' ? { kind: 'finalized', err: status.err } : { kind: 'landing' };
}
