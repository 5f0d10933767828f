/**
 * Where a charge's money is now, in its token, from the records: what it received (every confirmed
 * payment, over- and late payments included), what was refunded or is reserved for a claim link, and
 * where the rest sits — still at the deposit address, swept to the merchant wallet, or gone to an
 * external toAddress (direct transfer, deliver-to-wallet). Refunds read it to decide what they may pay,
 * from where, and to whom (the payers).
 */
import { and, eq, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { depositAddresses, onrampOrders, outboundTransfers, payments, refunds, type ChargeRow } from '@/lib/db/schema';
import { refundStatusOf } from './refund-status-of';
import { holdsRefundAmount } from './state';

export interface ChargeFunds {
  received: bigint;
  /** Refunds that hold their amount: in flight, done, or a claim link not yet claimed nor expired. */
  refunded: bigint;
  /** received − refunded. */
  refundable: bigint;
  depositAddress: string | undefined;
  /** Still at the deposit address: received − sweeps (sent or in flight) − refunds paid from there. */
  atDeposit: bigint;
  /** Late payments (never swept) not yet refunded from the deposit: a deposit refund draws on these first (N11). */
  lateAtDeposit: bigint;
  /** Swept to the merchant wallet and confirmed there, minus refunds paid from the merchant wallet. */
  inMerchantWallet: bigint;
  /** Sweeps to the merchant wallet not yet confirmed: there in a minute. */
  onTheWayToMerchantWallet: bigint;
  /** Swept to an external address: out of Chargeport's hands. */
  leftTheService: bigint;
  /**
   * The distinct senders of the confirmed payments that are the payer: not an on-ramp provider that
   * delivered a card payment (its hot wallet is not the buyer), not a credit with an unknown sender.
   */
  payers: string[];
  /** Some confirmed payment's sender is not the payer or is unknown (on-ramp delivery, a balance-change credit). */
  hasSenderNotPayer: boolean;
  /** The signed-in buyers of on-ramp orders that delivered to this charge (a claim link is e-mailed to them). */
  orderBuyerIds: string[];
}

export async function chargeFunds(db: DbOrTx, charge: ChargeRow): Promise<ChargeFunds> {
  const [deposit] = await db
    .select({ address: depositAddresses.address })
    .from(depositAddresses)
    .where(eq(depositAddresses.chargeId, charge.id));
  const received = await db
    .select({
      amount: payments.amountBaseUnits,
      from: payments.fromAddress,
      isLate: payments.isLate,
      // A card or bank payment the provider delivered straight to the deposit address (on-ramp charge_payment).
      orderBuyerId: sql<string | null>`(select o.user_id from ${onrampOrders} o
        where o.charge_id = ${payments.chargeId} and o.purpose = 'charge_payment' and lower(o.delivery_tx_hash) = lower(${payments.txHash}) limit 1)`,
      fromOrder: sql<boolean>`exists (select 1 from ${onrampOrders} o
        where o.charge_id = ${payments.chargeId} and o.purpose = 'charge_payment' and lower(o.delivery_tx_hash) = lower(${payments.txHash}))`,
    })
    .from(payments)
    .where(and(eq(payments.chargeId, charge.id), eq(payments.status, 'confirmed')));
  const sweeps = await db
    .select({ status: outboundTransfers.status, amount: outboundTransfers.amountBaseUnits })
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chargeId, charge.id), eq(outboundTransfers.purpose, 'sweep'), ne(outboundTransfers.status, 'failed')));
  const refundRows = (
    await db
      .select({
        source: refunds.source,
        amount: refunds.amountBaseUnits,
        late: refunds.lateBaseUnits,
        claimStatus: refunds.claimStatus,
        transferStatus: outboundTransfers.status,
      })
      .from(refunds)
      .leftJoin(outboundTransfers, eq(outboundTransfers.id, refunds.transferId))
      .where(eq(refunds.chargeId, charge.id))
  ).filter((r) => holdsRefundAmount(refundStatusOf({ claimStatus: r.claimStatus, transferStatus: r.transferStatus })));

  const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);
  const total = sum(received.map((p) => p.amount));
  const late = sum(received.filter((p) => p.isLate).map((p) => p.amount));
  const swept = sum(sweeps.map((s) => s.amount));
  const sweptConfirmed = sum(sweeps.filter((s) => s.status === 'confirmed').map((s) => s.amount));
  const depositRefunds = refundRows.filter((r) => r.source === 'deposit_address');
  const fromDeposit = sum(depositRefunds.map((r) => r.amount));
  const fromWallet = sum(refundRows.filter((r) => r.source === 'merchant_wallet').map((r) => r.amount));
  // A claim link not yet claimed: no source yet, its amount reserved.
  const reserved = sum(refundRows.filter((r) => r.source === null).map((r) => r.amount));
  const refunded = fromDeposit + fromWallet + reserved;
  const toMerchant = charge.toAddress === null;
  const notPayer = received.filter((p) => p.from === '' || p.fromOrder);
  return {
    received: total,
    refunded,
    refundable: total - refunded,
    depositAddress: deposit?.address,
    atDeposit: total - swept - fromDeposit,
    lateAtDeposit: late - sum(depositRefunds.map((r) => r.late)),
    inMerchantWallet: toMerchant ? sweptConfirmed - fromWallet : 0n,
    onTheWayToMerchantWallet: toMerchant ? swept - sweptConfirmed : 0n,
    leftTheService: toMerchant ? 0n : swept,
    payers: [...new Set(received.filter((p) => !notPayer.includes(p)).map((p) => p.from))],
    hasSenderNotPayer: notPayer.length > 0,
    orderBuyerIds: [...new Set(notPayer.map((p) => p.orderBuyerId).filter((id): id is string => !!id))],
  };
}
