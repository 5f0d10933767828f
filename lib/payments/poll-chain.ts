/**
 * The charge watcher of one EVM chain: the block scanner (lib/scanner) with charges as its consumer.
 * It watches the deposit addresses of charges still watched (24 h past expiry; a reused address by its open lease
 * only, ADR 0038) for their own token —
 * ERC-20 Transfer logs, native coin sent directly or by a contract — records each transfer as a
 * payment (unique chain + tx hash + log index), follows it through re-organisations, and settles every
 * charge whose payments changed (./settle-charge.ts), in the poll's transaction: all of them together, in
 * a fixed number of statements per poll (settleCharges), not a round of queries per payment (ADR 0030).
 *
 * The swap on-ramp's funding token (lib/chains/swap-pairs.ts: USDC for PZP) sent to a swap-pair charge's
 * deposit address is not a payment, but it is what the conversion job (lib/swap/convert-swap-funding.ts)
 * waits for: while such charges are watched the funding token is read too, and each transfer found is
 * noted once as a `swap_funding_signals` row in the poll's transaction (the job reads balances only there).
 *
 * One instance watches a chain at a time (advisory lock `chain-watcher:<chain>`).
 */
import { and, eq, gt, gte, inArray, isNull, ne, notLike, sql } from 'drizzle-orm';
import type { Hex, PublicClient } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { crashPoint } from '@/lib/crash-points';
import { EVM_NATIVE_TOKEN_ADDRESS, type ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { charges, depositAddresses, outboundTransfers, payments, swapFundingSignals } from '@/lib/db/schema';
import { configuredSwapPairs, swapPairFor } from '@/lib/chains/swap-pairs';
import { newId } from '@/lib/ids';
import { scanChain } from '@/lib/scanner/scan-chain';
import { reopenConfirmedTransfers } from '@/lib/transactions/reopen-confirmed-transfers';
import type { ScanConsumer, TransferStore } from '@/lib/scanner/types';
import { settleCharges } from './settle-charge';
import { transitionPayments } from './transition-payments';
import { statusIs } from '@/lib/db/status-is';

export interface PollResult {
  chain: ChainName;
  scanned: { from: bigint; to: bigint } | null;
  recorded: number;
  settled: number;
  reorg: boolean;
}

export interface PollOptions {
  client?: PublicClient;
  now?: Date;
  /** Confirmation depth (default: the chain's, 1 on a local node). */
  confirmations?: number;
}

export async function pollChain(chain: ChainName, options: PollOptions = {}): Promise<PollResult | null> {
  const client = options.client ?? publicClientFor(chain);
  if (!client) return null;
  const result = await scanChain(chargesConsumer, chain, { ...options, client });
  if (!result) return null;
  if (result.owners.size > 0) crashPoint('charge.settled');
  return { chain, scanned: result.scanned, recorded: result.recorded, settled: result.owners.size, reorg: result.reorg };
}

/** A watched deposit address: the charge it belongs to and the token (lower case) that pays it. */
interface WatchedDeposit {
  address: string;
  chargeId: string;
  token: string;
  /** A swap-pair charge: the pair's funding token (lower case), noted when it arrives. */
  fundingToken?: string;
}

const chargesConsumer: ScanConsumer<WatchedDeposit> = {
  name: 'charges',
  lockName: 'chain-watcher',
  blocksPerPoll: 100n,
  async watchedAssets(tx, chain, now) {
    // Only the tokens of watched charges are read (registry tokens and merchants' custom ERC-20s).
    const rows = await tx
      .selectDistinct({ tokenAddress: charges.tokenAddress })
      .from(depositAddresses)
      .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
      .where(and(eq(depositAddresses.chain, chain), gt(depositAddresses.watchUntil, now)));
    const tokens = rows.map((row) => row.tokenAddress.toLowerCase());
    // Swap-pair charges watched: their funding token too (noted, never counted as a payment).
    for (const pair of configuredSwapPairs()) {
      const funding = pair.funding.address.toLowerCase();
      if (pair.chain === chain && tokens.includes(pair.target.address.toLowerCase()) && !tokens.includes(funding)) tokens.push(funding);
    }
    return {
      erc20s: tokens.filter((token) => token !== EVM_NATIVE_TOKEN_ADDRESS) as Hex[],
      native: tokens.includes(EVM_NATIVE_TOKEN_ADDRESS),
    };
  },
  async matchRecipients(tx, chain, recipients, now) {
    const found = await watchedAddresses(tx, chain, now, recipients);
    // The lookup matched the stored form exactly, so the recipient is the address as stored.
    return new Map(
      recipients.flatMap((address) => {
        const deposit = found.get(address.toLowerCase());
        if (!deposit) return [];
        const fundingToken = swapPairFor(chain, deposit.token)?.funding.address.toLowerCase();
        return [[address.toLowerCase(), { address, ...deposit, ...(fundingToken ? { fundingToken } : {}) }] as const];
      }),
    );
  },
  // Only the charge's own token pays it: another token sent to the address is not a payment.
  accepts: (deposit, tokenAddress) => deposit.token === tokenAddress,
  notices: {
    wants: (deposit, tokenAddress) => deposit.fundingToken === tokenAddress,
    // One signal per transfer and block, however often polls see it (a re-scan); re-included in another
    // block after a re-organisation, it signals again (a check between the two may have found nothing).
    async record(tx, _chain, noticed) {
      await tx
        .insert(swapFundingSignals)
        .values(
          noticed.map((t) => ({
            chargeId: t.target.chargeId,
            source: `transfer:${t.txHash.toLowerCase()}:${t.logIndex}:${t.blockHash.toLowerCase()}`,
          })),
        )
        .onConflictDoNothing();
    },
  },
  store: {
    byTxHashes: (tx, chain, txHashes) => selectPayments(tx, and(eq(payments.chain, chain), inArray(payments.txHash, txHashes))),
    async insert(tx, chain, found) {
      const rows = await tx
        .insert(payments)
        .values(found.map(({ transfer, target }) => ({ id: newId('payment'), chargeId: target.chargeId, chain, ...transfer })))
        .onConflictDoNothing()
        .returning({ chargeId: payments.chargeId });
      return rows.map((row) => row.chargeId);
    },
    async relocate(tx, id, location) {
      await tx
        .update(payments)
        .set({ ...location, ...(location.blockHash === undefined ? {} : { missingSinceBlock: null }) })
        .where(eq(payments.id, id));
      // In another block (re-included, or found again): pending there, confirmed afresh.
      if (location.blockHash !== undefined) await transitionPayments(tx, { ids: [id], to: 'pending' });
    },
    open: (tx, chain) => openPayments(tx, chain),
    async reopenSettled(tx, chain, fromBlock) {
      // Payments seen on chain (not the no-trace balance credits, which have no transaction to look for).
      const rows = await tx
        .select({ id: payments.id, chargeId: payments.chargeId })
        .from(payments)
        .where(
          and(
            eq(payments.chain, chain),
            statusIs(payments.status, 'confirmed'),
            gte(payments.blockNumber, fromBlock),
            notLike(payments.txHash, 'balance:%'),
          ),
        );
      await transitionPayments(tx, { ids: rows.map((row) => row.id), to: 'pending', patch: { missingSinceBlock: null } });
      return rows.map((row) => row.chargeId);
    },
    async update(tx, ids, { status, ...patch }) {
      if (status) await transitionPayments(tx, { ids, to: status, patch });
      else await tx.update(payments).set(patch).where(inArray(payments.id, ids));
    },
  } satisfies TransferStore<WatchedDeposit>,
  async balanceWatches(tx, chain, now, atBlock) {
    // Open native-coin deposits. They also receive our gas top-ups and send refunds (an expired charge's
    // late funds): both are ours and recorded, so what the records explain is net of them (N13). Addresses
    // compare as stored (EIP-55 everywhere); a top-up into a deposit names the charge of the transfer it
    // pays for (every transfer out of a deposit names its charge), so outbound_transfers_charge_idx finds it.
    // A reused address (ADR 0038): only what left it since this lease began is this lease's; the earlier
    // leases' payments and sweeps netted to the zero balance it was released with.
    const rows = await tx
      .select({
        address: depositAddresses.address,
        chargeId: depositAddresses.chargeId,
        recorded: sql<string>`(coalesce((select sum(${payments.amountBaseUnits}) from ${payments}
            where ${payments.chargeId} = ${depositAddresses.chargeId} and ${payments.status} <> 'dropped'), 0)
          + coalesce((select sum(t.amount_base_units) from ${outboundTransfers} t
            where t.charge_id = ${depositAddresses.chargeId} and t.purpose = 'gas_topup'
              and t.to_address = ${depositAddresses.address} and t.status <> 'failed'), 0)
          - coalesce((select sum(case when t.status in ('included', 'confirmed') and t.token_address = ${EVM_NATIVE_TOKEN_ADDRESS}
                                      then t.amount_base_units else 0 end)
                             + sum(coalesce(t.gas_fee_base_units, 0)) from ${outboundTransfers} t
            where t.from_address = ${depositAddresses.address} and t.chain = ${chain}
              and t.created_at >= ${depositAddresses.createdAt}
              and t.included_block_number <= ${atBlock}), 0))::text`,
      })
      .from(depositAddresses)
      .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
      .where(
        and(
          eq(depositAddresses.chain, chain),
          gt(depositAddresses.watchUntil, now),
          eq(charges.tokenAddress, EVM_NATIVE_TOKEN_ADDRESS),
          ne(charges.status, 'succeeded'),
        ),
      );
    return rows.map((row) => ({
      address: row.address,
      target: { address: row.address, chargeId: row.chargeId, token: EVM_NATIVE_TOKEN_ADDRESS },
      recorded: BigInt(row.recorded),
    }));
  },
  async onChanged(tx, chargeIds) {
    await settleCharges(tx, chargeIds);
  },
  async onReorg(tx, chain, fromBlock) {
    await reopenConfirmedTransfers(tx, chain, fromBlock);
  },
};

/** What each poll re-checks: only the chain's pending payments, through payments_pending_idx. */
export function openPayments(tx: DbOrTx, chain: ChainName) {
  return selectPayments(tx, and(eq(payments.chain, chain), statusIs(payments.status, 'pending')));
}

function selectPayments(tx: DbOrTx, where: ReturnType<typeof and>) {
  return tx
    .select({
      id: payments.id,
      owner: payments.chargeId,
      txHash: payments.txHash,
      logIndex: payments.logIndex,
      toAddress: payments.toAddress,
      tokenAddress: payments.tokenAddress,
      amountBaseUnits: payments.amountBaseUnits,
      blockNumber: payments.blockNumber,
      blockHash: payments.blockHash,
      status: payments.status,
      missingSinceBlock: payments.missingSinceBlock,
    })
    .from(payments)
    .where(where);
}

/** Parameters per lookup query (PostgreSQL takes at most 65,535 per statement). */
const LOOKUP_BATCH = 1_000;

/**
 * The watched deposit addresses among `recipients` (EIP-55 form, as stored), by lower-case address:
 * an index lookup on (chain, address) per batch, whatever the number of watched charges.
 */
export async function watchedAddresses(
  tx: DbOrTx,
  chain: ChainName,
  now: Date,
  recipients: string[],
): Promise<Map<string, { chargeId: string; token: string }>> {
  const unique = [...new Set(recipients)];
  const watched = new Map<string, { chargeId: string; token: string }>();
  for (let i = 0; i < unique.length; i += LOOKUP_BATCH) {
    const rows = await tx
      .select({ address: depositAddresses.address, chargeId: depositAddresses.chargeId, tokenAddress: charges.tokenAddress })
      .from(depositAddresses)
      .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
      .where(
        and(
          eq(depositAddresses.chain, chain),
          inArray(depositAddresses.address, unique.slice(i, i + LOOKUP_BATCH)),
          gt(depositAddresses.watchUntil, now),
          // The open lease only (ADR 0038): a reused address's earlier charges are never credited.
          isNull(depositAddresses.releasedAt),
        ),
      );
    for (const row of rows) watched.set(row.address.toLowerCase(), { chargeId: row.chargeId, token: row.tokenAddress.toLowerCase() });
  }
  return watched;
}

/** The number of confirmations a payment has now (for the checkout's "confirmations so far / needed"). */
export function confirmationsOf(blockNumber: bigint, latest: bigint): number {
  return latest >= blockNumber ? Number(latest - blockNumber + 1n) : 0;
}
