/**
 * What a swap into a charge needs to know about it, read inside the caller's transaction after the
 * charge row is locked: that it is payable (pending, or processing with something still due, and not
 * expired), its swap pair, its deposit address (where the swap output goes) and the exact amount due.
 */
import { and, eq, ne } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { depositAddresses, payments, swapExecutions, type ChargeRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { fundingOf } from '@/lib/charges/funding';
import { swapPairFor, type SwapPair } from '@/lib/chains/swap-pairs';

export interface SwapCharge {
  pair: SwapPair;
  depositAddress: `0x${string}`;
  depositIndex: number;
  /** Total minus what has arrived (pending or confirmed): exactly what the swap must deliver. */
  due: bigint;
}

/**
 * Throws charge_not_payable with the reason; the row must be locked by the caller. `allowOverdue`: the
 * conversion of USDC an on-ramp order bought for this charge, which expiry waits for
 * (lib/charges/payment-in-flight.ts), may run after expiresAt while the charge is still open.
 */
export async function payableSwapCharge(
  tx: DbOrTx,
  charge: ChargeRow,
  now = new Date(),
  options: { allowOverdue?: boolean } = {},
): Promise<SwapCharge> {
  const pair = swapPairFor(charge.chain, charge.tokenAddress);
  if (!pair) throw new AppError('charge_not_payable', `This charge is in ${charge.tokenSymbol}, which the swap on-ramp does not deliver.`);
  if ((charge.status !== 'pending' && charge.status !== 'processing') || (charge.expiresAt <= now && !options.allowOverdue)) {
    throw new AppError(
      'charge_not_payable',
      `This charge is ${charge.status === 'pending' || charge.status === 'processing' ? 'expired' : charge.status} and cannot be paid.`,
    );
  }
  const [deposit] = await tx.select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
  if (!deposit) throw new AppError('charge_not_payable', 'This charge has no deposit address.');
  const rows = await tx.select().from(payments).where(eq(payments.chargeId, charge.id));
  const seen = fundingOf(rows).seen;
  if (seen >= charge.totalBaseUnits) throw new AppError('charge_not_payable', 'This charge has already received its full amount.');
  return {
    pair,
    depositAddress: deposit.address as `0x${string}`,
    depositIndex: deposit.derivationIndex,
    due: charge.totalBaseUnits - seen,
  };
}

/** The charge's swap in flight or done, if any (at most one: a partial unique index). */
export async function liveSwapOf(tx: DbOrTx, chargeId: string) {
  const [live] = await tx
    .select()
    .from(swapExecutions)
    .where(and(eq(swapExecutions.chargeId, chargeId), ne(swapExecutions.status, 'failed')));
  return live;
}
