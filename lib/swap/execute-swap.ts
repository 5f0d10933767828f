/**
 * Executing a swap, shared by both branches (held funds, on-ramp conversion), in the same three steps
 * as every transfer the service sends (lib/payments/outbound-transfers.ts):
 *
 *  1. signAndRecordSwap — in the caller's transaction: top up gas from the gas tank if the sender is
 *     short, take the sender's nonces under the same advisory lock outbound transfers use, sign approve
 *     (if needed) and swapTokensForExactTokens, and record both with the amounts. Nothing is sent yet.
 *  2. submitSwap — after commit: send the gas top-up (and wait for it briefly), then the recorded bytes.
 *  3. reconcileSwapExecutions — in the background: re-send `signed` swaps, settle `broadcast` ones from
 *     their receipts (`confirmed` with the input actually taken, or `failed`), each with a charge
 *     timeline event. A swap whose nonce was used by another transaction can never land: `failed`.
 *
 * The output always goes to the charge's deposit address, so the chain watcher counts it like any other
 * payment and the sweep delivers it to the payee.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { erc20Abi, keccak256, parseEventLogs, type Address, type Hex, type PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, outboundTransfers, swapExecutions, type SwapExecutionRow } from '@/lib/db/schema';
import { randomBase62 } from '@/lib/ids';
import { log } from '@/lib/log';
import { topUpGasIfShort } from '@/lib/payments/gas-tank';
import { broadcastTransfer, type OutboundTransferRow } from '@/lib/payments/outbound-transfers';
import { takeSenderNonce } from '@/lib/payments/sender-nonce';
import type { SwapBranch, SwapExecutionStatus } from './state';
import type { SwapPair } from './swap-pairs';
import { buildExactOutSwap, swapDeadline, type ExactOutQuote } from './uniswap-v2-router';

export function newSwapExecutionId(): string {
  return `swx_${randomBase62(22)}`;
}

export interface SignedSwap {
  execution: SwapExecutionRow;
  /** The gas top-up the sender needed first, if any (sent by submitSwap before the swap). */
  gasTopUp?: OutboundTransferRow;
}

/** Step 1, in the caller's transaction (which should hold the charge's row lock). */
export async function signAndRecordSwap(
  tx: DbOrTx,
  input: {
    chargeId: string;
    branch: SwapBranch;
    userId: string | null;
    pair: SwapPair;
    client: PublicClient;
    account: PrivateKeyAccount;
    recipient: Address;
    quote: ExactOutQuote;
    /** The most input to sign for (≤ quote.amountInMax; the caller caps it by what the payer accepted or holds). */
    amountInMax: bigint;
    now?: Date;
  },
): Promise<SignedSwap> {
  const { pair, client, account, quote } = input;
  const chain = CHAINS[pair.chain];
  const from = account.address;
  const now = input.now ?? new Date();
  const deadline = swapDeadline(now);
  const calls = await buildExactOutSwap(client, {
    from,
    router: pair.router,
    path: quote.path,
    amountOut: quote.amountOut,
    amountInMax: input.amountInMax,
    recipient: input.recipient,
    deadline,
  });
  const fees = await client.estimateFeesPerGas();
  const gasTopUp = await topUpGasIfShort(tx, {
    chain: pair.chain,
    client,
    wallet: from,
    needed: ((calls.approve?.gas ?? 0n) + calls.swap.gas) * fees.maxFeePerGas,
    chargeId: input.chargeId,
  });

  let nonce = await takeSenderNonce(tx, client, pair.chain, from);
  const sign = (call: { to: Address; data: Hex; gas: bigint }) =>
    account.signTransaction({
      type: 'eip1559',
      chainId: chain.evmChainId!,
      nonce: nonce++,
      to: call.to,
      data: call.data,
      value: 0n,
      gas: call.gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
  const approveNonce = calls.approve ? nonce : null;
  const approveRaw = calls.approve ? await sign(calls.approve) : null;
  const swapNonce = nonce;
  const swapRaw = await sign(calls.swap);

  const [execution] = await tx
    .insert(swapExecutions)
    .values({
      id: newSwapExecutionId(),
      chargeId: input.chargeId,
      branch: input.branch,
      userId: input.userId,
      chain: pair.chain,
      router: pair.router,
      fromAddress: from,
      recipient: input.recipient,
      tokenIn: pair.funding.address,
      tokenOut: pair.target.address,
      amountOut: quote.amountOut,
      quotedAmountIn: quote.amountIn,
      amountInMax: input.amountInMax,
      slippageBps: quote.slippageBps,
      deadline: new Date(Number(deadline) * 1000),
      approveNonce,
      approveTxHash: approveRaw ? keccak256(approveRaw) : null,
      approveRawTransaction: approveRaw,
      swapNonce,
      swapTxHash: keccak256(swapRaw),
      swapRawTransaction: swapRaw,
      status: 'signed',
    })
    .returning();
  return { execution: execution!, gasTopUp };
}

/** Step 2, after the signing transaction committed: gas first (waited for briefly), then the swap. */
export async function submitSwap(signed: { executionId: string; gasTopUpId?: string }): Promise<void> {
  if (signed.gasTopUpId && (await broadcastTransfer(signed.gasTopUpId))) {
    const [topUp] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, signed.gasTopUpId));
    const client = topUp && publicClientFor(topUp.chain as ChainName);
    // If it is slow, the swap stays `signed` and the reconciler sends it once the top-up has landed.
    await client?.waitForTransactionReceipt({ hash: topUp!.txHash as Hex, timeout: 20_000 }).catch(() => undefined);
  }
  await broadcastSwap(signed.executionId);
}

/** Sends the recorded approve and swap. Safe to repeat. Returns whether the node has both. */
async function broadcastSwap(executionId: string): Promise<boolean> {
  const [row] = await getDb().select().from(swapExecutions).where(eq(swapExecutions.id, executionId));
  if (!row || row.status === 'failed') return false;
  if (row.status !== 'signed') return true;
  const client = publicClientFor(row.chain as ChainName);
  if (!client) return false;
  for (const [raw, hash] of [
    [row.approveRawTransaction, row.approveTxHash],
    [row.swapRawTransaction, row.swapTxHash],
  ] as const) {
    if (!raw || !hash) continue;
    try {
      await client.sendRawTransaction({ serializedTransaction: raw as Hex });
    } catch (error) {
      // Already known or mined: the node has it, which is what we wanted.
      if (!(await client.getTransaction({ hash: hash as Hex }).catch(() => null))) {
        log.warn('swap broadcast failed; the reconciler will retry', {
          executionId,
          error: error instanceof Error ? error.message : String(error),
        });
        return false;
      }
    }
  }
  await getDb()
    .update(swapExecutions)
    .set({ status: 'broadcast' })
    .where(and(eq(swapExecutions.id, executionId), eq(swapExecutions.status, 'signed')));
  return true;
}

/** Brings one swap up to date with the chain. Returns its status afterwards. */
async function reconcileSwap(row: SwapExecutionRow): Promise<SwapExecutionStatus> {
  if (row.status !== 'signed' && row.status !== 'broadcast') return row.status;
  const client = publicClientFor(row.chain as ChainName);
  if (!client || !row.swapTxHash || row.swapNonce === null) return row.status;
  if (row.status === 'signed' && !(await broadcastSwap(row.id))) {
    return (await failIfNonceTaken(client, row)) ? 'failed' : 'signed';
  }
  const receipt = await client.getTransactionReceipt({ hash: row.swapTxHash as Hex }).catch(() => null);
  if (receipt) {
    if (receipt.status !== 'success') {
      await finishSwap(row, {
        status: 'failed',
        error: 'reverted: the price moved past the limit or the deadline passed; nothing was swapped',
      });
      return 'failed';
    }
    const amountIn = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
      .filter(
        (event) =>
          event.address.toLowerCase() === row.tokenIn.toLowerCase() && event.args.from.toLowerCase() === row.fromAddress.toLowerCase(),
      )
      .reduce((sum, event) => sum + event.args.value, 0n);
    await finishSwap(row, { status: 'confirmed', amountIn });
    return 'confirmed';
  }
  if (await client.getTransaction({ hash: row.swapTxHash as Hex }).catch(() => null)) return 'broadcast';
  if (await failIfNonceTaken(client, row)) return 'failed';
  // Dropped by the node (restart, mempool eviction): the same bytes again.
  for (const raw of [row.approveRawTransaction, row.swapRawTransaction]) {
    if (raw) await client.sendRawTransaction({ serializedTransaction: raw as Hex }).catch(() => undefined);
  }
  return 'broadcast';
}

/** A swap whose nonce another transaction used can never be mined. */
async function failIfNonceTaken(client: PublicClient, row: SwapExecutionRow): Promise<boolean> {
  const mined = await client.getTransactionCount({ address: row.fromAddress as Address, blockTag: 'latest' });
  if (mined <= row.swapNonce!) return false;
  // Mined between our reads? Then the next pass settles it from its receipt.
  if (await client.getTransactionReceipt({ hash: row.swapTxHash as Hex }).catch(() => null)) return false;
  await finishSwap(row, { status: 'failed', error: 'nonce used by another transaction; nothing was swapped' });
  return true;
}

/** The terminal update and its timeline event, once (whoever gets there first). */
async function finishSwap(
  row: SwapExecutionRow,
  outcome: { status: 'confirmed'; amountIn: bigint } | { status: 'failed'; error: string },
): Promise<void> {
  await getDb().transaction(async (tx) => {
    const changed = await tx
      .update(swapExecutions)
      .set(
        outcome.status === 'confirmed'
          ? { status: 'confirmed', amountIn: outcome.amountIn, error: null }
          : { status: 'failed', error: outcome.error },
      )
      .where(and(eq(swapExecutions.id, row.id), inArray(swapExecutions.status, ['signed', 'broadcast'])))
      .returning({ id: swapExecutions.id });
    if (!changed.length) return;
    const [charge] = await tx.select({ status: charges.status }).from(charges).where(eq(charges.id, row.chargeId));
    await recordChargeEvent(tx, {
      chargeId: row.chargeId,
      fromStatus: charge!.status,
      toStatus: charge!.status,
      actor: 'system:swap-reconciler',
      type: outcome.status === 'confirmed' ? 'charge.swap_confirmed' : 'charge.swap_failed',
      data: {
        swapExecutionId: row.id,
        txHash: row.swapTxHash,
        amountOutBaseUnits: row.amountOut.toString(),
        ...(outcome.status === 'confirmed' ? { amountInBaseUnits: outcome.amountIn.toString() } : { reason: outcome.error }),
      },
    });
  });
}

/** Step 3, in the background: every signed or broadcast swap brought up to date. Returns how many changed. */
export async function reconcileSwapExecutions(): Promise<number> {
  const open = await getDb()
    .select()
    .from(swapExecutions)
    .where(inArray(swapExecutions.status, ['signed', 'broadcast']))
    .orderBy(swapExecutions.createdAt);
  let changed = 0;
  for (const row of open) {
    if ((await reconcileSwap(row)) !== row.status) changed++;
  }
  return changed;
}
