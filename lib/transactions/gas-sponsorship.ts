/**
 * What the gas tank agrees to pay for, so nobody can drain it: a cap on the gas limit of one transaction,
 * and daily caps of sponsored transactions per merchant and per paying user (env: GAS_TANK_*): its top-ups
 * and the transfers it relays (ADR 0035) count alike. A dust
 * charge cannot drain it either: createCharge refuses amounts below the token's minimum (lib/charges).
 */
import { and, count, eq, gt, isNotNull, ne, or } from 'drizzle-orm';
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

export async function assertSponsorshipAllowed(
  tx: DbOrTx,
  input: { chain: ChainName; sponsor: GasSponsor; gasLimit: bigint; now?: Date },
): Promise<void> {
  const config = env();
  const chain = CHAINS[input.chain].displayName;
  if (input.gasLimit > BigInt(config.GAS_TANK_MAX_GAS_LIMIT)) {
    throw new AppError(
      'gas_sponsorship_limit',
      `This transaction needs ${input.gasLimit} gas on ${chain}, more than the ${config.GAS_TANK_MAX_GAS_LIMIT} the service pays for. Add native coin to the wallet to pay the fee yourself.`,
    );
  }
  const since = new Date((input.now ?? new Date()).getTime() - DAY_MS);
  const checks: {
    column: typeof outboundTransfers.sponsorUserId | typeof outboundTransfers.sponsorMerchantId;
    id: string | undefined;
    cap: number;
    who: string;
  }[] = [
    { column: outboundTransfers.sponsorUserId, id: input.sponsor.userId, cap: config.GAS_TANK_DAILY_TOPUPS_PER_USER, who: 'your account' },
    {
      column: outboundTransfers.sponsorMerchantId,
      id: input.sponsor.merchantId,
      cap: config.GAS_TANK_DAILY_TOPUPS_PER_MERCHANT,
      who: 'this merchant',
    },
  ];
  for (const check of checks) {
    if (!check.id) continue;
    const [row] = await tx
      .select({ n: count() })
      .from(outboundTransfers)
      .where(
        and(
          eq(check.column, check.id),
          // A top-up, or a transfer the tank relayed and paid the gas of (ADR 0035): both are sponsored transactions.
          or(eq(outboundTransfers.purpose, 'gas_topup'), isNotNull(outboundTransfers.relayerAddress)),
          ne(outboundTransfers.status, 'failed'),
          gt(outboundTransfers.createdAt, since),
        ),
      );
    if ((row?.n ?? 0) >= check.cap) {
      throw new AppError(
        'gas_sponsorship_limit',
        `The network fees the service pays for ${check.who} are used up for today (${check.cap} transactions in 24 hours). Add native coin to the wallet to pay the fee yourself, or try again later.`,
        { headers: { 'Retry-After': String(60 * 60) } },
      );
    }
  }
}
