/**
 * Step 2 for a batch of relayed transfers (record-relayed-batch.ts): the rows share one transaction, so it is
 * sent once, and once a node has it every row of the batch says `broadcast`. A send that fails leaves them all
 * `signed` for the reconciler, which sends the same bytes again (a node answering "already known" is a send).
 */
import { and, eq, inArray } from 'drizzle-orm';
import { crashPoint } from '@/lib/crash-points';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, type OutboundTransferRow } from '@/lib/db/schema';
import { broadcastTransfer, type BroadcastOutcome } from './broadcast-transfer';

export async function broadcastRelayedBatch(transfers: OutboundTransferRow[]): Promise<BroadcastOutcome> {
  const [first, ...others] = transfers;
  if (!first) throw new Error('broadcastRelayedBatch: no transfer');
  if (others.some((t) => t.txHash !== first.txHash)) throw new Error('broadcastRelayedBatch: not one transaction');
  crashPoint('transfer.recorded');
  const outcome = await broadcastTransfer(first.id);
  if (outcome.kind === 'sent' && others.length) {
    await getDb()
      .update(outboundTransfers)
      .set({
        status: 'broadcast',
        lastBroadcastAt: new Date(),
        broadcastFailures: 0,
        transportFailures: 0,
        transportFailingSince: null,
        error: null,
      })
      .where(
        and(
          inArray(
            outboundTransfers.id,
            others.map((t) => t.id),
          ),
          eq(outboundTransfers.txHash, first.txHash),
          eq(outboundTransfers.status, 'signed'),
        ),
      );
  }
  return outcome;
}
