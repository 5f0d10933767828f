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
import { and, eq, ne } from 'drizzle-orm';
import { erc20Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { verifyPin } from '@/lib/accounts/pin';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { publicClientFor } from '@/lib/chains/clients';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, outboundTransfers, wallets } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { assertNoOtherPaymentInFlight } from '@/lib/charges/payment-in-flight';
import { openWalletKey } from '@/lib/wallets/envelope';
import { topUpGasIfShort } from './gas-tank';
import { broadcastTransfer, planTransfer, signAndRecordTransfer } from './outbound-transfers';
import { tokenOfCharge } from '@/lib/charges/charge-token';

export interface BalancePayment {
  transferId: string;
  txHash: string;
}

export async function payFromBalance(input: { userId: string; chargeId: string; pin: string }): Promise<BalancePayment> {
  await verifyPin({ userId: input.userId, pin: input.pin });
  const signed = await signBalancePayment(input);
  if (signed.isNew) {
    if (signed.gasTopUpId) await sendGasTopUp(signed.gasTopUpId);
    await broadcastTransfer(signed.transferId);
  }
  return { transferId: signed.transferId, txHash: signed.txHash };
}

/** Step 1 (exported for the crash test): lock, check, sign and record — nothing leaves the server yet. */
export async function signBalancePayment(input: {
  userId: string;
  chargeId: string;
}): Promise<BalancePayment & { isNew: boolean; gasTopUpId?: string }> {
  return getDb().transaction(async (tx) => {
    const [charge] = await tx.select().from(charges).where(eq(charges.id, input.chargeId)).for('update');
    if (!charge) throw new AppError('not_found', `No charge ${input.chargeId}.`);
    await assertNoOtherPaymentInFlight(tx, charge.id, 'balance');
    const chain = CHAINS[charge.chain as ChainName];
    const [wallet] = await tx
      .select()
      .from(wallets)
      .where(and(eq(wallets.userId, input.userId), eq(wallets.family, 'evm')));
    if (!wallet || chain.family !== 'evm')
      throw new AppError('charge_not_payable', 'This charge cannot be paid from a balance yet (EVM chains only).');

    const [existing] = await tx
      .select()
      .from(outboundTransfers)
      .where(
        and(
          eq(outboundTransfers.chargeId, charge.id),
          eq(outboundTransfers.purpose, 'balance_payment'),
          ne(outboundTransfers.status, 'failed'),
        ),
      );
    if (existing) {
      if (existing.fromAddress === wallet.address) return { transferId: existing.id, txHash: existing.txHash, isNew: false };
      throw new AppError('charge_not_payable', 'This charge is already being paid.');
    }
    if (charge.status !== 'pending' || charge.expiresAt <= new Date()) {
      throw new AppError(
        'charge_not_payable',
        `This charge is ${charge.status === 'pending' ? 'expired' : charge.status} and cannot be paid.`,
      );
    }
    const [deposit] = await tx.select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
    const client = publicClientFor(chain.name);
    if (!deposit || !client) throw new AppError('chain_unavailable', `${chain.displayName} is not reachable right now. Try again shortly.`);

    const token = tokenOfCharge(charge);
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

    // No native coin for gas? The gas tank tops up the exact shortfall first (recorded as platform cost).
    const plan = await planTransfer(client, { from, recipient: deposit.address as Hex, token, amount: charge.totalBaseUnits });
    const gasTopUp = await topUpGasIfShort(tx, {
      chain: chain.name,
      client,
      wallet: from,
      needed: plan.maxGasCost,
      reserved: token.isNative ? charge.totalBaseUnits : 0n,
      chargeId: charge.id,
    });
    const key = openWalletKey(wallet);
    const account = privateKeyToAccount(`0x${key.toString('hex')}`);
    key.fill(0);
    const transfer = await signAndRecordTransfer(tx, {
      purpose: 'balance_payment',
      chargeId: charge.id,
      chain: chain.name,
      account,
      recipient: deposit.address,
      token,
      amount: charge.totalBaseUnits,
      plan,
      client,
    });
    const txHash = transfer.txHash;
    const transferId = transfer.id;
    await recordChargeEvent(tx, {
      chargeId: charge.id,
      fromStatus: charge.status,
      toStatus: charge.status,
      actor: `user:${input.userId}`,
      type: 'charge.payment_submitted',
      data: { method: 'balance', txHash, from },
    });
    return { transferId, txHash, isNew: true, gasTopUpId: gasTopUp?.id };
  });
}

/**
 * Sends a gas top-up and waits (briefly) for it to be mined, so the payment that follows can pay its
 * fee. If it is slow, the payment stays `signed` and the reconciler sends it once the top-up lands.
 */
async function sendGasTopUp(transferId: string): Promise<void> {
  if (!(await broadcastTransfer(transferId))) return;
  const [row] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
  const client = row && publicClientFor(row.chain as ChainName);
  await client?.waitForTransactionReceipt({ hash: row!.txHash as Hex, timeout: 20_000 }).catch(() => undefined);
}
