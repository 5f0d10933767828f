/**
 * What a spending allowance has paid in the last 24 hours (ADR 0034): the sum of its live balance payments,
 * read from the transfers themselves (outbound_transfers.authority names the allowance), so nothing can
 * record a payment under an allowance without it counting. A failed payment no longer counts: it moved nothing.
 */
import { and, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { outboundTransfers, wallets } from '@/lib/db/schema';

/** The window "per day" means: a rolling 24 hours, so no midnight lets twice the amount through. */
const ALLOWANCE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** How a payment under an allowance is written on its transfer (outbound_transfers.authority). */
export function allowanceAuthority(allowanceId: string, userId: string): string {
  return `payer_allowance:${allowanceId}@${userId}`;
}

export async function allowanceSpent(tx: DbOrTx, input: { allowanceId: string; userId: string; now?: Date }): Promise<bigint> {
  const since = new Date((input.now ?? new Date()).getTime() - ALLOWANCE_WINDOW_MS);
  // By the sender first (the user's own wallets, outbound_transfers_from_idx), then the authority.
  const [row] = await tx
    .select({ total: sql<string>`coalesce(sum(${outboundTransfers.amountBaseUnits}), 0)::text` })
    .from(outboundTransfers)
    .where(
      and(
        inArray(
          outboundTransfers.fromAddress,
          tx.select({ address: wallets.address }).from(wallets).where(eq(wallets.userId, input.userId)),
        ),
        eq(outboundTransfers.authority, allowanceAuthority(input.allowanceId, input.userId)),
        ne(outboundTransfers.status, 'failed'),
        gt(outboundTransfers.createdAt, since),
      ),
    );
  return BigInt(row?.total ?? '0');
}
