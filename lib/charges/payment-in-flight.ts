/**
 * "A payment of this charge is in flight" — the one definition that expiry, cancel, the checkout and
 * the start of every payment method use. A payment is in flight from the moment the service has
 * committed to it (a signed transfer, a signed swap, a fiat order handed to a provider) until the
 * chain watcher has counted what it delivered, or it has failed:
 *
 *  - balance: an `outbound_transfers` row of purpose `balance_payment`, `signed`, `broadcast` or `included` — or
 *    `confirmed` while the watcher has not yet recorded its transaction as a payment of the charge;
 *  - swap: a `swap_executions` row, `signed` or `broadcast` — or `confirmed` and not yet counted; and an
 *    on-ramp order of purpose `swap_funding` as for fiat below, or `completed` while no swap of the
 *    charge has taken over its USDC (the conversion job is about to swap it);
 *  - fiat: an `onramp_orders` row of purpose `charge_payment`, `created` (until its start window
 *    closes) or `pending` (the provider has the money) — or `completed` while its delivery transaction
 *    has not yet been counted; of purpose `charge_minimum` (the provider's minimum, delivered to the
 *    buyer's wallet), likewise, and `completed` until its balance payment of the charge is recorded (from
 *    then on that payment is the one in flight) or it has given up (`charge_payment_error`).
 *
 * While one is in flight: expiry waits (at most IN_FLIGHT_HOLD_MS past expiresAt), cancel is refused,
 * the checkout shows no way to pay, and no other payment method may start (one method at a time). Each
 * check runs after the charge's row lock is taken, so a method that commits its row under that lock is
 * always seen by the next holder.
 */
import { and, eq, exists, gt, inArray, isNotNull, isNull, notExists, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { charges, onrampOrders, onrampProviders, outboundTransfers, payments, swapExecutions, type ChargeRow } from '@/lib/db/schema';
import { AppError, inputExcerpt } from '@/lib/errors';
import { fundingOf } from './funding';

/** The ways a payer can pay a charge that the service itself carries out (a plain wallet transfer is not one). */
export type PaymentMethod = 'balance' | 'swap' | 'fiat';

/**
 * How long past its expiresAt a payment in flight may keep a charge open. Longer than any transfer or
 * card purchase should take; shorter than the 24 h the deposit address stays watched, so a payment that
 * lands after a forced expiry is still recorded (as late, for refund) rather than missed.
 */
export const IN_FLIGHT_HOLD_MS = 6 * 60 * 60 * 1000;

export interface PaymentInFlight {
  method: PaymentMethod;
  /** The row: outbound transfer, swap execution or on-ramp order id. */
  id: string;
  status: string;
  txHash: string | null;
  /** The on-ramp provider's name (fiat orders and swap funding orders). */
  providerName: string | null;
  /** When an unstarted (`created`) order stops counting. */
  openUntil: Date | null;
  /** The provider's payment screen of an unstarted order, to go back to it. */
  resumeUrl: string | null;
  startedAt: Date;
}

type ChargeRef = AnyColumn | string;

/** The transaction `txHash` has not yet been recorded as a payment of the charge (the watcher is behind). */
function notCounted(chargeId: AnyColumn, txHash: AnyColumn): SQL {
  return notExists(
    sql`(select 1 from ${payments} where ${payments.chargeId} = ${chargeId} and lower(${payments.txHash}) = lower(${txHash}))`,
  );
}

function balanceCondition(chargeId: ChargeRef): SQL {
  return and(
    eq(outboundTransfers.chargeId, chargeId),
    eq(outboundTransfers.purpose, 'balance_payment'),
    or(
      inArray(outboundTransfers.status, ['signed', 'broadcast', 'included']),
      and(eq(outboundTransfers.status, 'confirmed'), notCounted(outboundTransfers.chargeId, outboundTransfers.txHash)),
    ),
  )!;
}

function swapCondition(chargeId: ChargeRef): SQL {
  return and(
    eq(swapExecutions.chargeId, chargeId),
    or(
      inArray(swapExecutions.status, ['signed', 'broadcast']),
      and(eq(swapExecutions.status, 'confirmed'), notCounted(swapExecutions.chargeId, swapExecutions.swapTxHash)),
    ),
  )!;
}

function orderCondition(chargeId: ChargeRef, now: Date): SQL {
  return and(
    eq(onrampOrders.chargeId, chargeId),
    inArray(onrampOrders.purpose, ['charge_payment', 'swap_funding', 'charge_minimum']),
    or(
      eq(onrampOrders.status, 'pending'),
      and(eq(onrampOrders.status, 'created'), gt(onrampOrders.expiresAt, now)),
      and(
        eq(onrampOrders.status, 'completed'),
        eq(onrampOrders.purpose, 'charge_payment'),
        isNotNull(onrampOrders.deliveryTxHash),
        notCounted(onrampOrders.chargeId, onrampOrders.deliveryTxHash),
      ),
      and(
        eq(onrampOrders.status, 'completed'),
        eq(onrampOrders.purpose, 'charge_minimum'),
        isNull(onrampOrders.chargeTransferId),
        isNull(onrampOrders.chargePaymentError),
      ),
      and(
        eq(onrampOrders.status, 'completed'),
        eq(onrampOrders.purpose, 'swap_funding'),
        notExists(
          sql`(select 1 from ${swapExecutions} where ${swapExecutions.chargeId} = ${onrampOrders.chargeId} and ${swapExecutions.status} <> 'failed')`,
        ),
      ),
    ),
  )!;
}

/** SQL: the charge `chargeId` (a column, for set-based queries such as the expiry sweep) has a payment in flight. */
export function paymentInFlightExists(chargeId: AnyColumn, now: Date): SQL {
  return or(
    exists(sql`(select 1 from ${outboundTransfers} where ${balanceCondition(chargeId)})`),
    exists(sql`(select 1 from ${swapExecutions} where ${swapCondition(chargeId)})`),
    exists(sql`(select 1 from ${onrampOrders} where ${orderCondition(chargeId, now)})`),
  )!;
}

/** The charge's payments in flight, oldest first. Call it after taking the charge's row lock. */
export async function findPaymentsInFlight(tx: DbOrTx, chargeId: string, now = new Date()): Promise<PaymentInFlight[]> {
  const [balance, swaps, orders] = await Promise.all([
    tx
      .select({
        id: outboundTransfers.id,
        status: outboundTransfers.status,
        txHash: outboundTransfers.txHash,
        at: outboundTransfers.createdAt,
      })
      .from(outboundTransfers)
      .where(balanceCondition(chargeId)),
    tx
      .select({ id: swapExecutions.id, status: swapExecutions.status, txHash: swapExecutions.swapTxHash, at: swapExecutions.createdAt })
      .from(swapExecutions)
      .where(swapCondition(chargeId)),
    tx
      .select({
        id: onrampOrders.id,
        purpose: onrampOrders.purpose,
        status: onrampOrders.status,
        txHash: onrampOrders.deliveryTxHash,
        providerName: onrampProviders.displayName,
        expiresAt: onrampOrders.expiresAt,
        checkoutUrl: onrampOrders.checkoutUrl,
        at: onrampOrders.createdAt,
      })
      .from(onrampOrders)
      .innerJoin(onrampProviders, eq(onrampProviders.id, onrampOrders.providerId))
      .where(orderCondition(chargeId, now)),
  ]);
  const found: PaymentInFlight[] = [
    ...balance.map((row) => ({
      method: 'balance' as const,
      id: row.id,
      status: row.status,
      txHash: row.txHash,
      providerName: null,
      openUntil: null,
      resumeUrl: null,
      startedAt: row.at,
    })),
    ...swaps.map((row) => ({
      method: 'swap' as const,
      id: row.id,
      status: row.status,
      txHash: row.txHash,
      providerName: null,
      openUntil: null,
      resumeUrl: null,
      startedAt: row.at,
    })),
    ...orders.map((row) => ({
      method: row.purpose === 'swap_funding' ? ('swap' as const) : ('fiat' as const),
      id: row.id,
      status: row.status,
      txHash: row.txHash,
      providerName: row.providerName,
      openUntil: row.status === 'created' ? row.expiresAt : null,
      resumeUrl: row.status === 'created' ? row.checkoutUrl : null,
      startedAt: row.at,
    })),
  ];
  return found.sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
}

function utcTime(at: Date): string {
  return `${at.toISOString().slice(11, 16)} UTC`;
}

/** What is being paid, in the payer's and the merchant's words. */
export function describePaymentInFlight(payment: PaymentInFlight): string {
  switch (payment.method) {
    case 'balance':
      return `A payment from a Chargeport balance is being processed for this charge${payment.txHash ? ` (transaction ${payment.txHash})` : ''}`;
    case 'swap':
      return payment.providerName
        ? `A ${payment.providerName} purchase of funds to swap into this charge's token is being processed`
        : `A swap paying this charge is being processed${payment.txHash ? ` (transaction ${payment.txHash})` : ''}`;
    case 'fiat':
      return payment.status === 'created'
        ? `A card or bank payment through ${payment.providerName} was started for this charge at ${utcTime(payment.startedAt)}`
        : `A card or bank payment through ${payment.providerName} is being processed for this charge`;
  }
}

/** What happens next, for the same sentence: when the charge completes, or when another way opens again. */
export function nextStepOf(payment: PaymentInFlight): string {
  if (payment.openUntil) {
    return `Finish it in ${payment.providerName}'s window; if it is not paid by ${utcTime(payment.openUntil)}, it lapses and the charge can be paid another way.`;
  }
  return 'The charge completes when the funds arrive; if this payment fails, the charge can be paid another way.';
}

/**
 * Refuses to start `method` while a payment of another method is in flight (409 payment_in_progress),
 * and refuses any new start while a provider already holds the payer's money (an on-ramp order
 * `pending`). A second start of the same method is that method's own business (each returns its
 * first transfer or refuses on its own terms). The caller holds the charge's row lock.
 */
export async function assertNoOtherPaymentInFlight(tx: DbOrTx, chargeId: string, method: PaymentMethod, now = new Date()): Promise<void> {
  const blocking = (await findPaymentsInFlight(tx, chargeId, now)).find(
    (payment) => payment.method !== method || (payment.providerName !== null && payment.status === 'pending'),
  );
  if (blocking) {
    throw new AppError('payment_in_progress', `${describePaymentInFlight(blocking)}. ${nextStepOf(blocking)}`, { param: 'chargeId' });
  }
}

/**
 * For a method that records its start outside the charge's own verbs (an on-ramp order): locks the
 * charge row, checks it can still be paid (pending, or processing with something still due; not
 * expired) and that no other method is in flight. The lock lasts until the caller's transaction ends.
 */
export async function lockChargeForPayment(tx: DbOrTx, chargeId: string, method: PaymentMethod, now = new Date()): Promise<ChargeRow> {
  const [charge] = await tx.select().from(charges).where(eq(charges.id, chargeId)).for('update');
  if (!charge) throw new AppError('not_found', `No charge ${inputExcerpt(chargeId)}.`, { param: 'chargeId' });
  if ((charge.status !== 'pending' && charge.status !== 'processing') || charge.expiresAt <= now) {
    const status = charge.status === 'pending' || charge.status === 'processing' ? 'expired' : charge.status;
    throw new AppError('charge_not_payable', `This charge is ${status} and cannot be paid.`, { param: 'chargeId' });
  }
  if (charge.status === 'processing') {
    const { seen } = fundingOf(await tx.select().from(payments).where(eq(payments.chargeId, chargeId)));
    if (seen >= charge.totalBaseUnits) throw new AppError('charge_not_payable', 'This charge has already received its full amount.');
  }
  await assertNoOtherPaymentInFlight(tx, chargeId, method, now);
  return charge;
}
