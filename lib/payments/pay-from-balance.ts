/**
 * Pay a charge from the consumer's service wallet (the spec's main method), authorised by the PIN — or,
 * without it, by a spending allowance the consumer approved for the charge's merchant (lib/allowances/,
 * ADR 0034; the transfer gate checks it under its lock).
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
 * any other payment. Every chain: on EVM from the consumer's EVM wallet (the gas tank tops up the fee,
 * or, where smart accounts are on, relays the wallet's own call and pays its gas: ADR 0035), on
 * Solana from their Solana wallet with the gas tank as the fee payer (lib/transactions/solana/).
 */
import { and, eq, ne } from 'drizzle-orm';
import { verifyPinStepUp } from '@/lib/accounts/step-up';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, depositAddresses, outboundTransfers, wallets, type ChargeRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { assertNoOtherPaymentInFlight } from '@/lib/charges/payment-in-flight';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import type { SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { submitTransfer } from '@/lib/transactions/broadcast-transfer';
import { isSolanaPrepared, prepareChainTransfer, type ChainPreparedTransfer } from '@/lib/transactions/prepare-chain-transfer';
import { recordChainTransfer, walletSigner } from '@/lib/transactions/record-chain-transfer';
import type { RecordedTransfer } from '@/lib/transactions/record-transfer';
import { allowanceForPayment, pinNeededWhenRefused } from '@/lib/allowances/allowance-for-payment';
import { recordAllowanceUse } from '@/lib/allowances/record-allowance-use';

export interface BalancePayment {
  transferId: string;
  txHash: string;
}

export async function payFromBalance(
  input: { userId: string; chargeId: string; pin?: string },
  options: SolanaRpcOptions = {},
): Promise<BalancePayment> {
  // No PIN: only within a spending allowance (else 403 step_up_required, and the form asks for the PIN).
  const allowanceId = input.pin === undefined ? await allowanceForPayment(input) : undefined;
  if (input.pin !== undefined) await verifyPinStepUp({ userId: input.userId, pin: input.pin, attempt: { action: 'balance_payment' } });
  const signed = await signBalancePayment({ ...input, allowanceId }, options).catch((error: unknown) => {
    throw allowanceId ? pinNeededWhenRefused(error) : error;
  });
  if (signed.isNew) await submitTransfer(signed.recorded, options);
  return { transferId: signed.transferId, txHash: signed.txHash };
}

/** Step 1 (exported for the crash test): check, read the chain, then lock, re-check and record — nothing leaves the server yet. */
export async function signBalancePayment(
  input: {
    userId: string;
    chargeId: string;
    allowanceId?: string;
  },
  options: SolanaRpcOptions = {},
): Promise<BalancePayment & { isNew: boolean; recorded: RecordedTransfer }> {
  // Outside any transaction: the checks a request can fail fast on, and the chain reads (no RPC call waits under a lock).
  const checked = await checkPayable(getDb(), input);
  if ('existing' in checked) return checked.existing;
  const { charge, wallet, deposit } = checked;
  const token = tokenOfCharge(charge);
  const prepared = await prepareChainTransfer(
    {
      chain: charge.chain as ChainName,
      from: wallet.address,
      spend: { token, amount: charge.totalBaseUnits, recipient: deposit.address },
      gasSponsored: true,
    },
    options,
  );
  assertHolds(prepared, charge);

  return getDb().transaction(async (tx) => {
    const locked = await checkPayable(tx, input, { lock: true });
    if ('existing' in locked) return locked.existing;
    // One payment method at a time: no swap or card payment of this charge may be in flight.
    await assertNoOtherPaymentInFlight(tx, charge.id, 'balance');
    const recorded = await recordChainTransfer(tx, {
      prepared,
      signer: () => walletSigner(wallet),
      purpose: 'balance_payment',
      authorization: {
        authority: input.allowanceId
          ? { kind: 'payer_allowance', userId: input.userId, allowanceId: input.allowanceId }
          : { kind: 'payer_pin', userId: input.userId },
        destination: { class: 'charge_deposit' },
      },
      chargeId: charge.id,
      gasSponsor: { userId: input.userId },
      senderLabel: 'Your wallet',
    });
    const { id: transferId, txHash } = recorded.transfer;
    await recordAllowanceUse(tx, { chargeId: charge.id, allowanceId: input.allowanceId ?? null });
    await recordChargeEvent(tx, {
      chargeId: charge.id,
      fromStatus: locked.charge.status,
      toStatus: locked.charge.status,
      actor: `user:${input.userId}`,
      type: 'charge.payment_submitted',
      data: { method: 'balance', txHash, from: wallet.address },
    });
    return { transferId, txHash, isNew: true, recorded };
  });
}

type Payable =
  | { charge: ChargeRow; wallet: typeof wallets.$inferSelect; deposit: typeof depositAddresses.$inferSelect }
  | { existing: BalancePayment & { isNew: false; recorded: RecordedTransfer } };

/** The charge must be pending and unexpired, and not already being paid (the same payer gets their payment back). The wallet is the consumer's one of the charge's chain family. */
async function checkPayable(db: DbOrTx, input: { userId: string; chargeId: string }, options: { lock?: boolean } = {}): Promise<Payable> {
  const query = db.select().from(charges).where(eq(charges.id, input.chargeId));
  const [charge] = options.lock ? await query.for('update') : await query;
  if (!charge) throw new AppError('not_found', `No charge ${input.chargeId}.`);
  const chain = CHAINS[charge.chain as ChainName];
  const [wallet] = await db
    .select()
    .from(wallets)
    .where(and(eq(wallets.userId, input.userId), eq(wallets.family, chain.family)));
  if (!wallet) throw new AppError('charge_not_payable', `Your account has no ${chain.displayName} wallet to pay from.`);
  const [existing] = await db
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
    if (existing.fromAddress === wallet.address) {
      return {
        existing: { transferId: existing.id, txHash: existing.txHash, isNew: false, recorded: { transfer: existing, replayed: true } },
      };
    }
    throw new AppError('charge_not_payable', 'This charge is already being paid.');
  }
  if (charge.status !== 'pending' || charge.expiresAt <= new Date()) {
    throw new AppError(
      'charge_not_payable',
      `This charge is ${charge.status === 'pending' ? 'expired' : charge.status} and cannot be paid.`,
    );
  }
  const [deposit] = await db.select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
  if (!deposit) throw new AppError('chain_unavailable', `${chain.displayName} is not reachable right now. Try again shortly.`);
  return { charge, wallet, deposit };
}

/** The friendly "top up" answer before the engine's own check (which also counts what is in flight). */
function assertHolds(prepared: ChainPreparedTransfer, charge: ChargeRow): void {
  const token = prepared.spend.token;
  const native = isSolanaPrepared(prepared) ? prepared.sender.lamports : prepared.sender.nativeBalance;
  const balance = token.isNative ? native : (prepared.sender.tokenBalance ?? 0n);
  if (balance < charge.totalBaseUnits) {
    throw new AppError(
      'insufficient_balance',
      `Your wallet holds ${formatAmount(balance, token.decimals)} ${token.symbol} on ${CHAINS[prepared.chain].displayName}; this charge needs ${formatAmount(charge.totalBaseUnits, token.decimals)}. Top up first.`,
    );
  }
}
