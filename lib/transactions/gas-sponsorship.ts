/**
 * What the gas tank agrees to pay for, so nobody can drain it: a cap on the gas limit of one transaction,
 * and daily caps of **sponsored gas** per merchant and per paying user (env: GAS_TANK_DAILY_SPONSORED_GAS_*),
 * for its top-ups and the transfers it relays (ADR 0035) alike. A dust charge cannot drain it either:
 * createCharge refuses amounts below the token's minimum (lib/charges).
 *
 * Sponsored gas is counted in gas units, not in coin, so one cap means the same on every chain and does not
 * move with fee spikes (the tank's coin per chain is what `gas-tank status` watches). Each sponsorship counts
 * the most it can cost, known when it is recorded:
 *  - a relayed transfer: its gas limit (the tank's whole transaction), shared equally by the transfers of a batch
 *    (ADR 0035, "Batched sweeps": the rows at one relayer nonce carry the one transaction's gas limit);
 *  - a top-up: the gas it buys (its amount ÷ its max fee per gas, rounded up) plus its own gas limit.
 * Failed ones count only if they were mined (a reverted transaction's gas is spent).
 * The deprecated GAS_TANK_DAILY_TOPUPS_* still cap the number of sponsored transactions when set.
 */
import { and, count, eq, gt, isNotNull, ne, or, sql } from 'drizzle-orm';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { outboundTransfers } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';

/** Whose activity a top-up pays for: a merchant's (sweeps, refunds, withdrawals), a paying user's (balance payments, swaps), or both. */
export interface GasSponsor {
  merchantId?: string;
  userId?: string;
}

const DAY_MS = 24 * 60 * 60_000;

/** Gas one sponsorship row counts (see the header). */
const sponsoredGas = sql<string>`case when ${outboundTransfers.purpose} = 'gas_topup'
  then ceil(${outboundTransfers.amountBaseUnits} / nullif(${outboundTransfers.maxFeePerGas}, 0)) + coalesce(${outboundTransfers.gasLimit}, 0)
  when ${outboundTransfers.relayerAddress} is not null
  then ceil(coalesce(${outboundTransfers.gasLimit}, 0) / (select count(*) from outbound_transfers batch where batch.chain = ${outboundTransfers.chain}
    and batch.relayer_address = ${outboundTransfers.relayerAddress} and batch.nonce = ${outboundTransfers.nonce}))
  else coalesce(${outboundTransfers.gasLimit}, 0) end`;

export async function assertSponsorshipAllowed(
  tx: DbOrTx,
  input: {
    chain: ChainName;
    sponsor: GasSponsor;
    /** The gas limit of the transaction whose fee is paid (capped by GAS_TANK_MAX_GAS_LIMIT). */
    gasLimit: bigint;
    /** The gas this sponsorship adds to the sponsor's day (see the header); defaults to `gasLimit`. */
    sponsoredGas?: bigint;
    now?: Date;
    /**
     * A batch (ADR 0035, "Batched sweeps"): each sponsor's day is read once into `read`, and what the batch's
     * rows allowed so far add is kept in `added` (this sponsorship's share is added there when it is allowed),
     * so a batch never takes a sponsor past its cap.
     */
    batch?: SponsoredInBatch;
  },
): Promise<void> {
  const config = env();
  const chain = CHAINS[input.chain].displayName;
  if (input.gasLimit > BigInt(config.GAS_TANK_MAX_GAS_LIMIT)) {
    throw new AppError(
      'gas_sponsorship_limit',
      `This transaction needs ${input.gasLimit} gas on ${chain}, more than the ${config.GAS_TANK_MAX_GAS_LIMIT} the service pays for. Add native coin to the wallet to pay the fee yourself.`,
    );
  }
  const adding = input.sponsoredGas ?? input.gasLimit;
  const since = new Date((input.now ?? new Date()).getTime() - DAY_MS);
  const checks: {
    column: typeof outboundTransfers.sponsorUserId | typeof outboundTransfers.sponsorMerchantId;
    id: string | undefined;
    gasCap: number;
    transactionCap: number | undefined;
    who: string;
  }[] = [
    {
      column: outboundTransfers.sponsorUserId,
      id: input.sponsor.userId,
      gasCap: config.GAS_TANK_DAILY_SPONSORED_GAS_PER_USER,
      transactionCap: config.GAS_TANK_DAILY_TOPUPS_PER_USER,
      who: 'your account',
    },
    {
      column: outboundTransfers.sponsorMerchantId,
      id: input.sponsor.merchantId,
      gasCap: config.GAS_TANK_DAILY_SPONSORED_GAS_PER_MERCHANT,
      transactionCap: config.GAS_TANK_DAILY_TOPUPS_PER_MERCHANT,
      who: 'this merchant',
    },
  ];
  const counted: string[] = [];
  for (const check of checks) {
    if (!check.id) continue;
    const key = `${check.column === outboundTransfers.sponsorUserId ? 'user' : 'merchant'}:${check.id}`;
    counted.push(key);
    const day = input.batch?.read.get(key) ?? (await sponsoredToday(tx, check.column, check.id, since));
    input.batch?.read.set(key, day);
    const added = input.batch?.added.get(key) ?? { n: 0, gas: 0n };
    const used = day.gas + added.gas;
    if (used + adding > BigInt(check.gasCap)) {
      throw limitReached(check.who, `${used} of ${check.gasCap} gas in 24 hours used; this needs ${adding}`);
    }
    if (check.transactionCap !== undefined && day.n + added.n >= check.transactionCap) {
      throw limitReached(check.who, `${check.transactionCap} transactions in 24 hours`);
    }
  }
  for (const key of counted) {
    const added = input.batch?.added.get(key) ?? { n: 0, gas: 0n };
    input.batch?.added.set(key, { n: added.n + 1, gas: added.gas + adding });
  }
}

/** Per sponsor (`user:<id>` / `merchant:<id>`): its day as read, and what a batch being recorded adds to it. */
export interface SponsoredInBatch {
  read: Map<string, { n: number; gas: bigint }>;
  added: Map<string, { n: number; gas: bigint }>;
}

async function sponsoredToday(
  tx: DbOrTx,
  column: typeof outboundTransfers.sponsorUserId | typeof outboundTransfers.sponsorMerchantId,
  id: string,
  since: Date,
): Promise<{ n: number; gas: bigint }> {
  const [row] = await tx
    .select({ n: count(), gas: sql<string | null>`sum(${sponsoredGas})` })
    .from(outboundTransfers)
    .where(
      and(
        eq(column, id),
        // A top-up, or a transfer the tank relayed and paid the gas of (ADR 0035): both are sponsored transactions.
        or(eq(outboundTransfers.purpose, 'gas_topup'), isNotNull(outboundTransfers.relayerAddress)),
        // A failed one spent the tank's gas only if it was mined.
        or(ne(outboundTransfers.status, 'failed'), gt(outboundTransfers.gasFeeBaseUnits, 0n)),
        gt(outboundTransfers.createdAt, since),
      ),
    );
  return { n: row?.n ?? 0, gas: BigInt(row?.gas ?? '0') };
}

function limitReached(who: string, detail: string): AppError {
  return new AppError(
    'gas_sponsorship_limit',
    `The network fees the service pays for ${who} are used up for today (${detail}). Add native coin to the wallet to pay the fee yourself, or try again later.`,
    { headers: { 'Retry-After': String(60 * 60) } },
  );
}
