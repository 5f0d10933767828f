/**
 * Real Solana transactions executed in LiteSVM, seen the way a node's JSON-RPC would show them: the core of the
 * local Solana clusters of the launcher (solana-cluster.ts) and of the Solana unit tests (test/litesvm-view.ts
 * re-exports it, with the transaction builders the tests use).
 *
 * LiteSVM runs the real runtime (System and SPL Token programs included) but has no JSON-RPC, so
 * `LiteSvmLedger.send` builds the `getTransaction` result (encoding 'json', version 0) itself, from
 * what really happened:
 *   - account keys, header, instructions: decoded from the compiled message that was sent;
 *   - pre/post lamport balances: every account key read from LiteSVM just before and just after;
 *   - pre/post token balances: every account key that is an SPL Token account, decoded before and
 *     after (mint, owner, amount; decimals from its mint), as the node's token-balance recorder does;
 *   - err: LiteSVM's result (a failed transaction still charges its fee, as on a cluster);
 *   - slot / blockTime: LiteSVM's clock, advanced one slot per transaction (or by the cluster's clock).
 * Numbers are plain JSON numbers, as on the wire; @solana/kit turns them into bigints.
 *
 * A transaction LiteSVM refuses before executing it (blockhash not found, already processed, bad
 * signature, fee payer unable to pay) charges no fee and is not recorded: a cluster never includes it.
 *
 * `ledger.transport` serves getSignaturesForAddress and getTransaction from those records through a
 * real @solana/kit RPC (createSolanaRpcFromTransport): kit's request and response transformers run,
 * only HTTP is replaced. Its index and commitment rules are written here, after the RPC
 * documentation: newest first, `before`/`until` exclusive, `limit`; a 'finalized' query sees only
 * slots marked finalized with `finalizeThrough`.
 *
 * For code that sends transactions it also serves sendTransaction (preflight = LiteSVM's simulation,
 * refused as a node does with -32002; `withholding` makes it accept and keep transactions without
 * executing them, as a leader that never got them — `releaseWithheld` executes them later),
 * getSignatureStatuses, getLatestBlockhash / isBlockhashValid (LiteSVM accepts only its latest
 * blockhash, until `svm.expireBlockhash()`; lastValidBlockHeight is slot + 150), getBalance,
 * getAccountInfo (base64) and getMinimumBalanceForRentExemption. The local cluster serves the rest.
 *
 * Not exercised: a live node (its real indexing, pagination and commitment behaviour, forks, block
 * heights, its own re-broadcasting, rate limits), address lookup tables (loadedAddresses stay empty),
 * Token-2022 extensions, jsonParsed encoding, and fees other than LiteSVM's default.
 */
import { FailedTransactionMetadata, type LiteSVM } from 'litesvm';
import { TOKEN_PROGRAM_ADDRESS, getMintDecoder, getMintEncoder, getTokenDecoder } from '@solana-program/token';
import {
  getBase58Decoder,
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  getSignatureFromTransaction,
  lamports,
  type Address,
  type RpcTransport,
  type Transaction,
} from '@solana/kit';
import { formatAmount } from '@/lib/money';

export const TOKEN_ACCOUNT_SIZE = 165;
/** LiteSVM's clock starts at 0; blockTime counts from here (2026-01-01T00:00:00Z), one second per slot. */
const GENESIS_UNIX_TIME = 1_767_225_600n;
/** LiteSVM's default fee; the JS binding has no getter for the fee it charged. */
export const LAMPORTS_PER_SIGNATURE = 5000;

export interface RpcJsonTokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number; uiAmountString: string };
}

/** A `getTransaction` result, encoding 'json', maxSupportedTransactionVersion 0, as JSON on the wire. */
export interface RpcJsonTransaction {
  slot: number;
  blockTime: number;
  version: 0 | 'legacy';
  transaction: {
    signatures: string[];
    message: {
      accountKeys: string[];
      header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
      recentBlockhash: string;
      instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: null }[];
      addressTableLookups: [];
    };
  };
  meta: {
    err: unknown;
    status: { Ok: null } | { Err: unknown };
    fee: number;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances: RpcJsonTokenBalance[];
    postTokenBalances: RpcJsonTokenBalance[];
    loadedAddresses: { writable: string[]; readonly: string[] };
    logMessages: string[];
    innerInstructions: [];
    rewards: [];
    computeUnitsConsumed: number;
  };
}

export interface SentTransaction {
  signature: string;
  isSuccess: boolean;
  /** False when LiteSVM refused it before execution (no fee charged, not recorded). */
  isLanded: boolean;
  view: RpcJsonTransaction;
  /** The transaction as sent, base64 (getTransaction with encoding 'base64'). */
  wire: string;
}

export interface LiteSvmLedgerOptions {
  /**
   * 'per-transaction' (default, tests): each transaction advances the clock one slot and one second from
   * GENESIS_UNIX_TIME. 'external': the owner (the local cluster, solana-cluster.ts) moves the clock on its own;
   * a transaction lands in the current slot, beside any other sent in it.
   */
  clock?: 'per-transaction' | 'external';
}

/** Blocks a blockhash stays valid for on a cluster (MAX_PROCESSING_AGE). */
const BLOCKHASH_VALID_BLOCKS = 150;

export class LiteSvmLedger {
  readonly sent: SentTransaction[] = [];
  /** Every JSON-RPC call the transport served, for assertions on pagination. */
  readonly calls: { method: string; params: unknown[] }[] = [];
  /** Signatures a lagging node lists but cannot return yet (getTransaction → null). */
  readonly lagging = new Set<string>();
  /** While true, sendTransaction accepts transactions but does not execute them (they wait in `withheld`). */
  withholding = false;
  readonly withheld: Transaction[] = [];
  private finalizedSlot = -1;
  /** The newest slot marked finalized (finalizeThrough). */
  get finalized(): number {
    return this.finalizedSlot;
  }

  constructor(
    readonly svm: LiteSVM,
    private readonly options: LiteSvmLedgerOptions = {},
  ) {
    // LiteSVM starts at a recent mainnet slot (447552000) with time 0: with its own clock the ledger starts at slot 0,
    // stamped at genesis (else blocks would be stamped in 2040, and every payment's block time after its expiry).
    const clock = svm.getClock();
    if (options.clock !== 'external' && clock.unixTimestamp === 0n) {
      clock.slot = 0n;
      clock.unixTimestamp = GENESIS_UNIX_TIME;
      svm.setClock(clock);
    }
  }

  /** Executes a signed transaction in LiteSVM and records its RPC view. */
  send(transaction: Transaction): SentTransaction {
    const clock = this.svm.getClock();
    if (this.options.clock !== 'external') {
      clock.slot += 1n;
      clock.unixTimestamp = GENESIS_UNIX_TIME + clock.slot;
      this.svm.setClock(clock);
    }

    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (message.version === 1) throw new Error('litesvm-ledger handles legacy and version 0 messages.');
    if ('addressTableLookups' in message && message.addressTableLookups?.length)
      throw new Error('litesvm-ledger does not resolve address lookup tables.');
    const keys = message.staticAccounts;
    const pre = this.snapshot(keys);
    const result = this.svm.sendTransaction(transaction);
    const post = this.snapshot(keys);
    const failed = result instanceof FailedTransactionMetadata;
    const err = failed ? rpcError(result.err()) : null;
    const meta = failed ? result.meta() : result;
    const base58 = getBase58Decoder();
    const signature = getSignatureFromTransaction(transaction);
    // Refused before execution, a failed transaction charges its fee payer nothing: it never landed.
    const isLanded = !failed || (post.lamports[0] ?? 0) < (pre.lamports[0] ?? 0);

    const view: RpcJsonTransaction = {
      slot: toNumber(clock.slot),
      blockTime: toNumber(clock.unixTimestamp),
      version: message.version === 'legacy' ? 'legacy' : 0,
      transaction: {
        signatures: keys
          .slice(0, message.header.numSignerAccounts)
          .map((key) => base58.decode(transaction.signatures[key] ?? new Uint8Array(64))),
        message: {
          accountKeys: [...keys],
          header: {
            numRequiredSignatures: message.header.numSignerAccounts,
            numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
            numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
          },
          recentBlockhash: message.lifetimeToken,
          instructions: message.instructions.map((instruction) => ({
            programIdIndex: instruction.programAddressIndex,
            accounts: [...(instruction.accountIndices ?? [])],
            data: base58.decode(instruction.data ?? new Uint8Array()),
            stackHeight: null,
          })),
          addressTableLookups: [],
        },
      },
      meta: {
        err,
        status: err === null ? { Ok: null } : { Err: err },
        fee: LAMPORTS_PER_SIGNATURE * message.header.numSignerAccounts,
        preBalances: pre.lamports,
        postBalances: post.lamports,
        preTokenBalances: pre.tokenBalances,
        postTokenBalances: post.tokenBalances,
        loadedAddresses: { writable: [], readonly: [] },
        logMessages: meta.logs(),
        innerInstructions: [],
        rewards: [],
        computeUnitsConsumed: toNumber(meta.computeUnitsConsumed()),
      },
    };
    const wire = getBase64Decoder().decode(getTransactionEncoder().encode(transaction));
    const sent = { signature, isSuccess: !failed, isLanded, view, wire };
    if (isLanded) this.sent.push(sent);
    return sent;
  }

  /** Executes the transactions withheld by `withholding` (those whose blockhash expired meanwhile never land). */
  releaseWithheld(): SentTransaction[] {
    return this.withheld.splice(0).map((transaction) => this.send(transaction));
  }

  /** The current slot, as a JSON number. */
  get slot(): number {
    return toNumber(this.svm.getClock().slot);
  }

  /** Marks every transaction up to the current slot as finalized. */
  finalizeThrough(slot: number = toNumber(this.svm.getClock().slot)): void {
    this.finalizedSlot = slot;
  }

  /** A JSON-RPC transport serving getSignaturesForAddress and getTransaction from the ledger. */
  readonly transport: RpcTransport = async <TResponse>({ payload }: { payload: unknown }): Promise<TResponse> => {
    const { id, method, params } = payload as { id: string; method: string; params: unknown[] };
    this.calls.push({ method, params });
    const respond = (body: { result: unknown } | { error: { code: number; message: string } }) =>
      ({ jsonrpc: '2.0', id, ...body }) as TResponse;
    switch (method) {
      case 'getSignaturesForAddress':
        return respond({ result: this.signaturesFor(params[0] as string, (params[1] ?? {}) as SignaturesConfig) });
      case 'getTransaction': {
        const config = (params[1] ?? {}) as { commitment?: string; encoding?: string; maxSupportedTransactionVersion?: number };
        if (config.encoding !== 'json' && config.encoding !== 'base64')
          return respond({ error: { code: -32602, message: 'litesvm-ledger serves encoding "json" or "base64" only' } });
        const found = this.sent.find((tx) => tx.signature === params[0]);
        if (found && found.view.version !== 'legacy' && config.maxSupportedTransactionVersion === undefined) {
          // What a node answers for a version 0 transaction requested without maxSupportedTransactionVersion.
          return respond({ error: { code: -32015, message: 'Transaction version (0) is not supported by the requesting client.' } });
        }
        const visible = found && !this.lagging.has(found.signature) && this.isVisible(found, config.commitment);
        if (!visible) return respond({ result: null });
        // base64: the transaction as sent, beside the same meta (what a node answers).
        return respond({ result: config.encoding === 'base64' ? { ...found.view, transaction: [found.wire, 'base64'] } : found.view });
      }
      case 'sendTransaction':
        return respond(this.sendWire(params[0] as string, (params[1] ?? {}) as { encoding?: string; skipPreflight?: boolean }));
      case 'getSignatureStatuses':
        return respond({
          result: { context: { slot: this.slot }, value: (params[0] as string[]).map((signature) => this.statusOf(signature)) },
        });
      case 'getLatestBlockhash':
        return respond({
          result: {
            context: { slot: this.slot },
            value: { blockhash: this.svm.latestBlockhash(), lastValidBlockHeight: this.slot + BLOCKHASH_VALID_BLOCKS },
          },
        });
      case 'isBlockhashValid':
        return respond({ result: { context: { slot: this.slot }, value: params[0] === this.svm.latestBlockhash() } });
      case 'getBalance':
        return respond({ result: { context: { slot: this.slot }, value: toNumber(this.svm.getBalance(params[0] as Address) ?? 0n) } });
      case 'getAccountInfo': {
        const config = (params[1] ?? {}) as { encoding?: string };
        if (config.encoding !== 'base64')
          return respond({ error: { code: -32602, message: 'litesvm-ledger serves getAccountInfo with encoding "base64" only' } });
        const account = this.svm.getAccount(params[0] as Address);
        const value = account.exists
          ? {
              data: [getBase64Decoder().decode(account.data), 'base64'],
              executable: account.executable,
              lamports: toNumber(account.lamports),
              owner: account.programAddress,
              rentEpoch: 0,
              space: account.data.length,
            }
          : null;
        return respond({ result: { context: { slot: this.slot }, value } });
      }
      case 'getMinimumBalanceForRentExemption':
        return respond({ result: toNumber(this.svm.minimumBalanceForRentExemption(BigInt(params[0] as number))) });
      default:
        return respond({ error: { code: -32601, message: `Method not found: ${method}` } });
    }
  };

  /** sendTransaction: preflight (LiteSVM's simulation) unless skipped, then execute — or withhold. */
  private sendWire(
    wire: string,
    config: { encoding?: string; skipPreflight?: boolean },
  ): { result: string } | { error: { code: number; message: string; data?: unknown } } {
    if (config.encoding !== 'base64') return { error: { code: -32602, message: 'litesvm-ledger accepts encoding "base64" only' } };
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire));
    const signature = getSignatureFromTransaction(transaction);
    if (!config.skipPreflight) {
      const simulated = this.svm.simulateTransaction(transaction);
      if (simulated instanceof FailedTransactionMetadata) {
        return {
          error: {
            code: -32002,
            message: `Transaction simulation failed: ${String(rpcError(simulated.err()))}`,
            data: { err: rpcError(simulated.err()), logs: simulated.meta().logs() },
          },
        };
      }
    }
    if (this.withholding) this.withheld.push(transaction);
    else this.send(transaction);
    return { result: signature };
  }

  private statusOf(signature: string) {
    const found = this.sent.find((tx) => tx.signature === signature);
    if (!found) return null;
    const isFinalized = found.view.slot <= this.finalizedSlot;
    return {
      slot: found.view.slot,
      confirmations: isFinalized ? null : this.slot - found.view.slot,
      err: found.view.meta.err,
      status: found.view.meta.status,
      confirmationStatus: isFinalized ? 'finalized' : 'confirmed',
    };
  }

  private signaturesFor(address: string, config: SignaturesConfig) {
    const listed = this.sent
      .filter((tx) => tx.view.transaction.message.accountKeys.includes(address) && this.isVisible(tx, config.commitment))
      .reverse(); // newest first (one transaction per slot here)
    let start = 0;
    if (config.before) {
      const at = listed.findIndex((tx) => tx.signature === config.before);
      start = at === -1 ? listed.length : at + 1;
    }
    let end = listed.length;
    if (config.until) {
      const at = listed.findIndex((tx) => tx.signature === config.until);
      if (at !== -1) end = at;
    }
    return listed
      .slice(start, Math.max(start, end))
      .slice(0, config.limit ?? 1000)
      .map((tx) => ({
        signature: tx.signature,
        slot: tx.view.slot,
        err: tx.view.meta.err,
        memo: null,
        blockTime: tx.view.blockTime,
        confirmationStatus: tx.view.slot <= this.finalizedSlot ? 'finalized' : 'confirmed',
      }));
  }

  /** A node's default commitment is 'finalized' (and @solana/kit leaves `commitment: 'finalized'` out of requests). */
  private isVisible(tx: SentTransaction, commitment: string | undefined): boolean {
    return (commitment ?? 'finalized') !== 'finalized' || tx.view.slot <= this.finalizedSlot;
  }

  private snapshot(keys: readonly Address[]): { lamports: number[]; tokenBalances: RpcJsonTokenBalance[] } {
    const tokenBalances: RpcJsonTokenBalance[] = [];
    const balances = keys.map((key, accountIndex) => {
      const account = this.svm.getAccount(key);
      if (!account.exists) return 0;
      if (account.programAddress === TOKEN_PROGRAM_ADDRESS && account.data.length === TOKEN_ACCOUNT_SIZE) {
        const token = getTokenDecoder().decode(account.data);
        const mint = this.svm.getAccount(token.mint);
        if (!mint.exists) throw new Error(`Token account ${key} has no mint.`);
        const { decimals } = getMintDecoder().decode(mint.data);
        const uiAmountString = formatAmount(token.amount, decimals);
        tokenBalances.push({
          accountIndex,
          mint: token.mint,
          owner: token.owner,
          programId: TOKEN_PROGRAM_ADDRESS,
          uiTokenAmount: { amount: token.amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString },
        });
      }
      return toNumber(account.lamports);
    });
    return { lamports: balances, tokenBalances };
  }
}

interface SignaturesConfig {
  before?: string;
  until?: string;
  limit?: number;
  commitment?: string;
}

/**
 * A mint planted at a fixed address (the registry's canonical mint, e.g. USDC) with `authority` as its
 * mint authority, as the local EVM nodes plant demo tokens at the canonical addresses: the Token program
 * then treats it as any mint. No transaction creates it (nobody holds the canonical mint's key).
 */
export function plantMint(ledger: LiteSvmLedger, input: { address: Address; authority: Address; decimals: number }): void {
  const data = new Uint8Array(
    getMintEncoder().encode({
      mintAuthority: input.authority,
      supply: 0n,
      decimals: input.decimals,
      isInitialized: true,
      freezeAuthority: null,
    }),
  );
  ledger.svm.setAccount({
    address: input.address,
    data,
    executable: false,
    lamports: lamports(ledger.svm.minimumBalanceForRentExemption(BigInt(data.length))),
    programAddress: TOKEN_PROGRAM_ADDRESS,
    space: BigInt(data.length),
  });
}

/** LiteSVM's TransactionErrorFieldless, by value (a `const enum` in its types: no runtime object to read). */
const FIELDLESS_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
] as const;

/** LiteSVM's error in the RPC's JSON form: an instruction error as an object, a fieldless one by name; its text otherwise. */
export function rpcError(err: ReturnType<FailedTransactionMetadata['err']>): unknown {
  if (typeof err === 'number') return FIELDLESS_ERRORS[err] ?? String(err);
  if (typeof err === 'object' && 'index' in err && typeof err.index === 'number' && 'err' in err) {
    const inner = err.err();
    return { InstructionError: [err.index, typeof inner === 'object' && 'code' in inner ? { Custom: inner.code } : String(inner)] };
  }
  return String(err);
}

export function toNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${value} does not fit a JSON number exactly.`);
  return Number(value);
}
