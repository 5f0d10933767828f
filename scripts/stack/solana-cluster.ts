/**
 * A local Solana cluster, as anvil is a local EVM node: LiteSVM — the real Solana runtime, with the System, SPL
 * Token and Associated Token programs — behind the JSON-RPC methods @solana/kit, the app and browser wallets use,
 * on loopback. The launcher runs one per Solana chain without an RPC URL (local-solana.ts starts it as a child
 * process, scripts/solana-cluster.mts), in development, on the e2e stack and with LOCAL_CHAIN_NODES=true.
 *
 * What it models:
 *   - a clock: a slot every SLOT_MS (400 ms, as mainnet aims for), block time from the wall clock, so
 *     transactions sent at different moments land in different slots with real-looking block times; several
 *     sent within one slot share it, as on a cluster. Block height equals the slot (no skipped slots).
 *   - blockhashes: a new one every slot, valid for 150 blocks (about a minute); a transaction with an unknown
 *     or expired one is refused by preflight (BlockhashNotFound) or, with skipPreflight, silently dropped.
 *   - the real runtime: fees (5 000 lamports a signature), rent, SPL token rules, duplicate signatures.
 *   - getSignaturesForAddress / getTransaction built from what really executed (litesvm-ledger.ts), and
 *     getBlocks / getBlock (transactionDetails full, accounts, signatures or none) of every complete slot.
 *   - the registry's SPL tokens (USDC on SOLANA) as mints planted at their canonical addresses, the mint
 *     authority and faucet being the local Solana minter (lib/keyring/local-solana-accounts.ts); requestAirdrop is a
 *     real transfer from that faucet, so it shows in the recipient's history.
 *   - the chain's real genesis hash (getGenesisHash), as the anvil nodes run with the chains' real ids.
 *   - state kept across restarts in `<stateDir>/<CHAIN>.litesvm` and `<CHAIN>.json`, saved every few seconds
 *     after a change and when stopped.
 *   - websocket subscriptions on the same port (local-subscriptions.ts): slotSubscribe, signatureSubscribe,
 *     accountSubscribe, so @solana/kit's sendAndConfirmTransactionFactory and wallets confirm as on a cluster.
 * What it does not (docs/development.md, "The local Solana clusters"): leaders, forks and re-orgs (one node,
 * every transaction final at once: processed, confirmed and finalized collapse), priority fees (always none),
 * durable nonces, address lookup tables, Token-2022, logs/program/root subscriptions, vote accounts and rewards.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { serveSubscriptions } from './local-subscriptions';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { getTransferSolInstruction } from '@solana-program/system';
import { TOKEN_PROGRAM_ADDRESS, getMintDecoder, getTokenDecoder } from '@solana-program/token';
import {
  address as toAddress,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type EncodedAccount,
  type KeyPairSigner,
  type MaybeEncodedAccount,
} from '@solana/kit';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { localSolanaMinterAccount } from '@/lib/keyring/local-solana-accounts';
import { formatAmount } from '@/lib/money';
import {
  LAMPORTS_PER_SIGNATURE,
  LiteSvmLedger,
  TOKEN_ACCOUNT_SIZE,
  plantMint,
  rpcError,
  toNumber,
  type SentTransaction,
} from './litesvm-ledger';

/** One slot every 400 ms, as on mainnet. */
const SLOT_MS = 400;
/** Blocks a blockhash stays valid for (MAX_PROCESSING_AGE). */
const BLOCKHASH_VALID_BLOCKS = 150;
const SLOTS_PER_EPOCH = 432_000;
const LAMPORTS_PER_SOL = 1_000_000_000n;
/** The faucet (requestAirdrop, demo funding) is topped up to this on every start: 1 000 000 SOL. */
const FAUCET_LAMPORTS = 1_000_000n * LAMPORTS_PER_SOL;
const SYSTEM_PROGRAM_ADDRESS = '11111111111111111111111111111111' as Address;
/** The real clusters' genesis hashes: wallets tell clusters apart by them. */
const GENESIS_HASHES: Partial<Record<ChainName, string>> = {
  SOLANA: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  SOLANA_DEVNET: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
};
const SAVE_INTERVAL_MS = 5_000;

/** From `slot` on, slot s started at unixMs + (s − slot) × SLOT_MS (one anchor per start of the cluster). */
interface ClockAnchor {
  slot: number;
  unixMs: number;
}

interface SavedLedger {
  sent: SentTransaction[];
  anchors: ClockAnchor[];
}

type RpcResult = { result: unknown } | { error: { code: number; message: string; data?: unknown } };
const invalidParams = (message: string): RpcResult => ({ error: { code: -32602, message } });

export class SolanaCluster {
  readonly ledger: LiteSvmLedger;
  private readonly recentBlockhashes = new Map<string, number>();
  private latestBlockhash: { blockhash: string; slot: number };
  private dirty = false;
  /** Called after the clock moved to a new slot (the websocket subscriptions notify then). */
  readonly onSlot = new Set<(slot: number) => void>();

  private constructor(
    readonly chain: ChainName,
    private readonly svm: LiteSVM,
    private readonly faucet: KeyPairSigner,
    private readonly anchors: ClockAnchor[],
    private readonly stateDir: string | undefined,
    private readonly slotMs: number,
  ) {
    this.ledger = new LiteSvmLedger(svm, { clock: 'external' });
    this.latestBlockhash = { blockhash: svm.latestBlockhash(), slot: 0 };
  }

  /** A fresh cluster, or the one saved in `stateDir`; provisioned (faucet, the registry's mints) either way. */
  static async create(options: { chain: ChainName; stateDir?: string; slotMs?: number }): Promise<SolanaCluster> {
    const { chain, stateDir } = options;
    if (CHAINS[chain].family !== 'solana') throw new Error(`${chain} is not a Solana chain`);
    const files = stateDir ? stateFiles(stateDir, chain) : undefined;
    const restored = files && existsSync(files.svm) && existsSync(files.ledger);
    // LiteSVM checks only its own latest blockhash: the cluster checks the last 150 itself.
    const svm = (restored ? LiteSVM.fromBytes(readFileSync(files.svm)) : new LiteSVM()).withBlockhashCheck(false);
    const saved: SavedLedger = restored ? JSON.parse(readFileSync(files.ledger, 'utf8')) : { sent: [], anchors: [] };
    const clock = svm.getClock();
    // A fresh cluster starts at slot 1; a restored one goes on from the slot it was saved at.
    const startSlot = restored ? toNumber(clock.slot) : 1;
    const anchors = [...saved.anchors, { slot: startSlot, unixMs: Date.now() }];
    const faucet = await createKeyPairSignerFromBytes(localSolanaMinterAccount.secretKey);
    const cluster = new SolanaCluster(chain, svm, faucet, anchors, stateDir, options.slotMs ?? SLOT_MS);
    cluster.ledger.sent.push(...saved.sent);
    cluster.setClock(startSlot);
    cluster.newBlockhash(startSlot);
    cluster.provision();
    return cluster;
  }

  get slot(): number {
    return toNumber(this.svm.getClock().slot);
  }

  /** Moves the clock to the slot the wall clock says: a new blockhash each slot, everything landed is final. */
  tick(now = Date.now()): void {
    const anchor = this.anchors.at(-1)!;
    const target = anchor.slot + Math.floor((now - anchor.unixMs) / this.slotMs);
    if (target <= this.slot) return;
    this.setClock(target);
    this.newBlockhash(target);
    for (const listener of this.onSlot) listener(target);
  }

  private newBlockhash(slot: number): void {
    this.svm.expireBlockhash();
    this.latestBlockhash = { blockhash: this.svm.latestBlockhash(), slot };
    this.recentBlockhashes.set(this.latestBlockhash.blockhash, slot);
    for (const [blockhash, issued] of this.recentBlockhashes) {
      if (issued < slot - 2 * BLOCKHASH_VALID_BLOCKS) this.recentBlockhashes.delete(blockhash);
    }
  }

  /** The block time of a slot (seconds), by the anchor it falls under. */
  blockTime(slot: number): number {
    const anchor = [...this.anchors].reverse().find((candidate) => candidate.slot <= slot) ?? this.anchors[0]!;
    return Math.floor((anchor.unixMs + (slot - anchor.slot) * this.slotMs) / 1000);
  }

  private setClock(slot: number): void {
    const clock = this.svm.getClock();
    clock.slot = BigInt(slot);
    clock.unixTimestamp = BigInt(this.blockTime(slot));
    clock.epoch = BigInt(Math.floor(slot / SLOTS_PER_EPOCH));
    this.svm.setClock(clock);
    // One node: what executed is final at once (commitment levels collapse).
    this.ledger.finalizeThrough(slot);
  }

  private isBlockhashValid(blockhash: string): boolean {
    const issued = this.recentBlockhashes.get(blockhash);
    return issued !== undefined && this.slot <= issued + BLOCKHASH_VALID_BLOCKS;
  }

  /** The faucet topped up, the registry's SPL tokens planted as mints (idempotent: a restored cluster keeps its own). */
  private provision(): void {
    if ((this.svm.getBalance(this.faucet.address) ?? 0n) < FAUCET_LAMPORTS / 10n) {
      this.svm.setAccount({
        address: this.faucet.address,
        data: new Uint8Array(),
        executable: false,
        lamports: lamports(FAUCET_LAMPORTS),
        programAddress: SYSTEM_PROGRAM_ADDRESS,
        space: 0n,
      });
    }
    for (const token of CHAINS[this.chain].tokens.filter((t) => !t.isNative)) {
      if (this.svm.getAccount(toAddress(token.address)).exists) continue;
      plantMint(this.ledger, { address: toAddress(token.address), authority: this.faucet.address, decimals: token.decimals });
    }
    this.dirty = true;
  }

  /** One JSON-RPC request. */
  async handle(request: { id: unknown; method: string; params?: unknown[] }): Promise<unknown> {
    this.tick();
    const params = request.params ?? [];
    let body: RpcResult;
    try {
      body = await this.answer(request.method, params);
    } catch (error) {
      body = invalidParams(`Invalid params: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { jsonrpc: '2.0', id: request.id, ...body };
  }

  private async answer(method: string, params: unknown[]): Promise<RpcResult> {
    const context = { slot: this.slot };
    const config = (params.at(-1) && typeof params.at(-1) === 'object' ? params.at(-1) : {}) as Record<string, unknown>;
    switch (method) {
      case 'getHealth':
        return { result: 'ok' };
      case 'getVersion':
        return { result: { 'solana-core': '2.3.0', 'feature-set': 0 } };
      case 'getGenesisHash':
        return { result: GENESIS_HASHES[this.chain] };
      case 'getIdentity':
        return { result: { identity: this.faucet.address } };
      case 'getSlot':
      case 'getBlockHeight':
        return { result: this.slot };
      case 'getFirstAvailableBlock':
      case 'minimumLedgerSlot':
        return { result: this.anchors[0]!.slot };
      case 'getBlockTime': {
        const slot = Number(params[0]);
        if (!(slot >= this.anchors[0]!.slot && slot <= this.slot))
          return { error: { code: -32004, message: `Block not available for slot ${slot}` } };
        return { result: this.blockTime(slot) };
      }
      case 'getEpochInfo': {
        const slot = this.slot;
        return {
          result: {
            absoluteSlot: slot,
            blockHeight: slot,
            epoch: Math.floor(slot / SLOTS_PER_EPOCH),
            slotIndex: slot % SLOTS_PER_EPOCH,
            slotsInEpoch: SLOTS_PER_EPOCH,
            transactionCount: this.ledger.sent.length,
          },
        };
      }
      case 'getLatestBlockhash':
        return {
          result: {
            context,
            value: {
              blockhash: this.latestBlockhash.blockhash,
              lastValidBlockHeight: this.latestBlockhash.slot + BLOCKHASH_VALID_BLOCKS,
            },
          },
        };
      case 'isBlockhashValid':
        return { result: { context, value: this.isBlockhashValid(String(params[0])) } };
      case 'getFeeForMessage': {
        const message = getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(String(params[0])));
        const fee = LAMPORTS_PER_SIGNATURE * message.header.numSignerAccounts;
        return { result: { context, value: this.isBlockhashValid(message.lifetimeToken) ? fee : null } };
      }
      case 'getRecentPrioritizationFees':
        return { result: [] };
      case 'sendTransaction':
        return this.sendTransaction(String(params[0]), config);
      case 'simulateTransaction':
        return this.simulateTransaction(String(params[0]), config);
      case 'requestAirdrop':
        return this.airdrop(String(params[0]), Number(params[1]));
      case 'getAccountInfo':
        return { result: { context, value: this.accountJson(String(params[0]), config.encoding) } };
      case 'getMultipleAccounts':
        return {
          result: { context, value: (params[0] as string[]).map((address) => this.accountJson(address, config.encoding)) },
        };
      case 'getTokenAccountsByOwner':
        return this.tokenAccountsByOwner(String(params[0]), params[1] as { mint?: string; programId?: string }, config.encoding);
      case 'getTokenAccountBalance': {
        const token = this.decodeToken(this.svm.getAccount(toAddress(String(params[0]))));
        if (!token) return invalidParams('Invalid param: not a Token account');
        return { result: { context, value: this.tokenAmount(token.amount, token.mint) } };
      }
      case 'getTokenSupply': {
        const account = this.svm.getAccount(toAddress(String(params[0])));
        if (!account.exists || account.programAddress !== TOKEN_PROGRAM_ADDRESS || account.data.length === TOKEN_ACCOUNT_SIZE)
          return invalidParams('Invalid param: not a Token mint');
        const mint = getMintDecoder().decode(account.data);
        return { result: { context, value: amountJson(mint.supply, mint.decimals) } };
      }
      case 'getBlocks':
        return this.blocks(Number(params[0]), params[1] === undefined || typeof params[1] === 'object' ? undefined : Number(params[1]));
      case 'getBlock':
        return this.block(Number(params[0]), config);
      case 'getTransaction':
      case 'getSignatureStatuses':
      case 'getSignaturesForAddress':
      case 'getBalance':
      case 'getMinimumBalanceForRentExemption':
        return this.viaLedger(method, params);
      default:
        return {
          error: { code: -32601, message: `Method not found: ${method} (the local Solana cluster serves what docs/development.md lists)` },
        };
    }
  }

  /**
   * getBlocks: the slots with a block in [start, end] — every slot here (none is skipped), up to the last
   * complete one: the current slot is still being filled, as a leader's block in progress is not confirmed.
   */
  private blocks(start: number, end: number | undefined): RpcResult {
    if (!Number.isSafeInteger(start) || start < 0 || (end !== undefined && !Number.isSafeInteger(end)))
      return invalidParams('Invalid params: slots must be integers');
    const last = Math.min(end ?? Number.MAX_SAFE_INTEGER, this.slot - 1);
    if (last - start > 500_000) return invalidParams('Slot range too large; max 500000');
    const slots: number[] = [];
    for (let slot = Math.max(start, this.anchors[0]!.slot); slot <= last; slot++) slots.push(slot);
    return { result: slots };
  }

  /**
   * getBlock of a complete slot (before the current one), as a node answers it: encoding 'json', and
   * transactionDetails 'full' (default), 'accounts' (account keys with signer/writable/source, the meta's
   * balances and token balances only), 'signatures' or 'none'; rewards always empty. A version 0 transaction
   * without maxSupportedTransactionVersion is refused (-32015), as a node does.
   */
  private block(slot: number, config: Record<string, unknown>): RpcResult {
    if (!Number.isSafeInteger(slot) || slot < this.anchors[0]!.slot || slot >= this.slot)
      return { error: { code: -32004, message: `Block not available for slot ${slot}` } };
    if (config.encoding !== undefined && config.encoding !== 'json')
      return invalidParams('Invalid params: the local cluster serves getBlock with encoding "json" only');
    const details = (config.transactionDetails as string | undefined) ?? 'full';
    const sent = this.ledger.sent.filter((tx) => tx.view.slot === slot);
    if (config.maxSupportedTransactionVersion === undefined && sent.some((tx) => tx.view.version !== 'legacy'))
      return { error: { code: -32015, message: 'Transaction version (0) is not supported by the requesting client.' } };
    const block: Record<string, unknown> = {
      blockHeight: slot,
      blockTime: this.blockTime(slot),
      blockhash: this.blockhashOf(slot),
      parentSlot: slot - 1,
      previousBlockhash: this.blockhashOf(slot - 1),
    };
    if (details === 'full') {
      block.transactions = sent.map(({ view }) => ({ transaction: view.transaction, meta: view.meta, version: view.version }));
    } else if (details === 'accounts') {
      block.transactions = sent.map(({ view }) => {
        const { accountKeys, header } = view.transaction.message;
        const signers = header.numRequiredSignatures;
        const keys = accountKeys.map((pubkey, index) => ({
          pubkey,
          signer: index < signers,
          source: 'transaction',
          writable:
            index < signers
              ? index < signers - header.numReadonlySignedAccounts
              : index < accountKeys.length - header.numReadonlyUnsignedAccounts,
        }));
        const { err, status, fee, preBalances, postBalances, preTokenBalances, postTokenBalances } = view.meta;
        return {
          transaction: { accountKeys: keys, signatures: view.transaction.signatures },
          meta: { err, status, fee, preBalances, postBalances, preTokenBalances, postTokenBalances },
          version: view.version,
        };
      });
    } else if (details === 'signatures') {
      block.signatures = sent.map((tx) => tx.signature);
    } else if (details !== 'none') {
      return invalidParams(`Invalid params: unknown transactionDetails ${details}`);
    }
    if (config.rewards !== false) block.rewards = [];
    return { result: block };
  }

  /** The blockhash the slot issued while it is recent, else a stand-in derived from the slot (the cluster keeps no older ones). */
  private blockhashOf(slot: number): string {
    for (const [blockhash, issued] of this.recentBlockhashes) if (issued === slot) return blockhash;
    return getBase58Decoder().decode(createHash('sha256').update(`${this.chain}:${slot}`).digest());
  }

  private async sendTransaction(wire: string, config: Record<string, unknown>): Promise<RpcResult> {
    // The RPC's default encoding is base58 (deprecated, but some wallets still send it).
    const base64 = config.encoding === 'base64' ? wire : getBase64Decoder().decode(getBase58Encoder().encode(wire));
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (!this.isBlockhashValid(message.lifetimeToken)) {
      if (config.skipPreflight) {
        // Accepted and dropped: no leader takes a transaction with an expired blockhash.
        return { result: getSignatureFromTransaction(transaction) };
      }
      return {
        error: {
          code: -32002,
          message: 'Transaction simulation failed: Blockhash not found',
          data: { err: 'BlockhashNotFound', logs: [], accounts: null, unitsConsumed: 0, returnData: null },
        },
      };
    }
    const sent = await this.viaLedger('sendTransaction', [base64, { ...config, encoding: 'base64' }]);
    this.ledger.finalizeThrough(this.slot);
    this.dirty = true;
    return sent;
  }

  /** What litesvm-ledger.ts serves itself: the transaction index, statuses, balances. */
  private async viaLedger(method: string, params: unknown[]): Promise<RpcResult> {
    const response = await this.ledger.transport<RpcResult>({ payload: { id: 0, method, params } });
    return 'error' in response ? { error: response.error } : { result: response.result };
  }

  private simulateTransaction(wire: string, config: Record<string, unknown>): RpcResult {
    const base64 = config.encoding === 'base64' ? wire : getBase64Decoder().decode(getBase58Encoder().encode(wire));
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    const replace = config.replaceRecentBlockhash === true;
    const base = {
      accounts: null,
      returnData: null,
      replacementBlockhash: replace
        ? { blockhash: this.latestBlockhash.blockhash, lastValidBlockHeight: this.latestBlockhash.slot + BLOCKHASH_VALID_BLOCKS }
        : null,
    };
    const context = { slot: this.slot };
    if (!replace && !this.isBlockhashValid(message.lifetimeToken)) {
      return { result: { context, value: { ...base, err: 'BlockhashNotFound', logs: [], unitsConsumed: 0 } } };
    }
    // As a node: signatures are checked only when asked (wallets simulate before signing).
    this.svm.withSigverify(config.sigVerify === true);
    try {
      const simulated = this.svm.simulateTransaction(transaction);
      if (simulated instanceof FailedTransactionMetadata) {
        const meta = simulated.meta();
        const value = { ...base, err: rpcError(simulated.err()), logs: meta.logs(), unitsConsumed: toNumber(meta.computeUnitsConsumed()) };
        return { result: { context, value } };
      }
      const meta = simulated.meta();
      return {
        result: { context, value: { ...base, err: null, logs: meta.logs(), unitsConsumed: toNumber(meta.computeUnitsConsumed()) } },
      };
    } finally {
      this.svm.withSigverify(true);
    }
  }

  /** A real transfer from the faucet: it shows in the recipient's history, as an airdrop on devnet does. */
  private async airdrop(recipient: string, amount: number): Promise<RpcResult> {
    if (!Number.isSafeInteger(amount) || amount <= 0) return invalidParams('Invalid param: lamports must be a positive integer');
    const transaction = await pipe(
      createTransactionMessage({ version: 0 }),
      (message) => setTransactionMessageFeePayerSigner(this.faucet, message),
      (message) =>
        setTransactionMessageLifetimeUsingBlockhash(
          {
            blockhash: this.latestBlockhash.blockhash as Blockhash,
            lastValidBlockHeight: BigInt(this.latestBlockhash.slot + BLOCKHASH_VALID_BLOCKS),
          },
          message,
        ),
      (message) =>
        appendTransactionMessageInstructions(
          [getTransferSolInstruction({ source: this.faucet, destination: toAddress(recipient), amount: lamports(BigInt(amount)) })],
          message,
        ),
      (message) => signTransactionMessageWithSigners(message),
    );
    const sent = this.ledger.send(transaction);
    this.ledger.finalizeThrough(this.slot);
    this.dirty = true;
    if (!sent.isSuccess) return { error: { code: -32603, message: `Airdrop failed: ${JSON.stringify(sent.view.meta.err)}` } };
    return { result: sent.signature };
  }

  /** An account as getAccountInfo's value (null when it does not exist). */
  accountJson(address: string, encoding: unknown): unknown {
    const account = this.svm.getAccount(toAddress(address));
    if (!account.exists) return null;
    return {
      data: this.dataJson(account, encoding),
      executable: account.executable,
      lamports: toNumber(account.lamports),
      owner: account.programAddress,
      rentEpoch: 0,
      space: account.data.length,
    };
  }

  /** base64, base58, or jsonParsed for SPL Token accounts and mints (other accounts fall back to base64, as a node does). */
  private dataJson(account: EncodedAccount, encoding: unknown): unknown {
    if (encoding === 'jsonParsed' && account.programAddress === TOKEN_PROGRAM_ADDRESS) {
      const token = this.decodeToken(account);
      if (token) {
        const info = {
          isNative: token.isNative.__option === 'Some',
          mint: token.mint,
          owner: token.owner,
          state: ['uninitialized', 'initialized', 'frozen'][token.state] ?? 'initialized',
          tokenAmount: this.tokenAmount(token.amount, token.mint),
        };
        return { program: 'spl-token', parsed: { info, type: 'account' }, space: account.data.length };
      }
      const mint = getMintDecoder().decode(account.data);
      const info = {
        decimals: mint.decimals,
        freezeAuthority: mint.freezeAuthority.__option === 'Some' ? mint.freezeAuthority.value : null,
        isInitialized: mint.isInitialized,
        mintAuthority: mint.mintAuthority.__option === 'Some' ? mint.mintAuthority.value : null,
        supply: mint.supply.toString(),
      };
      return { program: 'spl-token', parsed: { info, type: 'mint' }, space: account.data.length };
    }
    if (encoding === 'base58' || encoding === undefined) return [getBase58Decoder().decode(account.data), 'base58'];
    return [getBase64Decoder().decode(account.data), 'base64'];
  }

  private tokenAccountsByOwner(owner: string, filter: { mint?: string; programId?: string }, encoding: unknown): RpcResult {
    if (filter.programId !== undefined && filter.programId !== TOKEN_PROGRAM_ADDRESS) {
      // Token-2022 and other token programs are not loaded: nobody holds their tokens here.
      return { result: { context: { slot: this.slot }, value: [] } };
    }
    const value = this.svm
      .getProgramAccounts(TOKEN_PROGRAM_ADDRESS)
      .filter((account) => {
        const token = this.decodeToken(account);
        return token && token.owner === owner && (filter.mint === undefined || token.mint === filter.mint);
      })
      .map((account) => ({ pubkey: account.address, account: this.accountJson(account.address, encoding) }));
    return { result: { context: { slot: this.slot }, value } };
  }

  private decodeToken(maybe: MaybeEncodedAccount | EncodedAccount) {
    if ('exists' in maybe && !maybe.exists) return undefined;
    const account = maybe as EncodedAccount;
    if (account.programAddress !== TOKEN_PROGRAM_ADDRESS || account.data.length !== TOKEN_ACCOUNT_SIZE) return undefined;
    return getTokenDecoder().decode(account.data);
  }

  private tokenAmount(amount: bigint, mint: Address) {
    const account = this.svm.getAccount(mint);
    const { decimals } = account.exists ? getMintDecoder().decode(account.data) : { decimals: 0 };
    return amountJson(amount, decimals);
  }

  /** Writes the state when something changed since the last save (or always, with `force`). */
  save(force = false): void {
    if (!this.stateDir || (!this.dirty && !force)) return;
    const files = stateFiles(this.stateDir, this.chain);
    mkdirSync(this.stateDir, { recursive: true });
    const saved: SavedLedger = { sent: this.ledger.sent, anchors: this.anchors };
    writeAtomically(files.svm, this.svm.toBytes());
    writeAtomically(files.ledger, JSON.stringify(saved));
    this.dirty = false;
  }
}

function amountJson(amount: bigint, decimals: number) {
  const uiAmountString = formatAmount(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

function stateFiles(stateDir: string, chain: ChainName) {
  return { svm: path.join(stateDir, `${chain}.litesvm`), ledger: path.join(stateDir, `${chain}.json`) };
}

function writeAtomically(file: string, data: Uint8Array | string): void {
  writeFileSync(`${file}.tmp`, data);
  renameSync(`${file}.tmp`, file);
}

export interface ServedSolanaCluster {
  cluster: SolanaCluster;
  url: string;
  stop(): Promise<void>;
}

/** Serves a cluster over HTTP JSON-RPC on 127.0.0.1 (`port` 0: any free port), its clock ticking. */
export async function serveSolanaCluster(options: {
  chain: ChainName;
  port?: number;
  stateDir?: string;
  slotMs?: number;
}): Promise<ServedSolanaCluster> {
  const cluster = await SolanaCluster.create(options);
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      if (req.method !== 'POST') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`Local Solana cluster ${cluster.chain} (LiteSVM), JSON-RPC over POST`);
        return;
      }
      try {
        const parsed = JSON.parse(body) as
          { id: unknown; method: string; params?: unknown[] } | { id: unknown; method: string; params?: unknown[] }[];
        // One request at a time, in order: LiteSVM is synchronous, and a batch answers in its order.
        const result = Array.isArray(parsed)
          ? await sequentially(parsed, (request) => cluster.handle(request))
          : await cluster.handle(parsed);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      } catch (error) {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${String(error)}` } }));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const subscriptions = serveSubscriptions(server, cluster);
  const ticker = setInterval(() => cluster.tick(), Math.max(50, Math.floor((options.slotMs ?? SLOT_MS) / 2)));
  const saver = setInterval(() => cluster.save(), SAVE_INTERVAL_MS);
  const { port } = server.address() as AddressInfo;
  return {
    cluster,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      clearInterval(ticker);
      clearInterval(saver);
      subscriptions.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      cluster.save(true);
    },
  };
}

async function sequentially<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await fn(item));
  return results;
}
