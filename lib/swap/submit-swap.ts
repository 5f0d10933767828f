/**
 * Step 3 of executing a swap, after the transaction that recorded it committed: the engine broadcasts each
 * transfer in order (approve first, each after its gas top-up); the execution then reads `broadcast`,
 * through its state machine. What follows is the engine's reconciler (settle-swap-transfer.ts).
 */
import { and, eq, inArray } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { swapExecutions } from '@/lib/db/schema';
import { submitTransfer } from '@/lib/transactions/broadcast-transfer';
import type { SignedSwap } from './record-swap';
import { swapExecutionMachine } from './state';

export async function submitSwap(signed: SignedSwap): Promise<void> {
  for (const recorded of signed.transfers) await submitTransfer(recorded);
  await getDb()
    .update(swapExecutions)
    .set({ status: 'broadcast' })
    .where(and(eq(swapExecutions.id, signed.execution.id), inArray(swapExecutions.status, swapExecutionMachine.leadingTo('broadcast'))));
}
