/**
 * Checks that a confirmed transaction carries a Solana Pay transfer, as @solana/pay's validateTransfer
 * does, without throwing:
 *
 *  1. it succeeded (`meta.err` is null — a failed transaction is still recorded, with its fee paid);
 *  2. every reference key is among its account keys (static keys and addresses loaded from lookup tables);
 *  3. the recipient's balance went up: for SOL, the recipient account's lamports (post − pre); for a
 *     token, the sum over all token accounts of that mint owned by the recipient (post − pre). The
 *     token side uses the `owner` of each token balance rather than re-deriving the associated
 *     token account, so a token account the recipient opened by hand counts too.
 *
 * The amount received is returned, not compared: under- and over-payment are the caller's decision.
 *
 * The input is the `getTransaction` result (encoding 'json' or 'jsonParsed', maxSupportedTransactionVersion
 * 0) as @solana/kit returns it (u64s as bigint), or as raw JSON (numbers): both are accepted.
 */

/** A u64 as @solana/kit returns it (bigint) or as raw JSON carries it (number). */
type U64 = bigint | number;

interface RpcTokenBalance {
  /** Index into the transaction's full account key list. */
  accountIndex: number;
  mint: string;
  /** Wallet owning the token account; absent only on transactions older than the field (2021). */
  owner?: string;
  uiTokenAmount: { amount: string; decimals: number };
}

/** An account key of a `jsonParsed` message. */
interface RpcParsedAccountKey {
  pubkey: string;
  signer: boolean;
  writable?: boolean;
  source?: 'transaction' | 'lookupTable';
}

/** The part of a `getTransaction` result the validation reads. */
export interface ConfirmedTransactionView {
  slot: U64;
  blockTime: U64 | null;
  transaction: {
    signatures: readonly string[];
    /** 'json': the static keys (lookup-table addresses are in meta.loadedAddresses); 'jsonParsed': all keys. */
    message: { accountKeys: readonly string[] | readonly RpcParsedAccountKey[] };
  };
  meta: {
    err: unknown;
    preBalances: readonly U64[];
    postBalances: readonly U64[];
    preTokenBalances?: readonly RpcTokenBalance[] | null;
    postTokenBalances?: readonly RpcTokenBalance[] | null;
    /** 'json' with maxSupportedTransactionVersion only; 'jsonParsed' folds them into accountKeys. */
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
  } | null;
}

export interface ValidateTransferInput {
  recipient: string;
  /** Mint of the token requested; omitted for native SOL. */
  splToken?: string;
  /** All must appear in the transaction. */
  references: readonly string[];
}

export type ValidateTransferFailure =
  'missing_meta' | 'malformed' | 'transaction_failed' | 'reference_not_found' | 'recipient_not_found' | 'nothing_received';

export type ValidateTransferResult =
  | {
      ok: true;
      /** Base units received by the recipient (lamports, or the token's smallest unit); always > 0. */
      received: bigint;
      /**
       * Who paid, for refunds and support: the signer whose value went out (the SPL owner whose balance of
       * the mint fell most; for SOL the signer whose lamports fell most), not the fee payer — a payment from
       * a Chargeport balance has the gas tank as fee payer. The first signer when nothing else says.
       */
      payer: string;
      signature: string;
      slot: bigint;
      /** Unix seconds, when the node knows it. */
      blockTime: bigint | null;
    }
  | { ok: false; reason: ValidateTransferFailure };

export function validateSolanaPayTransfer(tx: ConfirmedTransactionView, input: ValidateTransferInput): ValidateTransferResult {
  const { meta } = tx;
  if (!meta) return { ok: false, reason: 'missing_meta' };
  if (meta.err !== null && meta.err !== undefined) return { ok: false, reason: 'transaction_failed' };

  const accountKeys = allAccountKeys(tx);
  if (!input.references.every((reference) => accountKeys.includes(reference))) return { ok: false, reason: 'reference_not_found' };

  let received: bigint;
  if (input.splToken === undefined) {
    const index = accountKeys.indexOf(input.recipient);
    if (index === -1) return { ok: false, reason: 'recipient_not_found' };
    received = BigInt(meta.postBalances[index] ?? 0) - BigInt(meta.preBalances[index] ?? 0);
  } else {
    const isRecipients = (balance: RpcTokenBalance) => balance.mint === input.splToken && balance.owner === input.recipient;
    const pre = (meta.preTokenBalances ?? []).filter(isRecipients);
    const post = (meta.postTokenBalances ?? []).filter(isRecipients);
    if (pre.length === 0 && post.length === 0) return { ok: false, reason: 'recipient_not_found' };
    received = sumAmounts(post) - sumAmounts(pre);
  }
  if (received <= 0n) return { ok: false, reason: 'nothing_received' };

  const payer = valueSource(tx, accountKeys, input) ?? accountKeys[0];
  const signature = tx.transaction.signatures[0];
  if (payer === undefined || signature === undefined) return { ok: false, reason: 'malformed' };
  return {
    ok: true,
    received,
    payer,
    signature,
    slot: BigInt(tx.slot),
    blockTime: tx.blockTime === null ? null : BigInt(tx.blockTime),
  };
}

/**
 * The account keys in the order balances are indexed: static keys, then lookup-table addresses
 * (writable, then read-only). A 'jsonParsed' message already lists them all.
 */
export function allAccountKeys(tx: ConfirmedTransactionView): string[] {
  const keys = tx.transaction.message.accountKeys.map((key) => (typeof key === 'string' ? key : key.pubkey));
  const isParsed = tx.transaction.message.accountKeys.some((key) => typeof key !== 'string');
  const loaded = tx.meta?.loadedAddresses;
  if (isParsed || !loaded) return keys;
  return [...keys, ...loaded.writable, ...loaded.readonly];
}

function sumAmounts(balances: readonly RpcTokenBalance[]): bigint {
  return balances.reduce((total, balance) => total + BigInt(balance.uiTokenAmount.amount), 0n);
}

/** The signer (SOL) or token owner (SPL) whose balance fell most in the transaction, other than the recipient. */
function valueSource(tx: ConfirmedTransactionView, accountKeys: string[], input: ValidateTransferInput): string | undefined {
  const meta = tx.meta!;
  let best: { key: string; spent: bigint } | undefined;
  const consider = (key: string | undefined, spent: bigint) => {
    if (key && key !== input.recipient && spent > 0n && (!best || spent > best.spent)) best = { key, spent };
  };
  if (input.splToken === undefined) {
    const signers = tx.transaction.signatures.length;
    for (let index = 0; index < signers; index++) {
      consider(accountKeys[index], BigInt(meta.preBalances[index] ?? 0) - BigInt(meta.postBalances[index] ?? 0));
    }
  } else {
    const ofMint = (balances: readonly RpcTokenBalance[] | null | undefined) => (balances ?? []).filter((b) => b.mint === input.splToken);
    const post = ofMint(meta.postTokenBalances);
    for (const before of ofMint(meta.preTokenBalances)) {
      const after = post.find((b) => b.accountIndex === before.accountIndex);
      consider(before.owner, BigInt(before.uiTokenAmount.amount) - BigInt(after?.uiTokenAmount.amount ?? '0'));
    }
  }
  return best?.key;
}
