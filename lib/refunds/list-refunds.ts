/** Reading refunds: one (getRefund) or a charge's (listRefunds), scoped by merchant and mode, with their status read from their transfer. */
import { and, asc, eq } from 'drizzle-orm';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, outboundTransfers, refunds, type ApiKeyMode, type OutboundTransferRow, type RefundRow } from '@/lib/db/schema';
import { AppError, inputExcerpt } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { chargeFunds } from './charge-funds';
import type { RefundList, RefundResource } from './schemas';
import { refundStatusOf } from './refund-status-of';

/** A refund on the wire; `transfer` is null while a claim link waits for (or expired without) its payer. */
export function serializeRefund(row: RefundRow, transfer: OutboundTransferRow | null): RefundResource {
  const chain = CHAINS[row.chain as ChainName];
  const token = chain.tokens.find((t) => t.address.toLowerCase() === row.tokenAddress.toLowerCase());
  const decimals = token?.decimals ?? 18;
  const status = refundStatusOf({ claimStatus: row.claimStatus, transferStatus: transfer?.status ?? null });
  const sent = !!transfer && transfer.status !== 'signed';
  const timeline: RefundResource['timeline'] = [];
  if (row.claimStatus) timeline.push({ status: 'awaiting_claim', at: row.createdAt.toISOString() });
  if (row.claimStatus === 'expired') timeline.push({ status: 'expired', at: (row.claimExpiresAt ?? row.createdAt).toISOString() });
  if (transfer) timeline.push({ status: 'pending', at: transfer.createdAt.toISOString() });
  if (transfer && sent)
    timeline.push({
      status: 'submitted',
      at: (transfer.lastBroadcastAt ?? transfer.updatedAt).toISOString(),
      transactionHash: transfer.txHash,
    });
  if (transfer && (status === 'succeeded' || status === 'failed'))
    timeline.push({ status, at: transfer.updatedAt.toISOString(), transactionHash: transfer.txHash });
  return {
    id: row.id,
    object: 'refund',
    chargeId: row.chargeId,
    mode: row.mode,
    status,
    chain: chain.name,
    token: { symbol: token?.symbol ?? '?', address: row.tokenAddress, decimals },
    amount: formatAmount(row.amountBaseUnits, decimals),
    amountBaseUnits: row.amountBaseUnits.toString(),
    destination: row.destination,
    source: row.source,
    claimExpiresAt: row.claimStatus === 'awaiting_claim' ? (row.claimExpiresAt?.toISOString() ?? null) : null,
    reason: row.reason,
    transactionHash: sent ? transfer.txHash : null,
    failureReason: status === 'failed' ? (transfer?.error ?? null) : null,
    timeline,
    createdAt: row.createdAt.toISOString(),
  };
}

export async function getRefund(
  db: DbOrTx,
  input: { merchantId: string; mode: ApiKeyMode; refundId: string },
): Promise<RefundResource | undefined> {
  const [row] = await db
    .select({ refund: refunds, transfer: outboundTransfers })
    .from(refunds)
    .leftJoin(outboundTransfers, eq(outboundTransfers.id, refunds.transferId))
    .where(and(eq(refunds.id, input.refundId), eq(refunds.merchantId, input.merchantId), eq(refunds.mode, input.mode)));
  return row ? serializeRefund(row.refund, row.transfer) : undefined;
}

/** A charge's refunds, oldest first, and what can still be refunded. */
export async function listRefunds(
  input: { merchantId: string; mode: ApiKeyMode; chargeId: string },
  db: DbOrTx = getDb(),
): Promise<RefundList> {
  const [charge] = await db
    .select()
    .from(charges)
    .where(and(eq(charges.id, input.chargeId), eq(charges.merchantId, input.merchantId), eq(charges.mode, input.mode)));
  if (!charge) throw new AppError('not_found', `No charge ${inputExcerpt(input.chargeId)}.`, { param: 'chargeId' });
  const rows = await db
    .select({ refund: refunds, transfer: outboundTransfers })
    .from(refunds)
    .leftJoin(outboundTransfers, eq(outboundTransfers.id, refunds.transferId))
    .where(eq(refunds.chargeId, charge.id))
    .orderBy(asc(refunds.createdAt));
  const funds = await chargeFunds(db, charge);
  return {
    object: 'list',
    data: rows.map((row) => serializeRefund(row.refund, row.transfer)),
    refundable: { amount: formatAmount(funds.refundable, charge.tokenDecimals), amountBaseUnits: funds.refundable.toString() },
  };
}
