import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type { Address, PublicClient } from 'viem';
import type { ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { outboundTransfers, swapExecutions } from '@/lib/db/schema';

/**
 * The next nonce of a wallet the service signs for, taken under a per-sender advisory lock held until
 * the caller's transaction commits: past what the chain has seen and past every transaction we recorded
 * for it (outbound transfers and swaps), so two signers never use one nonce.
 */
export async function takeSenderNonce(tx: DbOrTx, client: PublicClient, chain: ChainName, from: Address | string): Promise<number> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`wallet-nonce:${chain}:${from}`}, 0))`);
  const [lastTransfer] = await tx
    .select({ nonce: outboundTransfers.nonce })
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chain, chain), eq(outboundTransfers.fromAddress, from), ne(outboundTransfers.status, 'failed')))
    .orderBy(desc(outboundTransfers.nonce))
    .limit(1);
  const [lastSwap] = await tx
    .select({ nonce: sql<number | null>`max(greatest(${swapExecutions.swapNonce}, ${swapExecutions.approveNonce}))` })
    .from(swapExecutions)
    .where(and(eq(swapExecutions.chain, chain), eq(swapExecutions.fromAddress, from), ne(swapExecutions.status, 'failed')));
  const chainNonce = await client.getTransactionCount({ address: from as Address, blockTag: 'pending' });
  const recorded = Math.max(lastTransfer ? lastTransfer.nonce + 1 : 0, lastSwap?.nonce == null ? 0 : Number(lastSwap.nonce) + 1);
  return Math.max(chainNonce, recorded);
}
