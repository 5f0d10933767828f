/**
 * Step 3, in the background: every open transfer brought up to date with its chain.
 *
 *  - signed: sent (after its gas top-up is in a block). Refused as underpriced → signed again at its
 *    nonce with current fees. Refused definitely (insufficient funds, invalid, an answer we do not know)
 *    TRANSFER_CANCEL_AFTER_FAILURES times in a row → its nonce is filled with a 0-value self-transfer, so
 *    the wallet never wedges behind a gap. No answer from a node (timeouts, connection errors, 429, 5xx,
 *    -32005, -32603: broadcast-transfer.ts) is no refusal: sent again after an exponential back-off
 *    (3 s doubling, at most SEND_BACKOFF_MAX_MS), never canceled for it, and logged at error once it has
 *    lasted TRANSFER_SEND_BUDGET_MINUTES (N10). A gas top-up the tank cannot pay (insufficient funds)
 *    waits the same way for an operator to refill the tank, logged at error, never canceled.
 *  - broadcast: a receipt of any of its attempts → included. Not known to the node (dropped) → the same
 *    bytes again. Unmined for TRANSFER_STUCK_AFTER_SECONDS under the base fee → a fee bump (EIP-1559
 *    replacement: both fees at least +12.5%).
 *  - included: its block left the chain → broadcast again; at the chain's depth → confirmed, or failed
 *    if it reverted (or was our cancel). A relayed transfer (ADR 0035: the gas tank sends the account's
 *    UserOperation) is confirmed only if the EntryPoint's UserOperationEvent says its call succeeded; its
 *    nonce, fee bumps and cancels are the relayer's. A batch of relayed transfers (rows at one relayer nonce,
 *    record-relayed-batch.ts) is one transaction: each row follows it and reads its own UserOperationEvent,
 *    a fee bump or cancel replaces it for every row at once, and each row keeps an equal share of its fee.
 *    A pull (the gas tank's executeBatch of transferFrom on itself, ADR 0035 "Pull sweeps") is such a batch too;
 *    each row is confirmed only on its token's Transfer event, and a cancel of a pull that carried the tank's own
 *    authorization carries it again (the nonce after it was given to the tank's next transaction).
 *  - failed, otherwise, only when its nonce is used at the chain's depth by a transaction that is none of
 *    its attempts, seen on two passes (one RPC answer "no receipt" is not proof).
 *  - confirmed, re-opened to included by a re-organisation deeper than the depth
 *    (./reopen-confirmed-transfers.ts): followed as above; confirmed again without its purpose's hook
 *    (it ran once), or failed as a reversal: `onReversed` and an error log (docs/adr/0036).
 *
 * Processes may run this at once: each takes a lease on a batch (next_check_at moves forward) and every
 * status change is a conditional UPDATE, so a change happens once. Terminal changes run the purpose's
 * hook (payment.failed, swap and refund outcomes) in the same database transaction.
 */
import { crashPoint } from '@/lib/crash-points';
import { and, asc, eq, inArray, lte, notInArray } from 'drizzle-orm';
import {
  getAddress,
  keccak256,
  parseTransaction,
  type Address,
  type Hex,
  type PublicClient,
  type SignedAuthorization,
  type TransactionReceipt,
} from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { requiredConfirmations } from '@/lib/chains/required-confirmations';
import { CHAINS, nativeToken, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { outboundTransferAttempts, outboundTransfers, type OutboundTransferAttemptRow, type OutboundTransferRow } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { isSolanaFeeRecord, reconcileSolanaTransfer } from '@/lib/transactions/solana/solana-transfers';
import { resolveSolanaRpc, type SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { userOperationOutcome } from '@/lib/smart-accounts/user-operation-outcome';
import { isPullCall, pullMoved } from '@/lib/smart-accounts/build-pull-call';
import { broadcastTransfer, errorMessage, sendCurrentAttempt } from './broadcast-transfer';
import { gasTankAccount } from './gas-tank';
import { prepareTransfer } from './prepare-transfer';
import { recordTransfer } from './record-transfer';
import { signerForAddress } from './signer-for-address';
import { transferMachine, type AttemptKind, type TransferStatus } from './state';
import { authorizeTransfer } from './transfer-policy';
import { outcomeHookFor, type TransferOutcome, type TransferOutcomeHooks, type TransferReversedHook } from './transfer-outcome';

export interface ReconcileOptions extends SolanaRpcOptions {
  /** What each purpose does when its transfer ends (lib/jobs/transfer-outcome-hooks.ts has them all). */
  hooks: Partial<TransferOutcomeHooks>;
  /** A transfer confirmed once, re-opened by a deep re-organisation, ended failed (lib/jobs/transfer-outcome-hooks.ts). */
  onReversed?: TransferReversedHook;
  batch?: number;
  /** Every open transfer, due or not (tests, the admin CLI). */
  ignoreSchedule?: boolean;
  now?: Date;
}

const LEASE_MS = 30_000;
const NEXT_CHECK_MS: Record<'signed' | 'broadcast' | 'included', number> = { signed: 3_000, broadcast: 3_000, included: 2_000 };
/** The longest wait between sends that got no answer from a node (the back-off doubles up to it). */
export const SEND_BACKOFF_MAX_MS = 5 * 60_000;
/** EIP-1559 replacement: a node accepts a transaction at a used nonce only if both fees rise by at least 10%. */
const BUMP_NUMERATOR = 1125n;
const BUMP_DENOMINATOR = 1000n;

/** One pass over the transfers due now. Returns how many changed status. */
export async function reconcileTransfers(options: ReconcileOptions): Promise<number> {
  const due = await leaseDueTransfers(options.batch ?? 100, options.ignoreSchedule ? new Date('9999-12-31T00:00:00Z') : new Date());
  let changed = 0;
  const heads = new Map<ChainName, bigint | null>();
  for (const transfer of due) {
    if (isSolanaFeeRecord(transfer)) continue; // moves with its transaction's row
    try {
      const after = await reconcileTransfer(transfer, { ...options, heads });
      if (after !== transfer.status) changed++;
    } catch (error) {
      log.warn('transfer reconcile failed; retried on the next pass', { transferId: transfer.id, error: errorMessage(error) });
    }
  }
  return changed;
}

/** Open transfers due now, leased for LEASE_MS so other processes pass them by. */
async function leaseDueTransfers(batch: number, dueBy: Date): Promise<OutboundTransferRow[]> {
  return getDb().transaction(async (tx) => {
    const due = await tx
      .select({ id: outboundTransfers.id })
      .from(outboundTransfers)
      .where(and(notInArray(outboundTransfers.status, ['confirmed', 'failed']), lte(outboundTransfers.nextCheckAt, dueBy)))
      .orderBy(asc(outboundTransfers.nextCheckAt))
      .limit(batch)
      .for('update', { skipLocked: true });
    if (!due.length) return [];
    return tx
      .update(outboundTransfers)
      .set({ nextCheckAt: new Date(Date.now() + LEASE_MS) })
      .where(
        inArray(
          outboundTransfers.id,
          due.map((row) => row.id),
        ),
      )
      .returning();
  });
}

/** Brings one transfer up to date. Returns its status afterwards. */
export async function reconcileTransfer(
  transfer: OutboundTransferRow,
  options: ReconcileOptions & { heads?: Map<ChainName, bigint | null> },
): Promise<TransferStatus> {
  const chain = transfer.chain as ChainName;
  if (CHAINS[chain].family === 'solana') {
    const rpc = resolveSolanaRpc(chain, options);
    return rpc ? reconcileSolanaTransfer(rpc, transfer, options.hooks) : transfer.status;
  }
  const client = publicClientFor(chain);
  if (!client || (transfer.status !== 'signed' && transfer.status !== 'broadcast' && transfer.status !== 'included'))
    return transfer.status;
  const head = await chainHead(client, chain, options.heads);
  if (head === null) return transfer.status;
  const step = new Reconciler(client, transfer, head, options);
  const status = await step.run();
  if (status === 'signed' || status === 'broadcast' || status === 'included') {
    await getDb()
      .update(outboundTransfers)
      .set({ nextCheckAt: new Date(Date.now() + (step.retryAfterMs ?? NEXT_CHECK_MS[status])) })
      .where(eq(outboundTransfers.id, transfer.id));
  }
  return status;
}

async function chainHead(client: PublicClient, chain: ChainName, heads?: Map<ChainName, bigint | null>): Promise<bigint | null> {
  if (heads?.has(chain)) return heads.get(chain)!;
  const head = await client.getBlockNumber({ cacheTime: 0 }).catch(() => null);
  heads?.set(chain, head);
  return head;
}

/**
 * The wait before sending again after `failures` sends in a row got no answer from a node: 3 s, 6 s,
 * 12 s, … up to SEND_BACKOFF_MAX_MS, with ±20% jitter so transfers held up together do not retry in step.
 */
export function sendBackoffMs(failures: number, random: () => number = Math.random): number {
  const base = Math.min(SEND_BACKOFF_MAX_MS, NEXT_CHECK_MS.signed * 2 ** Math.min(Math.max(failures - 1, 0), 20));
  return Math.round(base * (0.8 + 0.4 * random()));
}

class Reconciler {
  private readonly chain: ChainName;
  private readonly depth: bigint;
  /** Set when the next look should wait longer than usual (back-off after transport errors). */
  retryAfterMs: number | undefined;

  constructor(
    private readonly client: PublicClient,
    private transfer: OutboundTransferRow,
    private readonly head: bigint,
    private readonly options: ReconcileOptions,
  ) {
    this.chain = transfer.chain as ChainName;
    this.depth = BigInt(requiredConfirmations(this.chain));
  }

  /** Who signs and sends the transaction, whose nonce it takes: the relayer of a relayed transfer (ADR 0035), else its sender. */
  private get sender(): Address {
    return (this.transfer.relayerAddress ?? this.transfer.fromAddress) as Address;
  }

  async run(): Promise<TransferStatus> {
    if (this.transfer.status === 'included') return this.followIncluded();
    // Read the nonce at depth BEFORE looking for receipts: an attempt mined in between is then found.
    const nonceAtDepth = await this.nonceAtDepth();
    const attempts = await this.attempts();
    for (const attempt of attempts) {
      const receipt = await this.client.getTransactionReceipt({ hash: attempt.txHash as Hex }).catch(() => null);
      if (receipt) return this.markIncluded(attempt, receipt);
    }
    if (nonceAtDepth !== null && nonceAtDepth > this.transfer.nonce) {
      // "No receipt" is no proof (a flaky or lagging node answers null): find the transaction that used the nonce.
      const user = await this.transactionThatUsedNonce();
      if (user === undefined) return this.transfer.status; // the node could not say: look again later
      const ours = attempts.find((attempt) => attempt.txHash.toLowerCase() === user.toLowerCase());
      if (ours) {
        const receipt = await this.client.getTransactionReceipt({ hash: ours.txHash as Hex }).catch(() => null);
        return receipt ? this.markIncluded(ours, receipt) : this.transfer.status;
      }
      return this.nonceTakenByAnother();
    }
    if (this.transfer.status === 'signed') return this.sendSigned(attempts);
    return this.followBroadcast(attempts);
  }

  private async attempts(): Promise<OutboundTransferAttemptRow[]> {
    const rows = await getDb()
      .select()
      .from(outboundTransferAttempts)
      .where(eq(outboundTransferAttempts.transferId, this.transfer.id))
      .orderBy(asc(outboundTransferAttempts.createdAt));
    // Rows recorded before attempts existed still have their one transaction on the transfer itself.
    if (rows.length) return rows;
    return [
      {
        id: 'legacy',
        transferId: this.transfer.id,
        chain: this.transfer.chain,
        kind: 'original',
        txHash: this.transfer.txHash,
        rawTransaction: this.transfer.rawTransaction,
        maxFeePerGas: this.transfer.maxFeePerGas ?? 0n,
        maxPriorityFeePerGas: this.transfer.maxPriorityFeePerGas ?? 0n,
        createdAt: this.transfer.createdAt,
      },
    ];
  }

  /** How many transactions of the sender are in blocks at the chain's depth (null when the node cannot say). */
  private async nonceAtDepth(): Promise<number | null> {
    const block = this.head - this.depth + 1n;
    if (block < 0n) return null;
    return this.client.getTransactionCount({ address: this.sender, blockNumber: block }).catch(() => null);
  }

  private async markIncluded(attempt: OutboundTransferAttemptRow, receipt: TransactionReceipt): Promise<TransferStatus> {
    await this.update(['signed', 'broadcast'], 'included', {
      txHash: attempt.txHash,
      rawTransaction: attempt.rawTransaction,
      includedBlockNumber: receipt.blockNumber,
      includedBlockHash: receipt.blockHash,
      gasFeeBaseUnits: await this.feeShare(receipt),
      nonceTakenSeenAt: null,
      error: attempt.kind === 'cancel' ? 'canceled: its nonce was filled by a 0-value self-transfer' : null,
    });
    this.transfer = {
      ...this.transfer,
      status: 'included',
      txHash: attempt.txHash,
      includedBlockNumber: receipt.blockNumber,
      includedBlockHash: receipt.blockHash,
    };
    return this.followIncluded(receipt, attempt.kind);
  }

  private async followIncluded(known?: TransactionReceipt, kind?: AttemptKind): Promise<TransferStatus> {
    const receipt = known ?? (await this.client.getTransactionReceipt({ hash: this.transfer.txHash as Hex }).catch(() => null));
    const canonical = receipt && receipt.blockHash === this.transfer.includedBlockHash;
    if (!receipt) {
      // A missing receipt alone is no re-org: believe it only when the recorded block is no longer the chain's.
      const recorded = await this.client.getBlock({ blockNumber: this.transfer.includedBlockNumber! }).catch(() => null);
      if (!recorded || recorded.hash === this.transfer.includedBlockHash) return 'included';
    }
    if (!canonical) {
      // Its block left the chain (re-org). The transaction is normally back in the pool; send it again anyway.
      const block = await this.client.getBlock({ blockNumber: this.transfer.includedBlockNumber! }).catch(() => null);
      if (receipt && block?.hash === receipt.blockHash) {
        // Re-included in another canonical block already.
        await this.update(['included'], 'included', { includedBlockNumber: receipt.blockNumber, includedBlockHash: receipt.blockHash });
        return 'included';
      }
      log.warn('an included transfer left the chain (re-org); sending it again', { transferId: this.transfer.id, chain: this.chain });
      await this.update(['included'], 'broadcast', { includedBlockNumber: null, includedBlockHash: null, gasFeeBaseUnits: null });
      await this.client.sendRawTransaction({ serializedTransaction: this.transfer.rawTransaction as Hex }).catch(() => undefined);
      return 'broadcast';
    }
    if (this.head - receipt.blockNumber + 1n < this.depth) return 'included';
    const isCancel = kind === 'cancel' || (await this.isCancelAttempt(receipt.transactionHash));
    // handleOps succeeds when the account's call reverts: a relayed transfer moved value only if its UserOperation did.
    // A pull (the tank's executeBatch of transferFrom, ADR 0035) moved value only if its token says so.
    const moved =
      receipt.status === 'success' &&
      (this.transfer.relayerAddress === null ||
        (isPullCall(this.transfer)
          ? pullMoved(receipt, this.transfer)
          : userOperationOutcome(receipt, this.transfer.fromAddress) === 'success'));
    if (moved && !isCancel) {
      await this.finish('confirmed', { receipt });
      return 'confirmed';
    }
    const reason = isCancel
      ? (this.transfer.error ?? 'canceled: its nonce was filled by a 0-value self-transfer')
      : receipt.status === 'success'
        ? isPullCall(this.transfer)
          ? "the gas tank's pull moved none of this transfer's tokens; nothing was moved but the relayer's fee"
          : "its smart-account call reverted inside handleOps; nothing was moved but the relayer's fee"
        : 'reverted on chain; nothing was moved but the fee';
    await this.finish('failed', { receipt, reason });
    return 'failed';
  }

  private async isCancelAttempt(hash: string): Promise<boolean> {
    const [attempt] = await getDb()
      .select({ kind: outboundTransferAttempts.kind })
      .from(outboundTransferAttempts)
      .where(and(eq(outboundTransferAttempts.chain, this.chain), eq(outboundTransferAttempts.txHash, hash)));
    return attempt?.kind === 'cancel';
  }

  /**
   * This transfer's part of the fee its transaction cost: all of it, except in a batch of relayed transfers
   * (ADR 0035, "Batched sweeps": the rows at one relayer nonce), where each row takes an equal share and the
   * first (by id) the remainder, so the rows add up to the fee the relayer paid, once.
   */
  private async feeShare(receipt: TransactionReceipt): Promise<bigint> {
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    const siblings = await this.batchSiblingIds();
    if (siblings.length <= 1) return fee;
    const share = fee / BigInt(siblings.length);
    return siblings[0] === this.transfer.id ? share + (fee % BigInt(siblings.length)) : share;
  }

  /** The ids of the transfers sharing this one's transaction (a relayed batch), by id; just its own otherwise. */
  private async batchSiblingIds(): Promise<string[]> {
    const t = this.transfer;
    if (t.relayerAddress === null) return [t.id];
    const rows = await getDb()
      .select({ id: outboundTransfers.id })
      .from(outboundTransfers)
      .where(
        and(
          eq(outboundTransfers.chain, t.chain),
          eq(outboundTransfers.relayerAddress, t.relayerAddress),
          eq(outboundTransfers.nonce, t.nonce),
        ),
      )
      .orderBy(asc(outboundTransfers.id));
    return rows.map((row) => row.id);
  }

  /**
   * The hash of the transaction that used this transfer's nonce, found in its block (undefined when the
   * node cannot answer). The block is where the sender's transaction count passes the nonce: searched
   * back from the depth block by doubling steps (recent state only, no archive node needed), then halved.
   */
  private async transactionThatUsedNonce(): Promise<Hex | undefined> {
    const sender = this.sender;
    const nonce = this.transfer.nonce;
    const countAt = (blockNumber: bigint) => this.client.getTransactionCount({ address: sender, blockNumber }).catch(() => null);
    let high = this.head - this.depth + 1n; // count > nonce here
    let low = -1n; // count <= nonce here, once found
    for (let step = 1n; low < 0n; step *= 2n) {
      const candidate = high - step < 0n ? 0n : high - step;
      const count = await countAt(candidate);
      if (count === null) return undefined;
      if (count <= nonce) low = candidate;
      else if (candidate === 0n)
        return undefined; // used before the chain began: not a state this code reaches
      else high = candidate;
    }
    while (high - low > 1n) {
      const middle = (low + high) / 2n;
      const count = await countAt(middle);
      if (count === null) return undefined;
      if (count <= nonce) low = middle;
      else high = middle;
    }
    const block = await this.client.getBlock({ blockNumber: high, includeTransactions: true }).catch(() => null);
    const used = block?.transactions.find((tx) => tx.from.toLowerCase() === sender.toLowerCase() && tx.nonce === nonce);
    return used?.hash;
  }

  /** Its nonce is used at depth by a transaction that is not one of ours: failed, once a second pass agrees. */
  private async nonceTakenByAnother(): Promise<TransferStatus> {
    if (!this.transfer.nonceTakenSeenAt) {
      await this.update([this.transfer.status], this.transfer.status, { nonceTakenSeenAt: new Date() });
      return this.transfer.status;
    }
    await this.finish('failed', { reason: 'its nonce was used by another transaction; nothing was moved' });
    return 'failed';
  }

  private async sendSigned(attempts: OutboundTransferAttemptRow[]): Promise<TransferStatus> {
    const outcome = await broadcastTransfer(this.transfer.id);
    if (outcome.kind === 'sent') return 'broadcast';
    if (outcome.kind === 'transport_error') return this.backOffAfterTransportError(outcome);
    if (outcome.kind !== 'refused') return this.transfer.status;
    if (outcome.reason === 'underpriced') {
      await this.signAgain(attempts, 'fee_bump');
      return 'signed';
    }
    if (outcome.reason === 'nonce_too_low') return 'signed'; // Its nonce is used: a receipt or the depth check settles it.
    if (outcome.reason === 'insufficient_funds' && this.transfer.purpose === 'gas_topup') return this.waitForTankFunds(outcome.message);
    if (this.transfer.broadcastFailures + 1 >= env().TRANSFER_CANCEL_AFTER_FAILURES && !attempts.some((a) => a.kind === 'cancel')) {
      await this.signAgain(attempts, 'cancel');
    }
    return 'signed';
  }

  /**
   * The gas tank cannot pay its own top-up: an operator refills it. Never canceled for this — a canceled
   * top-up leaves the spend behind it without gas, refused and canceled in turn (a refund or withdrawal
   * lost to the caller). Backed off and alerted at each try until the tank is funded.
   */
  private waitForTankFunds(message: string): TransferStatus {
    this.retryAfterMs = sendBackoffMs(this.transfer.broadcastFailures + 1);
    log.error('gas tank cannot pay a top-up; fund it (npm run admin -- gas-tank status); the spends behind it wait', {
      transferId: this.transfer.id,
      chain: this.chain,
      tank: this.transfer.fromAddress,
      needed: this.transfer.amountBaseUnits.toString(),
      error: message,
    });
    return 'signed';
  }

  /**
   * No node answered (N10): not a refusal, so never a step toward a cancel. Wait longer each time; past
   * TRANSFER_SEND_BUDGET_MINUTES, say so at error level (an operator looks at the RPC) and keep trying:
   * the signed bytes stay valid, and canceling would need the same unreachable node anyway.
   */
  private backOffAfterTransportError(outcome: { failures: number; failingSince: Date; message: string }): TransferStatus {
    this.retryAfterMs = sendBackoffMs(outcome.failures);
    const failingForMs = (this.options.now ?? new Date()).getTime() - outcome.failingSince.getTime();
    if (failingForMs >= env().TRANSFER_SEND_BUDGET_MINUTES * 60_000) {
      log.error('transfer not accepted by any node within the send budget; still retrying, never canceled for this', {
        transferId: this.transfer.id,
        purpose: this.transfer.purpose,
        chain: this.chain,
        failures: outcome.failures,
        failingForMinutes: Math.floor(failingForMs / 60_000),
        error: outcome.message,
      });
    }
    return 'signed';
  }

  private async followBroadcast(attempts: OutboundTransferAttemptRow[]): Promise<TransferStatus> {
    const known = await this.client.getTransaction({ hash: this.transfer.txHash as Hex }).catch(() => null);
    if (!known) {
      // Dropped from the node's pool (eviction, restart): the same bytes again.
      const outcome = await sendCurrentAttempt(this.client, { ...this.transfer, status: 'signed' });
      if (outcome.kind === 'refused' && outcome.reason === 'underpriced') await this.signAgain(attempts, 'fee_bump');
      else if (outcome.kind === 'sent') log.info('re-broadcast a dropped transfer', { transferId: this.transfer.id, chain: this.chain });
      return 'broadcast';
    }
    const stuckSince = this.transfer.lastBroadcastAt ?? this.transfer.createdAt;
    if ((this.options.now ?? new Date()).getTime() - stuckSince.getTime() < env().TRANSFER_STUCK_AFTER_SECONDS * 1000) return 'broadcast';
    const block = await this.client.getBlock({ blockTag: 'latest' }).catch(() => null);
    const current = attempts[attempts.length - 1]!;
    if (block?.baseFeePerGas != null && current.maxFeePerGas < block.baseFeePerGas) await this.signAgain(attempts, 'fee_bump');
    return 'broadcast';
  }

  /**
   * Signs the transfer again at its nonce: the same call with higher fees (fee_bump), or a 0-value
   * self-transfer (cancel). The new attempt becomes current and is sent at once.
   */
  private async signAgain(attempts: OutboundTransferAttemptRow[], kind: 'fee_bump' | 'cancel'): Promise<void> {
    const t = this.transfer;
    if (kind === 'fee_bump' && t.feeBumps >= env().TRANSFER_MAX_FEE_BUMPS) {
      log.error('transfer still not mined after the most fee bumps allowed; look at it', { transferId: t.id, chain: this.chain });
      return;
    }
    if (kind === 'fee_bump' && (t.callTo === null || t.gasLimit === null)) return; // Recorded before the engine kept the call.
    const signer = await signerForAddress(this.chain, this.sender);
    if (!signer) {
      log.error('no key to sign a replacement for this transfer', { transferId: t.id, kind });
      return;
    }
    const fees = await this.client.estimateFeesPerGas().catch(() => null);
    const block = await this.client.getBlock({ blockTag: 'latest' }).catch(() => null);
    if (!fees) return;
    const last = attempts[attempts.length - 1]!;
    const bump = (value: bigint) => (value * BUMP_NUMERATOR) / BUMP_DENOMINATOR + 1n;
    const priority = maxOf(bump(last.maxPriorityFeePerGas), fees.maxPriorityFeePerGas);
    const maxFee = maxOf(bump(last.maxFeePerGas), fees.maxFeePerGas, (block?.baseFeePerGas ?? 0n) * 2n + priority);
    // A relayed fee bump carries the account's EIP-7702 authorization again, as its first attempt did. A cancel of
    // the gas tank's self-delegating pull carries the tank's own authorization too: it takes the nonce after the
    // transaction's, which the tank's next transaction was given (lock-sender.ts), so it must be used either way.
    const first = authorizationsOf(attempts[0]!.rawTransaction);
    const authorizationList = kind === 'fee_bump' || isPullCall(t) ? first : [];
    // A cancel's 0-value self-call runs the sender's delegated code, if any, and pays for its authorization.
    const cancelGas = 21_000n + (t.relayerAddress !== null ? 20_000n : 0n) + BigInt(authorizationList.length) * 25_000n;
    const call =
      kind === 'cancel'
        ? { to: getAddress(this.sender), value: 0n, data: undefined, gas: cancelGas }
        : { to: t.callTo as Address, value: t.callValue ?? 0n, data: (t.callData ?? undefined) as Hex | undefined, gas: t.gasLimit! };
    // A fee bump re-signs the call the gate allowed when it was recorded; a cancel is a new call: it passes the gate.
    if (kind === 'cancel') {
      await authorizeTransfer(getDb(), {
        prepared: {
          chain: this.chain,
          from: this.sender,
          spend: { token: nativeToken(CHAINS[this.chain]), amount: 0n, recipient: this.sender },
          call,
        },
        purpose: 'cancel',
        chargeId: t.chargeId,
        authorization: { authority: { kind: 'system', job: 'cancel' }, destination: { class: 'self' } },
      });
    }
    const affordable = await this.ensureGasFor(call.value + call.gas * maxFee);
    if (!affordable) return;
    const raw = await signer.signTransaction({
      ...(authorizationList.length ? { type: 'eip7702' as const, authorizationList } : { type: 'eip1559' as const }),
      chainId: CHAINS[this.chain].evmChainId!,
      nonce: t.nonce,
      to: call.to,
      value: call.value,
      data: call.data,
      gas: call.gas,
      maxFeePerGas: maxFee,
      maxPriorityFeePerGas: priority,
    });
    const txHash = keccak256(raw);
    // A batch of relayed transfers is one transaction: its replacement is every row's new attempt. Only if the
    // transaction is still the one this pass read (another process may have replaced it meanwhile).
    const siblings = await this.batchSiblingIds();
    const replaced = await getDb().transaction(async (tx) => {
      const rows = await tx
        .update(outboundTransfers)
        .set({
          txHash,
          rawTransaction: raw,
          maxFeePerGas: maxFee,
          maxPriorityFeePerGas: priority,
          gasLimit: call.gas,
          feeBumps: kind === 'fee_bump' ? t.feeBumps + 1 : t.feeBumps,
          broadcastFailures: 0,
          ...(kind === 'cancel'
            ? {
                callTo: call.to,
                callValue: 0n,
                callData: null,
                error: `canceled after ${t.broadcastFailures + 1} refusals: ${t.error ?? ''}`.slice(0, 500),
              }
            : {}),
        })
        .where(
          and(
            inArray(outboundTransfers.id, siblings),
            eq(outboundTransfers.txHash, t.txHash),
            inArray(outboundTransfers.status, ['signed', 'broadcast']),
          ),
        )
        .returning({ id: outboundTransfers.id });
      if (!rows.some((row) => row.id === t.id)) return false;
      await tx.insert(outboundTransferAttempts).values(
        rows.map((row) => ({
          id: newId('transferAttempt'),
          transferId: row.id,
          chain: this.chain,
          kind,
          txHash,
          rawTransaction: raw,
          maxFeePerGas: maxFee,
          maxPriorityFeePerGas: priority,
        })),
      );
      return true;
    });
    if (!replaced) return;
    log.warn(
      kind === 'cancel'
        ? 'transfer could not be broadcast: its nonce is filled by a 0-value self-transfer'
        : 'transfer re-signed with higher fees',
      {
        transferId: t.id,
        chain: this.chain,
        nonce: t.nonce,
        maxFeePerGas: maxFee.toString(),
      },
    );
    crashPoint('transfer.replacement_recorded');
    const [row] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, t.id));
    if (row) {
      this.transfer = row;
      await sendCurrentAttempt(this.client, { ...row, status: 'signed' });
    }
  }

  /**
   * Whether the sender can pay `cost` in native coin now. If not and the gas tank sponsors this sender's
   * fees (it funded its first attempt), the tank sends the difference first and the replacement waits.
   */
  private async ensureGasFor(cost: bigint): Promise<boolean> {
    const t = this.transfer;
    const balance = await this.client.getBalance({ address: this.sender }).catch(() => null);
    if (balance === null) return false;
    if (balance >= cost) return true;
    if (t.relayerAddress !== null) {
      log.error('gas tank cannot pay for a relayed replacement; fund it (npm run admin -- gas-tank status)', {
        transferId: t.id,
        chain: this.chain,
      });
      return false;
    }
    if (!t.dependsOnTransferIds.length && t.purpose !== 'sweep' && t.purpose !== 'refund') {
      log.error('a replacement transaction cannot be paid for: the sender lacks native coin', { transferId: t.id, chain: this.chain });
      return false;
    }
    const [pending] = await getDb()
      .select({ id: outboundTransfers.id })
      .from(outboundTransfers)
      .where(
        and(
          eq(outboundTransfers.chain, this.chain),
          eq(outboundTransfers.toAddress, t.fromAddress),
          eq(outboundTransfers.purpose, 'gas_topup'),
          inArray(outboundTransfers.status, ['signed', 'broadcast']),
        ),
      )
      .limit(1);
    if (pending) return false; // a top-up is on its way
    const native = nativeToken(CHAINS[this.chain]);
    const [sponsor] = t.dependsOnTransferIds.length
      ? await getDb()
          .select({ merchantId: outboundTransfers.sponsorMerchantId, userId: outboundTransfers.sponsorUserId })
          .from(outboundTransfers)
          .where(and(inArray(outboundTransfers.id, t.dependsOnTransferIds), eq(outboundTransfers.purpose, 'gas_topup')))
      : [];
    const shortfall = cost - balance;
    const signer = gasTankAccount();
    const prepared = await prepareTransfer({
      chain: this.chain,
      from: signer.address,
      spend: { token: native, amount: shortfall, recipient: t.fromAddress },
      gas: 21_000n,
      gasSponsored: false,
    });
    await getDb().transaction((tx) =>
      recordTransfer(tx, {
        prepared,
        signer,
        purpose: 'gas_topup',
        authorization: { authority: { kind: 'system', job: 'gas_topup' }, destination: { class: 'sponsored_sender' } },
        chargeId: t.chargeId,
        senderLabel: 'The gas tank',
      }).then(async (recorded) => {
        await tx
          .update(outboundTransfers)
          .set({ sponsorMerchantId: sponsor?.merchantId ?? null, sponsorUserId: sponsor?.userId ?? null })
          .where(eq(outboundTransfers.id, recorded.transfer.id));
      }),
    );
    return false;
  }

  private async update(
    from: TransferStatus[],
    to: TransferStatus,
    values: Partial<typeof outboundTransfers.$inferInsert>,
  ): Promise<boolean> {
    // Rewriting the same status (a note on the row) is not a move; every other from must be one.
    for (const status of from) if (status !== to) transferMachine.assert(status, to, this.transfer.id);
    const changed = await getDb()
      .update(outboundTransfers)
      .set({ status: to, ...values })
      .where(and(eq(outboundTransfers.id, this.transfer.id), inArray(outboundTransfers.status, from)))
      .returning({ id: outboundTransfers.id });
    return changed.length > 0;
  }

  /**
   * The final status, once (whoever gets there first), with the purpose's hook in the same transaction.
   * A transfer re-opened by a deep re-organisation (`reopenedAt`) was confirmed once and its hook ran then:
   * confirmed again, nothing more is told; failed now, it is a reversal — its amount leaves the ledger with
   * this status, and the reversal hook and an error log say so (docs/adr/0036).
   */
  private async finish(status: 'confirmed' | 'failed', outcome: Omit<TransferOutcome, 'status'>): Promise<void> {
    const from = this.transfer.status;
    transferMachine.assert(from, status, this.transfer.id);
    const wasConfirmed = this.transfer.reopenedAt !== null;
    const reason =
      status === 'failed' && wasConfirmed
        ? `reversed by a re-organisation after it was confirmed: ${outcome.reason ?? 'failed'}`.slice(0, 500)
        : (outcome.reason ?? 'failed');
    let ended = false;
    await getDb().transaction(async (tx) => {
      const [row] = await tx
        .update(outboundTransfers)
        .set({
          status,
          ...(status === 'failed' ? { error: reason } : { error: null }),
          ...(outcome.receipt ? { gasFeeBaseUnits: await this.feeShare(outcome.receipt) } : {}),
        })
        .where(and(eq(outboundTransfers.id, this.transfer.id), eq(outboundTransfers.status, from)))
        .returning();
      if (!row) return;
      ended = true;
      if (!wasConfirmed) {
        const hook = outcomeHookFor(this.options.hooks, row.purpose);
        if (hook) await hook(tx, row, { status, ...outcome });
      } else if (status === 'failed') {
        await this.options.onReversed?.(tx, row, reason);
      }
      crashPoint('transfer.settling');
    });
    if (ended && wasConfirmed && status === 'failed') {
      log.error('a confirmed transfer was reversed by a re-organisation: what it moved is no longer moved; review it', {
        transferId: this.transfer.id,
        purpose: this.transfer.purpose,
        chain: this.chain,
        chargeId: this.transfer.chargeId,
        amountBaseUnits: this.transfer.amountBaseUnits.toString(),
        reason,
      });
      return;
    }
    log.info(
      status === 'confirmed'
        ? wasConfirmed
          ? 'transfer confirmed again after a re-organisation'
          : 'transfer confirmed'
        : 'transfer failed',
      {
        transferId: this.transfer.id,
        purpose: this.transfer.purpose,
        chain: this.chain,
        ...(outcome.reason ? { reason: outcome.reason } : {}),
      },
    );
  }
}

/** The EIP-7702 authorizations a signed transaction carries (none for other types). */
function authorizationsOf(raw: string): SignedAuthorization[] {
  const parsed = parseTransaction(raw as Hex);
  return parsed.type === 'eip7702' ? [...(parsed.authorizationList ?? [])] : [];
}

function maxOf(...values: bigint[]): bigint {
  return values.reduce((a, b) => (b > a ? b : a));
}
