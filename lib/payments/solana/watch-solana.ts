/**
 * The chain watcher of a Solana cluster (against its configured RPC, RPC_URL_SOLANA / _DEVNET). Each
 * poll, for every watched Solana deposit address, finds the transactions carrying the charge's Solana
 * Pay reference key and validates them (lib/payments/solana/find-transfers.ts):
 *
 *  - a valid transfer at 'confirmed' commitment is recorded as a `pending` payment, and becomes
 *    `confirmed` once 'finalized' — (chain, signature, 0) is unique, so nothing is counted twice;
 *  - a pending payment the cluster no longer lists (a rolled-back fork) goes to `dropped`;
 *  - every charge whose payments changed is settled exactly as on EVM chains.
 *
 * The reference is searched again from the top each poll (no cursor): a charge's reference has a handful
 * of transactions, and `maxSignatures` caps what spam could add. Per-cluster advisory lock, as on EVM.
 */
import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import { createSolanaRpc, type Rpc, type SolanaRpcApiMainnet } from '@solana/kit';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, payments } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { newId } from '@/lib/ids';
import { settleCharge } from '../settle-charge';
import { findReferencedTransfers, type ReferencedTransfersRpc } from './find-transfers';

export interface SolanaPollResult {
  chain: ChainName;
  watched: number;
  recorded: number;
  settled: number;
}

/** The RPC of a Solana cluster: the watcher finds payments with it, sweeps send and follow transactions with it. */
export type SolanaRpc = Rpc<SolanaRpcApiMainnet>;

const rpcs = new Map<string, SolanaRpc>();

/** The configured cluster's RPC (RPC_URL_SOLANA / _DEVNET); undefined when the chain has none. */
export function solanaRpcFor(chain: ChainName): SolanaRpc | undefined {
  const url = rpcUrl(chain);
  if (!url || CHAINS[chain].family !== 'solana') return undefined;
  let rpc = rpcs.get(url);
  if (!rpc) rpcs.set(url, (rpc = createSolanaRpc(url)));
  return rpc;
}

/**
 * Where code that talks to a Solana cluster gets its RPC: the configured one by default, or one injected
 * (tests serve LiteSVM through @solana/kit's RPC this way).
 */
export interface SolanaRpcOptions {
  solanaRpcFor?: (chain: ChainName) => SolanaRpc | undefined;
}

export function resolveSolanaRpc(chain: ChainName, options: SolanaRpcOptions = {}): SolanaRpc | undefined {
  return (options.solanaRpcFor ?? solanaRpcFor)(chain);
}

export async function pollSolana(
  chain: ChainName,
  options: { rpc?: ReferencedTransfersRpc; now?: Date } = {},
): Promise<SolanaPollResult | null> {
  const rpc = options.rpc ?? solanaRpcFor(chain);
  if (!rpc) return null;
  const now = options.now ?? new Date();
  return getDb().transaction(async (tx) => {
    const [lock] = await tx.execute<{ locked: boolean }>(
      sql`select pg_try_advisory_xact_lock(hashtextextended(${`chain-watcher:${chain}`}, 0)) as locked`,
    );
    if (!lock?.locked) return null;
    const watched = await tx
      .select({
        chargeId: depositAddresses.chargeId,
        address: depositAddresses.address,
        reference: depositAddresses.reference,
        tokenAddress: charges.tokenAddress,
      })
      .from(depositAddresses)
      .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
      .where(and(eq(depositAddresses.chain, chain), gt(depositAddresses.watchUntil, now)));
    const native = CHAINS[chain].tokens.find((t) => t.isNative)!;
    const touched = new Set<string>();
    let recorded = 0;

    for (const deposit of watched.filter((d) => d.reference)) {
      const splToken = deposit.tokenAddress === native.address ? undefined : deposit.tokenAddress;
      const found = await findReferencedTransfers(rpc, {
        reference: deposit.reference!,
        recipient: deposit.address,
        splToken,
        commitment: 'confirmed',
      });
      const known = await tx.select().from(payments).where(eq(payments.chargeId, deposit.chargeId));
      for (const transfer of found.transfers) {
        const status = transfer.confirmationStatus === 'finalized' ? ('confirmed' as const) : ('pending' as const);
        const existing = known.find((p) => p.txHash === transfer.signature);
        if (existing && (existing.status === status || existing.status === 'confirmed')) continue;
        await tx
          .insert(payments)
          .values({
            id: newId('payment'),
            chargeId: deposit.chargeId,
            chain,
            txHash: transfer.signature,
            logIndex: 0,
            fromAddress: transfer.payer,
            toAddress: deposit.address,
            tokenAddress: deposit.tokenAddress,
            amountBaseUnits: transfer.received,
            blockNumber: transfer.slot,
            blockHash: '',
            status,
          })
          .onConflictDoUpdate({
            target: [payments.chain, payments.txHash, payments.logIndex],
            set: { status, blockNumber: transfer.slot, updatedAt: now },
          });
        if (!existing) recorded++;
        touched.add(deposit.chargeId);
      }
      // Pending payments the cluster no longer lists were on a fork that lost.
      const listed = new Set([
        ...found.transfers.map((t) => t.signature),
        ...found.rejected.filter((r) => r.reason === 'not_found').map((r) => r.signature),
      ]);
      const gone = known.filter((p) => p.status === 'pending' && !listed.has(p.txHash));
      if (gone.length && found.isComplete) {
        await tx
          .update(payments)
          .set({ status: 'dropped', updatedAt: now })
          .where(
            inArray(
              payments.id,
              gone.map((p) => p.id),
            ),
          );
        touched.add(deposit.chargeId);
      }
    }
    for (const chargeId of touched) await settleCharge(tx, chargeId);
    return { chain, watched: watched.length, recorded, settled: touched.size };
  });
}
