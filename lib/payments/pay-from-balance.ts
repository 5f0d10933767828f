/**
 * Pay a charge from the consumer's service wallet (the spec's main method), authorised by the PIN.
 *
 * Exactly once, whatever races (double click, two tabs, a retry after a timeout):
 *  - the charge row is locked and must be `pending`;
 *  - at most one live balance payment per charge — a partial unique index in PostgreSQL, not only
 *    this code — so a second request gets the first one's transfer back (same payer) or a 409;
 *  - the transfer is signed and recorded (nonce, hash, raw bytes) in that transaction, and broadcast
 *    only after it commits. A crash between the two leaves a `signed` row that the reconciler
 *    broadcasts (the same bytes, so never a second transfer).
 *
 * The transfer goes to the charge's deposit address; the chain watcher then settles the charge like
 * any other payment.
 */
import { and, desc, eq, ne, sql } from 'drizzle-orm';
import { encodeFunctionData, erc20Abi, keccak256, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { verifyPin } from '@/lib/accounts/pin';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { publicClientFor } from '@/lib/chains/clients';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, outboundTransfers, wallets } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { formatAmount } from '@/lib/money';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { openWalletKey } from '@/lib/wallets/envelope';

export interface BalancePayment {
  transferId: string;
  txHash: string;
}

export async function payFromBalance(input: { userId: string; chargeId: string; pin: string }): Promise<BalancePayment> {
  await verifyPin({ userId: input.userId, pin: input.pin });
  const signed = await signBalancePayment(input);
  if (signed.isNew) await broadcastTransfer(signed.transferId);
  return { transferId: signed.transferId, txHash: signed.txHash };
}

/** Step 1 (exported for the crash test): lock, check, sign and record — nothing leaves the server yet. */
export async function signBalancePayment(input: { userId: string; chargeId: string }): Promise<BalancePayment & { isNew: boolean }> {
  return getDb().transaction(async (tx) => {
    const [charge] = await tx.select().from(charges).where(eq(charges.id, input.chargeId)).for('update');
    if (!charge) throw new AppError('not_found', `No charge ${input.chargeId}.`);
    const chain = CHAINS[charge.chain as ChainName];
    const [wallet] = await tx.select().from(wallets).where(and(eq(wallets.userId, input.userId), eq(wallets.family, 'evm')));
    if (!wallet || chain.family !== 'evm') throw new AppError('charge_not_payable', 'This charge cannot be paid from a balance yet (EVM chains only).');

    const [existing] = await tx
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, charge.id), eq(outboundTransfers.purpose, 'balance_payment'), ne(outboundTransfers.status, 'failed')));
    if (existing) {
      if (existing.fromAddress === wallet.address) return { transferId: existing.id, txHash: existing.txHash, isNew: false };
      throw new AppError('charge_not_payable', 'This charge is already being paid.');
    }
    if (charge.status !== 'pending' || charge.expiresAt <= new Date()) {
      throw new AppError('charge_not_payable', `This charge is ${charge.status === 'pending' ? 'expired' : charge.status} and cannot be paid.`);
    }
    const [deposit] = await tx.select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
    const client = publicClientFor(chain.name);
    if (!deposit || !client) throw new AppError('chain_unavailable', `${chain.displayName} is not reachable right now. Try again shortly.`);

    const token = chain.tokens.find((t) => t.address === charge.tokenAddress)!;
    const from = wallet.address as Hex;
    const balance = token.isNative
      ? await client.getBalance({ address: from })
      : await client.readContract({ address: token.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [from] });
    if (balance < charge.totalBaseUnits) {
      throw new AppError(
        'insufficient_balance',
        `Your wallet holds ${formatAmount(balance, token.decimals)} ${token.symbol} on ${chain.displayName}; this charge needs ${formatAmount(charge.totalBaseUnits, token.decimals)}. Top up first.`,
      );
    }

    // One signer per wallet at a time: nonces must not collide across charges.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`wallet-nonce:${chain.name}:${from}`}, 0))`);
    const [lastSent] = await tx
      .select({ nonce: outboundTransfers.nonce })
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chain, chain.name), eq(outboundTransfers.fromAddress, from), ne(outboundTransfers.status, 'failed')))
      .orderBy(desc(outboundTransfers.nonce))
      .limit(1);
    const chainNonce = await client.getTransactionCount({ address: from, blockTag: 'pending' });
    const nonce = Math.max(chainNonce, lastSent ? lastSent.nonce + 1 : 0);

    const request = token.isNative
      ? { to: deposit.address as Hex, value: charge.totalBaseUnits, data: undefined }
      : {
          to: token.address as Hex,
          value: 0n,
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [deposit.address as Hex, charge.totalBaseUnits] }),
        };
    const key = openWalletKey(wallet);
    const account = privateKeyToAccount(`0x${key.toString('hex')}`);
    key.fill(0);
    const gas = await client.estimateGas({ account: from, ...request });
    const fees = await client.estimateFeesPerGas();
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: chain.evmChainId!,
      nonce,
      gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      ...request,
    });
    const txHash = keccak256(raw);
    const transferId = newId('outboundTransfer');
    await tx.insert(outboundTransfers).values({
      id: transferId,
      chargeId: charge.id,
      purpose: 'balance_payment',
      chain: chain.name,
      fromAddress: from,
      toAddress: deposit.address,
      tokenAddress: token.address,
      amountBaseUnits: charge.totalBaseUnits,
      nonce,
      txHash,
      rawTransaction: raw,
      status: 'signed',
    });
    await recordChargeEvent(tx, {
      chargeId: charge.id,
      fromStatus: charge.status,
      toStatus: charge.status,
      actor: `user:${input.userId}`,
      type: 'charge.payment_submitted',
      data: { method: 'balance', txHash, from },
    });
    return { transferId, txHash, isNew: true };
  });
}

/** Step 2: send the recorded bytes. Safe to repeat: the same signed transaction cannot be mined twice. */
export async function broadcastTransfer(transferId: string): Promise<void> {
  const [transfer] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
  if (!transfer || transfer.status !== 'signed') return;
  const client = publicClientFor(transfer.chain as ChainName);
  if (!client) return;
  try {
    await client.sendRawTransaction({ serializedTransaction: transfer.rawTransaction as Hex });
  } catch (error) {
    // Already known / already mined: the chain has it, which is what we wanted.
    const known = await client.getTransaction({ hash: transfer.txHash as Hex }).catch(() => null);
    if (!known) {
      log.warn('broadcast failed; the reconciler will retry', { transferId, error: error instanceof Error ? error.message : String(error) });
      return;
    }
  }
  await getDb().update(outboundTransfers).set({ status: 'broadcast' }).where(and(eq(outboundTransfers.id, transferId), eq(outboundTransfers.status, 'signed')));
}

/**
 * Reconciles recorded transfers with the chain (after a crash or a failed broadcast): `signed` ones
 * are broadcast again, `broadcast` ones become `confirmed` or `failed` from their receipt.
 */
export async function reconcileOutboundTransfers(): Promise<number> {
  const open = await getDb().select().from(outboundTransfers).where(ne(outboundTransfers.status, 'confirmed'));
  let changed = 0;
  for (const transfer of open.filter((t) => t.status === 'signed' || t.status === 'broadcast')) {
    if (transfer.status === 'signed') {
      await broadcastTransfer(transfer.id);
      changed++;
      continue;
    }
    const client = publicClientFor(transfer.chain as ChainName);
    const receipt = await client?.getTransactionReceipt({ hash: transfer.txHash as Hex }).catch(() => null);
    if (!receipt) continue;
    await getDb()
      .update(outboundTransfers)
      .set({ status: receipt.status === 'success' ? 'confirmed' : 'failed', error: receipt.status === 'success' ? null : 'reverted' })
      .where(eq(outboundTransfers.id, transfer.id));
    changed++;
  }
  return changed;
}
