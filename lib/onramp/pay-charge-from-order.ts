/**
 * A card payment below the provider's minimum (ADR 0019): the checkout's order bought the minimum and the
 * provider delivered it to the buyer's own service wallet. Once that delivery is confirmed on chain (the
 * wallet indexer's record of its transaction, at the chain's depth), the charge is paid from it through
 * the transaction engine — a balance payment of the amount still due, from that wallet to the charge's
 * deposit address — and the rest stays in the buyer's balance.
 *
 * No PIN: the order itself is the authorization. The buyer confirmed on the checkout, before buying,
 * that this purchase pays this charge; the payment spends only what this order delivered, only for this
 * charge, and only once:
 *  - the payment is recorded (`recordTransfer`, idempotency id = the order) in the same transaction that
 *    sets `charge_transfer_id` on the order, under the order's and the charge's row locks;
 *  - the charge has at most one live balance payment (the engine's partial unique index);
 *  - a crash after commit leaves a `signed` transfer that the reconciler broadcasts.
 * When the charge can no longer be paid (it expired, or was paid another way), nothing is sent: the order
 * records why and the tokens stay in the buyer's balance.
 *
 * Solana: no incoming-transfer indexer watches the Solana wallets, so the delivery is read from the cluster
 * itself — the provider's transaction, finalized, and what it added to the buyer's wallet (its SOL, or its
 * token accounts of the mint). The payment then goes through the same engine, the gas tank as fee payer.
 */
import { signature as solanaSignature } from '@solana/kit';
import { and, eq, inArray, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { CHAIN_NAMES, CHAINS, type ChainName } from '@/lib/chains/registry';
import { resolveSolanaRpc, type SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { crashPoint } from '@/lib/crash-points';
import { getDb, type DbOrTx } from '@/lib/db/client';
import {
  charges,
  depositAddresses,
  onrampOrderEvents,
  onrampOrders,
  outboundTransfers,
  payments,
  walletIncomingTransfers,
  wallets,
  type OnrampOrderRow,
} from '@/lib/db/schema';
import { isAppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { formatAmount } from '@/lib/money';
import { fundingOf } from '@/lib/charges/funding';
import { submitTransfer } from '@/lib/transactions/broadcast-transfer';
import { prepareChainTransfer } from '@/lib/transactions/prepare-chain-transfer';
import { recordChainTransfer, walletSigner } from '@/lib/transactions/record-chain-transfer';
import type { RecordedTransfer } from '@/lib/transactions/record-transfer';
import { emitPaymentFailed } from '@/lib/charges/charge-events';

export type OrderPaymentOutcome = 'submitted' | 'not_delivered' | 'not_payable' | 'busy';

/** Completed charge_minimum orders whose delivery is confirmed on chain and that have not paid their charge yet. */
async function ordersReadyToPay(limit = 20): Promise<string[]> {
  const rows = await getDb()
    .select({ id: onrampOrders.id })
    .from(onrampOrders)
    .where(
      and(
        eq(onrampOrders.purpose, 'charge_minimum'),
        eq(onrampOrders.status, 'completed'),
        isNull(onrampOrders.chargeTransferId),
        isNull(onrampOrders.chargePaymentError),
        or(
          sql`exists (select 1 from ${walletIncomingTransfers} w where lower(w.tx_hash) = lower(${onrampOrders.deliveryTxHash})
          and w.to_address = ${onrampOrders.walletAddress} and w.status = 'confirmed')`,
          // Solana deliveries are read from the cluster (see the header).
          and(inArray(onrampOrders.chain, SOLANA_CHAINS), isNotNull(onrampOrders.deliveryTxHash)),
        ),
      ),
    )
    .orderBy(onrampOrders.updatedAt)
    .limit(limit);
  return rows.map((row) => row.id);
}

const SOLANA_CHAINS = CHAIN_NAMES.filter((chain) => CHAINS[chain].family === 'solana');

/** The scheduler's entry point. Returns how many charges were paid. */
export async function payChargesFromDeliveredOrders(options: SolanaRpcOptions = {}): Promise<number> {
  let paid = 0;
  for (const orderId of await ordersReadyToPay()) {
    try {
      if ((await payChargeFromOrder(orderId, options)) === 'submitted') paid++;
    } catch (error) {
      log.warn('paying a charge from its on-ramp delivery failed; tried again on the next pass', { orderId, error });
    }
  }
  return paid;
}

export async function payChargeFromOrder(orderId: string, options: SolanaRpcOptions = {}): Promise<OrderPaymentOutcome> {
  const step = await recordOrderPayment(orderId, options);
  if (step.recorded) await submitTransfer(step.recorded, { waitForGasMs: 0, ...options });
  return step.outcome;
}

/** Step 1: check, read the chain, then record under the locks (nothing is broadcast here). */
async function recordOrderPayment(
  orderId: string,
  options: SolanaRpcOptions,
): Promise<{ outcome: OrderPaymentOutcome; recorded?: RecordedTransfer }> {
  const [order] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, orderId));
  if (
    !order ||
    order.purpose !== 'charge_minimum' ||
    !order.chargeId ||
    !order.userId ||
    order.chargeTransferId ||
    order.chargePaymentError
  )
    return { outcome: 'busy' };
  const delivered =
    CHAINS[order.chain as ChainName].family === 'solana'
      ? await solanaDeliveredAmount(order, options)
      : await deliveredAmount(getDb(), order);
  if (delivered === 0n) {
    // A Solana order is picked by its chain, not by an indexed delivery: to the back of the queue, so orders
    // whose delivery never finalizes cannot hold up the others.
    if (CHAINS[order.chain as ChainName].family === 'solana')
      await getDb().update(onrampOrders).set({ updatedAt: new Date() }).where(eq(onrampOrders.id, order.id));
    return { outcome: 'not_delivered' };
  }
  const [charge] = await getDb().select().from(charges).where(eq(charges.id, order.chargeId));
  const [wallet] = await getDb()
    .select()
    .from(wallets)
    .where(and(eq(wallets.userId, order.userId), eq(wallets.address, order.walletAddress)));
  const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, order.chargeId));
  if (!charge || !wallet || !deposit) return { outcome: await giveUp(order, 'The charge or the buyer’s wallet is missing.') };
  const token = tokenOfCharge(charge);
  const due = await dueOf(getDb(), charge.id, charge.totalBaseUnits);
  const refusal = payableRefusal(charge, due, delivered, token);
  if (refusal) return { outcome: await giveUp(order, refusal) };

  const prepared = await prepareChainTransfer(
    {
      chain: charge.chain as ChainName,
      from: wallet.address,
      spend: { token, amount: due, recipient: deposit.address },
      gasSponsored: true,
    },
    options,
  );
  try {
    return await getDb().transaction(async (tx) => {
      const [locked] = await tx.select().from(onrampOrders).where(eq(onrampOrders.id, orderId)).for('update', { skipLocked: true });
      if (!locked || locked.chargeTransferId || locked.chargePaymentError) return { outcome: 'busy' as const };
      const [current] = await tx.select().from(charges).where(eq(charges.id, charge.id)).for('update');
      const dueNow = await dueOf(tx, charge.id, charge.totalBaseUnits);
      const late = payableRefusal(current!, dueNow, delivered, token) ?? (dueNow !== due ? 'What is due changed meanwhile.' : undefined);
      const [other] = await tx
        .select({ id: outboundTransfers.id })
        .from(outboundTransfers)
        .where(
          and(
            eq(outboundTransfers.chargeId, charge.id),
            eq(outboundTransfers.purpose, 'balance_payment'),
            inArray(outboundTransfers.status, ['signed', 'broadcast', 'included', 'confirmed']),
          ),
        );
      if (late || other) return { outcome: await giveUp(locked, late ?? 'The charge is already being paid from a balance.', tx) };
      const recorded = await recordChainTransfer(tx, {
        prepared,
        signer: () => walletSigner(wallet),
        purpose: 'balance_payment',
        // No PIN: the order the buyer confirmed on the checkout is the authority (see the header).
        authorization: { authority: { kind: 'system', job: 'order_delivery' }, destination: { class: 'charge_deposit' } },
        chargeId: charge.id,
        gasSponsor: { userId: order.userId! },
        idempotency: { scope: 'onramp-order-payment', key: order.id },
        senderLabel: 'Your wallet',
      });
      await tx.update(onrampOrders).set({ chargeTransferId: recorded.transfer.id }).where(eq(onrampOrders.id, order.id));
      await tx.insert(onrampOrderEvents).values({
        id: newId('onrampOrderEvent'),
        orderId: order.id,
        fromStatus: 'completed',
        toStatus: 'completed',
        source: 'system:charge-payment',
        data: { paidCharge: charge.id, amountBaseUnits: due.toString(), txHash: recorded.transfer.txHash },
      });
      await recordChargeEvent(tx, {
        chargeId: charge.id,
        fromStatus: current!.status,
        toStatus: current!.status,
        actor: `user:${order.userId}`,
        type: 'charge.payment_submitted',
        data: { method: 'fiat_minimum', orderId: order.id, txHash: recorded.transfer.txHash, from: wallet.address },
      });
      crashPoint('onramp.order_payment_recording');
      return { outcome: 'submitted' as const, recorded };
    });
  } catch (error) {
    // The engine refused (the gas tank's caps, say): retried on the next pass.
    if (isAppError(error)) log.warn('balance payment from an on-ramp delivery refused; retried', { orderId, error: error.message });
    throw error;
  }
}

/** What the order's delivery transaction brought to the buyer's wallet, confirmed. */
async function deliveredAmount(db: DbOrTx, order: OnrampOrderRow): Promise<bigint> {
  if (!order.deliveryTxHash) return 0n;
  const [row] = await db
    .select({ total: sql<string>`coalesce(sum(${walletIncomingTransfers.amountBaseUnits}), 0)::text` })
    .from(walletIncomingTransfers)
    .where(
      and(
        sql`lower(${walletIncomingTransfers.txHash}) = lower(${order.deliveryTxHash})`,
        eq(walletIncomingTransfers.toAddress, order.walletAddress),
        sql`lower(${walletIncomingTransfers.tokenAddress}) = lower(${order.tokenAddress})`,
        eq(walletIncomingTransfers.status, 'confirmed'),
      ),
    );
  return BigInt(row?.total ?? '0');
}

/**
 * Solana: what the order's delivery transaction added to the buyer's wallet, once finalized (0 before, or
 * when the cluster cannot be read: the next pass looks again). SOL by the wallet's lamports; a token by
 * the wallet's token accounts of the mint (pre → post).
 */
async function solanaDeliveredAmount(order: OnrampOrderRow, options: SolanaRpcOptions): Promise<bigint> {
  const rpc = resolveSolanaRpc(order.chain as ChainName, options);
  if (!order.deliveryTxHash || !rpc) return 0n;
  const transaction = await rpc
    .getTransaction(solanaSignature(order.deliveryTxHash), { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 })
    .send()
    .catch(() => null);
  const meta = transaction?.meta;
  if (!transaction || !meta || meta.err !== null) return 0n;
  const token = CHAINS[order.chain as ChainName].tokens.find((t) => t.address === order.tokenAddress);
  if (!token) return 0n;
  let added: bigint;
  if (token.isNative) {
    const index = transaction.transaction.message.accountKeys.indexOf(order.walletAddress as never);
    if (index === -1) return 0n;
    added = BigInt(meta.postBalances[index] ?? 0n) - BigInt(meta.preBalances[index] ?? 0n);
  } else {
    const mine = (balances: typeof meta.postTokenBalances) =>
      (balances ?? [])
        .filter((b) => b.mint === token.address && b.owner === order.walletAddress)
        .reduce((sum, b) => sum + BigInt(b.uiTokenAmount.amount), 0n);
    added = mine(meta.postTokenBalances) - mine(meta.preTokenBalances);
  }
  return added > 0n ? added : 0n;
}

async function dueOf(db: DbOrTx, chargeId: string, total: bigint): Promise<bigint> {
  const { seen } = fundingOf(await db.select().from(payments).where(eq(payments.chargeId, chargeId)));
  return seen >= total ? 0n : total - seen;
}

function payableRefusal(
  charge: { status: string; chain: string },
  due: bigint,
  delivered: bigint,
  token: { symbol: string; decimals: number },
): string | undefined {
  if (charge.status !== 'pending' && charge.status !== 'processing') return `The charge is ${charge.status}.`;
  if (due === 0n) return 'The charge has already received its full amount.';
  if (delivered < due) {
    return `The purchase delivered ${formatAmount(delivered, token.decimals)} ${token.symbol}; the charge needs ${formatAmount(due, token.decimals)}.`;
  }
  return undefined;
}

/** The delivery cannot pay the charge: recorded on the order (the tokens stay in the buyer's balance), `payment.failed` for the merchant. */
async function giveUp(order: OnrampOrderRow, reason: string, db?: DbOrTx): Promise<OrderPaymentOutcome> {
  const run = async (tx: DbOrTx) => {
    const [row] = await tx
      .update(onrampOrders)
      .set({ chargePaymentError: reason })
      .where(and(eq(onrampOrders.id, order.id), isNull(onrampOrders.chargeTransferId), isNull(onrampOrders.chargePaymentError)))
      .returning({ id: onrampOrders.id });
    if (!row || !order.chargeId) return;
    const [charge] = await tx.select({ status: charges.status }).from(charges).where(eq(charges.id, order.chargeId));
    if (charge?.status === 'pending' || charge?.status === 'processing') {
      await emitPaymentFailed(tx, {
        chargeId: order.chargeId,
        attempt: {
          id: order.id,
          method: 'fiat',
          chain: order.chain,
          txHash: order.deliveryTxHash,
          reason: `${reason} The tokens stay in the buyer’s balance.`,
        },
      });
    }
  };
  if (db) await run(db);
  else await getDb().transaction(run);
  log.warn('on-ramp delivery could not pay its charge; the tokens stay in the buyer’s balance', { orderId: order.id, reason });
  return 'not_payable';
}
