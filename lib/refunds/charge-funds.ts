/**
 * Where a charge's money is now, in its token, from the records: what it received (every confirmed
 * payment, over- and late payments included), what was refunded, and where the rest sits — still at the
 * deposit address, swept to the merchant wallet, or gone to an external toAddress (direct transfer,
 * deliver-to-wallet). Refunds read it to decide what they may pay and from where.
 */
import { and, eq, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { depositAddresses, outboundTransfers, payments, refunds, type ChargeRow } from '@/lib/db/schema';

export interface ChargeFunds {
  received: bigint;
  /** Refunds not failed (in flight or done). */
  refunded: bigint;
  /** received − refunded. */
  refundable: bigint;
  depositAddress: string | undefined;
  /** Still at the deposit address: received − sweeps (sent or in flight) − refunds paid from there. */
  atDeposit: bigint;
  /** Swept to the merchant wallet and confirmed there, minus refunds paid from the merchant wallet. */
  inMerchantWallet: bigint;
  /** Sweeps to the merchant wallet not yet confirmed: there in a minute. */
  onTheWayToMerchantWallet: bigint;
  /** Swept to an external address: out of Chargeport's hands. */
  leftTheService: bigint;
  /** The distinct senders of the confirmed payments. */
  payers: string[];
}

export async function chargeFunds(db: DbOrTx, charge: ChargeRow): Promise<ChargeFunds> {
  const [deposit] = await db
    .select({ address: depositAddresses.address })
    .from(depositAddresses)
    .where(eq(depositAddresses.chargeId, charge.id));
  const [received] = await db
    .select({
      total: sql<string>`coalesce(sum(${payments.amountBaseUnits}), 0)::text`,
      payers: sql<string[]>`coalesce(array_agg(distinct ${payments.fromAddress}), '{}')`,
    })
    .from(payments)
    .where(and(eq(payments.chargeId, charge.id), eq(payments.status, 'confirmed')));
  const sweeps = await db
    .select({ status: outboundTransfers.status, amount: outboundTransfers.amountBaseUnits })
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chargeId, charge.id), eq(outboundTransfers.purpose, 'sweep'), ne(outboundTransfers.status, 'failed')));
  const refundRows = await db
    .select({ source: refunds.source, amount: refunds.amountBaseUnits })
    .from(refunds)
    .innerJoin(outboundTransfers, eq(outboundTransfers.id, refunds.transferId))
    .where(and(eq(refunds.chargeId, charge.id), ne(outboundTransfers.status, 'failed')));

  const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);
  const total = BigInt(received?.total ?? '0');
  const swept = sum(sweeps.map((s) => s.amount));
  const sweptConfirmed = sum(sweeps.filter((s) => s.status === 'confirmed').map((s) => s.amount));
  const fromDeposit = sum(refundRows.filter((r) => r.source === 'deposit_address').map((r) => r.amount));
  const fromWallet = sum(refundRows.filter((r) => r.source === 'merchant_wallet').map((r) => r.amount));
  const refunded = fromDeposit + fromWallet;
  const toMerchant = charge.toAddress === null;
  return {
    received: total,
    refunded,
    refundable: total - refunded,
    depositAddress: deposit?.address,
    atDeposit: total - swept - fromDeposit,
    inMerchantWallet: toMerchant ? sweptConfirmed - fromWallet : 0n,
    onTheWayToMerchantWallet: toMerchant ? swept - sweptConfirmed : 0n,
    leftTheService: toMerchant ? 0n : swept,
    payers: received?.payers ?? [],
  };
}
