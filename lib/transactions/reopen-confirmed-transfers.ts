/**
 * After a re-organisation deeper than the confirmation depth (docs/adr/0036): our EVM transfers confirmed in
 * the blocks the scanner scans again go back to `included` (the one way out of `confirmed`, ./state.ts), due
 * now, so the reconciler follows them as any included transfer:
 *
 *  - still mined, in the same block or another: confirmed again there (its purpose's hook is not run again);
 *  - gone: `broadcast`, and the same signed bytes are sent again — the same nonce, so it lands at most once;
 *  - mined but reverted now (a sweep whose deposit no longer holds the payment): `failed`, which takes its
 *    amount out of the ledger (lib/ledger/expected-balances.ts counts only included and confirmed ones), with
 *    an error log and its charge's timeline entry (the reconciler's onReversed).
 *
 * While re-opened it still counts as moved (the ledger counts `included` as `confirmed`), as it did.
 * `tx` is the block scanner's poll transaction: the re-opening commits with the poll that found the fork.
 */
import { and, eq, gte, isNotNull } from 'drizzle-orm';
import type { ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { outboundTransfers } from '@/lib/db/schema';
import { log } from '@/lib/log';
import { transferMachine } from './state';

/** Re-opens `chain`'s confirmed transfers mined in `fromBlock` or later. Returns how many. */
export async function reopenConfirmedTransfers(tx: DbOrTx, chain: ChainName, fromBlock: bigint): Promise<number> {
  transferMachine.assert('confirmed', 'included');
  const now = new Date();
  const reopened = await tx
    .update(outboundTransfers)
    .set({ status: 'included', reopenedAt: now, nextCheckAt: now })
    .where(
      and(
        eq(outboundTransfers.chain, chain),
        eq(outboundTransfers.status, 'confirmed'),
        isNotNull(outboundTransfers.includedBlockNumber),
        gte(outboundTransfers.includedBlockNumber, fromBlock),
      ),
    )
    .returning({ id: outboundTransfers.id, purpose: outboundTransfers.purpose });
  if (reopened.length) {
    log.warn('a re-organisation reached back past confirmed transfers; the engine checks them again', {
      chain,
      fromBlock: fromBlock.toString(),
      transfers: reopened.map((row) => `${row.id} (${row.purpose})`),
    });
  }
  return reopened.length;
}
