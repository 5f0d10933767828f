/**
 * Solana transfers of value (balance payments, withdrawals, refunds, wallet sends), chain side: what the
 * chain says before one is recorded, and the signed transaction. Like prepareTransfer on EVM, the reads
 * happen BEFORE the recording database transaction (no RPC call waits under a lock); the decision (what
 * is in flight, the tank's balance, the transfer gate) is recordSolanaTransfer's (./solana-transfers.ts).
 *
 *  - The gas tank's Solana key is the FEE PAYER: the sender signs only as the source of the value, so no
 *    user, merchant or deposit wallet needs SOL for fees. The tank's cost is the signatures' fee plus the
 *    rent of the recipient's token account when the transaction creates it.
 *  - SOL: a System transfer. SPL: create the recipient's associated token account idempotently (payer:
 *    the tank), then TransferChecked from the sender's. Classic Token program only, as sweeps.
 *  - Lifetime: a blockhash read at 'finalized' (see sweep-solana.ts for why: "expired" is then a proof).
 */
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  fetchEncodedAccount,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTokenDecoder,
  getTokenSize,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { resolveSolanaRpc, type SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { gasTankSolanaSigner } from '@/lib/transactions/gas-tank';
import type { TransferSpend } from '@/lib/transactions/prepare-transfer';

/** Solana's base fee per signature; no compute-unit price is set, so the tank's and the sender's make the whole fee. */
const LAMPORTS_PER_SIGNATURE = 5000n;
const SIGNATURES = 2n;

export interface PreparedSolanaTransfer {
  family: 'solana';
  chain: ChainName;
  from: string;
  spend: TransferSpend;
  feePayer: KeyPairSigner;
  lifetime: { blockhash: Blockhash; lastValidBlockHeight: bigint };
  /** The sender's lamports and (SPL) token balance, at 'confirmed'. */
  sender: { lamports: bigint; tokenBalance?: bigint };
  tank: { address: string; lamports: bigint };
  /** Rent exemption of an account without data: a system account ends at 0 or at least this. */
  rentExempt: bigint;
  /** What the tank pays if it lands: the fee, plus the recipient's token account rent when it is created. */
  feePayerCost: bigint;
}

function unreachable(chain: ChainName): AppError {
  return new AppError('chain_unavailable', `${CHAINS[chain].displayName} is not reachable right now. Try again shortly.`);
}

export async function prepareSolanaTransfer(
  input: { chain: ChainName; from: string; spend: TransferSpend },
  options: SolanaRpcOptions = {},
): Promise<PreparedSolanaTransfer> {
  const rpc = resolveSolanaRpc(input.chain, options);
  if (!rpc) throw unreachable(input.chain);
  const { token, amount } = input.spend;
  const from = address(input.from);
  const recipient = address(input.spend.recipient);
  const feePayer = await gasTankSolanaSigner();
  try {
    const [{ value: senderLamports }, { value: tankLamports }, rentExempt, { value: lifetime }] = await Promise.all([
      rpc.getBalance(from, { commitment: 'confirmed' }).send(),
      rpc.getBalance(feePayer.address, { commitment: 'confirmed' }).send(),
      rpc.getMinimumBalanceForRentExemption(0n).send(),
      rpc.getLatestBlockhash({ commitment: 'finalized' }).send(),
    ]);
    let tokenBalance: bigint | undefined;
    let rent = 0n;
    if (token.isNative) {
      // A new system account must start rent-exempt: less than that to an empty address fails on chain.
      const { value: recipientLamports } = await rpc.getBalance(recipient, { commitment: 'confirmed' }).send();
      if (recipientLamports === 0n && amount < rentExempt) {
        throw new AppError(
          'invalid_amount',
          `${recipient} holds no SOL yet: send at least ${formatAmount(rentExempt, token.decimals)} SOL (Solana's minimum for a new account).`,
          { param: 'amount' },
        );
      }
    } else {
      const mint = address(token.address);
      const [source] = await findAssociatedTokenPda({ owner: from, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
      const [destination] = await findAssociatedTokenPda({ owner: recipient, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
      const [sourceAccount, destinationAccount] = await Promise.all([
        fetchEncodedAccount(rpc, source, { commitment: 'confirmed' }),
        fetchEncodedAccount(rpc, destination, { commitment: 'confirmed' }),
      ]);
      tokenBalance = sourceAccount.exists ? getTokenDecoder().decode(sourceAccount.data).amount : 0n;
      if (!destinationAccount.exists) rent = await rpc.getMinimumBalanceForRentExemption(BigInt(getTokenSize())).send();
    }
    return {
      family: 'solana',
      chain: input.chain,
      from: input.from,
      spend: input.spend,
      feePayer,
      lifetime,
      sender: { lamports: senderLamports, ...(tokenBalance === undefined ? {} : { tokenBalance }) },
      tank: { address: feePayer.address, lamports: tankLamports },
      rentExempt,
      feePayerCost: LAMPORTS_PER_SIGNATURE * SIGNATURES + rent,
    };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw unreachable(input.chain);
  }
}

/** Signs the prepared transfer: the tank pays, `signer` (the sender) authorises the value. Local only, no RPC. */
export async function signSolanaTransfer(
  prepared: PreparedSolanaTransfer,
  signer: KeyPairSigner,
): Promise<{ signature: Signature; wireTransaction: Base64EncodedWireTransaction }> {
  const { token, amount } = prepared.spend;
  const recipient = address(prepared.spend.recipient);
  const instructions: Instruction[] = [];
  if (token.isNative) {
    instructions.push(getTransferSolInstruction({ source: signer, destination: recipient, amount: lamports(amount) }));
  } else {
    const mint = address(token.address);
    const [source] = await findAssociatedTokenPda({ owner: signer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const [destination] = await findAssociatedTokenPda({ owner: recipient, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    instructions.push(
      getCreateAssociatedTokenIdempotentInstruction({ payer: prepared.feePayer, ata: destination, owner: recipient, mint }),
      getTransferCheckedInstruction({ source, mint, destination, authority: signer, amount, decimals: token.decimals }),
    );
  }
  const transaction = await pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(prepared.feePayer, message),
    (message) => setTransactionMessageLifetimeUsingBlockhash(prepared.lifetime, message),
    (message) => appendTransactionMessageInstructions(instructions, message),
    (message) => signTransactionMessageWithSigners(message),
  );
  return { signature: getSignatureFromTransaction(transaction), wireTransaction: getBase64EncodedWireTransaction(transaction) };
}

/** A signer over a Solana wallet's opened key (64 bytes, seed ‖ public key); the buffer is wiped once read. */
export async function solanaSignerFromKey(key: Buffer): Promise<KeyPairSigner> {
  const bytes = new Uint8Array(key);
  try {
    return await createKeyPairSignerFromBytes(bytes);
  } finally {
    key.fill(0);
    bytes.fill(0);
  }
}
