/**
 * Every transfer the service sends (balance payments, sweeps, gas top-ups) goes through here:
 *
 *  1. `signAndRecordTransfer` — in the caller's transaction: take the sender's nonce under an advisory
 *     lock, sign, and record the raw bytes and hash. Nothing has left the server yet.
 *  2. `broadcastTransfer` — after the transaction commits: send the recorded bytes. Repeating it is
 *     harmless, since the same signed transaction cannot be mined twice.
 *  3. `reconcileOutboundTransfers` — in the background: re-broadcast `signed` rows (a crash or a failed
 *     send), and settle `broadcast` rows to `confirmed` / `failed` from their receipts.
 *
 * So a crash between signing and broadcasting can never make a second, different transfer.
 *
 * This file is the EVM implementation and the one entry point for every chain: Solana rows (sweeps whose
 * fee the gas tank pays as fee payer) are broadcast and reconciled by ./solana/solana-transfers.ts.
 */
import { and, eq, inArray, ne } from 'drizzle-orm';
import { encodeFunctionData, erc20Abi, keccak256, type Hex, type PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { CHAINS, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { publicClientFor } from '@/lib/chains/clients';
import { takeSenderNonce } from './sender-nonce';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { outboundTransfers, type TransferPurpose } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { emitPaymentFailed } from '@/lib/webhooks/emit';
import { broadcastSolanaTransfer, isSolanaFeeRecord, reconcileSolanaTransfer } from './solana/solana-transfers';
import { resolveSolanaRpc, type SolanaRpcOptions } from './solana/watch-solana';

export type OutboundTransferRow = typeof outboundTransfers.$inferSelect;

/** Gas limits used when the node cannot estimate (e.g. an ERC-20 sender without native coin yet). */
const FALLBACK_GAS = { native: 21_000n, erc20: 100_000n } as const;

export interface TransferPlan {
  to: Hex;
  value: bigint;
  data: Hex | undefined;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The call that moves `amount` of `token` to `recipient`, with its gas and fees: what it will cost the sender in native coin. */
export async function planTransfer(
  client: PublicClient,
  input: { from: Hex; recipient: Hex; token: TokenInfo; amount: bigint },
): Promise<TransferPlan & { maxGasCost: bigint }> {
  const call = input.token.isNative
    ? { to: input.recipient, value: input.amount, data: undefined }
    : {
        to: input.token.address as Hex,
        value: 0n,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [input.recipient, input.amount] }),
      };
  const gas = await client
    .estimateGas({ account: input.from, ...call })
    .catch(() => (input.token.isNative ? FALLBACK_GAS.native : FALLBACK_GAS.erc20));
  const fees = await client.estimateFeesPerGas();
  return {
    ...call,
    gas,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    maxGasCost: gas * fees.maxFeePerGas,
  };
}

/** Step 1: sign `plan` as `account` and record it (status `signed`) in the caller's transaction. */
export async function signAndRecordTransfer(
  tx: DbOrTx,
  input: {
    purpose: TransferPurpose;
    chargeId: string | null;
    chain: ChainName;
    account: PrivateKeyAccount;
    /** Who receives the value (the token contract is `plan.to` for ERC-20 transfers). */
    recipient: string;
    token: TokenInfo;
    amount: bigint;
    plan: TransferPlan;
    client: PublicClient;
  },
): Promise<OutboundTransferRow> {
  const chain = CHAINS[input.chain];
  const from = input.account.address;
  // One signer per sender at a time, across processes: nonces must not collide (swaps included).
  const nonce = await takeSenderNonce(tx, input.client, chain.name, from);
  const { plan } = input;
  const raw = await input.account.signTransaction({
    type: 'eip1559',
    chainId: chain.evmChainId!,
    nonce,
    to: plan.to,
    value: plan.value,
    data: plan.data,
    gas: plan.gas,
    maxFeePerGas: plan.maxFeePerGas,
    maxPriorityFeePerGas: plan.maxPriorityFeePerGas,
  });
  const [row] = await tx
    .insert(outboundTransfers)
    .values({
      id: newId('outboundTransfer'),
      chargeId: input.chargeId,
      purpose: input.purpose,
      chain: chain.name,
      fromAddress: from,
      toAddress: input.recipient,
      tokenAddress: input.token.address,
      amountBaseUnits: input.amount,
      nonce,
      txHash: keccak256(raw),
      rawTransaction: raw,
      status: 'signed',
    })
    .returning();
  return row!;
}

/** Step 2: send the recorded bytes. Safe to repeat. Returns whether the chain has the transaction. */
export async function broadcastTransfer(transferId: string, options: SolanaRpcOptions = {}): Promise<boolean> {
  const [transfer] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
  if (!transfer) return false;
  if (transfer.status !== 'signed') return transfer.status !== 'failed';
  if (CHAINS[transfer.chain as ChainName].family === 'solana') {
    const rpc = resolveSolanaRpc(transfer.chain as ChainName, options);
    return rpc ? broadcastSolanaTransfer(rpc, transfer) : false;
  }
  const client = publicClientFor(transfer.chain as ChainName);
  if (!client) return false;
  try {
    await client.sendRawTransaction({ serializedTransaction: transfer.rawTransaction as Hex });
  } catch (error) {
    // Already known / already mined: the chain has it, which is what we wanted.
    const known = await client.getTransaction({ hash: transfer.txHash as Hex }).catch(() => null);
    if (!known) {
      log.warn('broadcast failed; the reconciler will retry', {
        transferId,
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  }
  await getDb()
    .update(outboundTransfers)
    .set({ status: 'broadcast' })
    .where(and(eq(outboundTransfers.id, transferId), eq(outboundTransfers.status, 'signed')));
  return true;
}

/** Brings one transfer up to date with the chain: re-broadcast if only signed, settle from its receipt if sent. */
export async function reconcileTransfer(
  transfer: OutboundTransferRow,
  options: SolanaRpcOptions = {},
): Promise<OutboundTransferRow['status']> {
  if (CHAINS[transfer.chain as ChainName].family === 'solana') {
    const rpc = resolveSolanaRpc(transfer.chain as ChainName, options);
    return rpc ? reconcileSolanaTransfer(rpc, transfer) : transfer.status;
  }
  if (transfer.status !== 'signed' && transfer.status !== 'broadcast') return transfer.status;
  const client = publicClientFor(transfer.chain as ChainName);
  if (!client) return transfer.status;
  if (transfer.status === 'signed' && !(await broadcastTransfer(transfer.id))) {
    // Not accepted: maybe its nonce went to another transaction (then it can never be mined).
    return (await resendIfDropped(client, transfer)) === 'failed' ? 'failed' : 'signed';
  }
  const receipt = await client.getTransactionReceipt({ hash: transfer.txHash as Hex }).catch(() => null);
  if (!receipt) return resendIfDropped(client, transfer);
  if (receipt.status === 'success') {
    await getDb().update(outboundTransfers).set({ status: 'confirmed', error: null }).where(eq(outboundTransfers.id, transfer.id));
    return 'confirmed';
  }
  await markTransferFailed(transfer, 'reverted');
  return 'failed';
}

/**
 * Marks a transfer failed once (whoever gets there first), and reports a failed balance payment to the
 * merchant (`payment.failed` webhook) in the same transaction: the charge stays payable.
 */
async function markTransferFailed(transfer: OutboundTransferRow, reason: string): Promise<void> {
  await getDb().transaction(async (tx) => {
    const changed = await tx
      .update(outboundTransfers)
      .set({ status: 'failed', error: reason })
      .where(and(eq(outboundTransfers.id, transfer.id), ne(outboundTransfers.status, 'failed')))
      .returning({ id: outboundTransfers.id });
    if (changed.length && transfer.purpose === 'balance_payment' && transfer.chargeId) {
      await emitPaymentFailed(tx, {
        chargeId: transfer.chargeId,
        attempt: { id: transfer.id, method: 'balance', chain: transfer.chain, txHash: transfer.txHash, reason },
      });
    }
  });
}

/**
 * A broadcast transaction the node no longer knows (evicted from the mempool, node restarted) is sent
 * again, same bytes. If its nonce has since been used by another transaction it can never be mined: it
 * is marked `failed`, so whoever depends on it (a sweep, a payment) can sign a new one.
 */
async function resendIfDropped(client: PublicClient, transfer: OutboundTransferRow): Promise<OutboundTransferRow['status']> {
  if (await client.getTransaction({ hash: transfer.txHash as Hex }).catch(() => null)) return 'broadcast';
  const minedNonce = await client.getTransactionCount({ address: transfer.fromAddress as Hex, blockTag: 'latest' });
  if (minedNonce > transfer.nonce) {
    // Mined between our two reads? Then the next pass settles it from its receipt.
    if (await client.getTransactionReceipt({ hash: transfer.txHash as Hex }).catch(() => null)) return 'broadcast';
    await markTransferFailed(transfer, 'nonce used by another transaction');
    return 'failed';
  }
  await client.sendRawTransaction({ serializedTransaction: transfer.rawTransaction as Hex }).catch((error: unknown) => {
    log.warn('re-broadcast failed; will retry', { transferId: transfer.id, error: error instanceof Error ? error.message : String(error) });
  });
  return 'broadcast';
}

/** Step 3, in the background: every signed or broadcast transfer, brought up to date. Returns how many changed. */
export async function reconcileOutboundTransfers(options: SolanaRpcOptions = {}): Promise<number> {
  const open = await getDb()
    .select()
    .from(outboundTransfers)
    .where(inArray(outboundTransfers.status, ['signed', 'broadcast']))
    .orderBy(outboundTransfers.createdAt);
  let changed = 0;
  // A Solana fee record moves with its transaction's row (solana-transfers.ts), never on its own.
  for (const transfer of open.filter((t) => !isSolanaFeeRecord(t))) {
    if ((await reconcileTransfer(transfer, options)) !== transfer.status) changed++;
  }
  return changed;
}
