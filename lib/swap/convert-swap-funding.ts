/**
 * Branch B of the swap on-ramp: USDC that an on-ramp (or anyone) delivered to a PZP charge's deposit
 * address is swapped by the service, from that address, into exactly the PZP still due, delivered to
 * the same address. The chain watcher then counts the PZP like any payment (the charge succeeds) and
 * the sweep moves it to toAddress. The deposit key is re-derived from DEPOSIT_HD_SEED, as sweeps do.
 *
 *  - Runs from the scheduler on every instance: the charge row is locked with SKIP LOCKED and a charge
 *    has at most one live swap (a partial unique index), so two passes never swap twice.
 *  - The most USDC the swap may take: the fresh quote + SWAP_SLIPPAGE_BPS, and never more than the
 *    address holds. If the pool moved so far that the USDC held no longer buys what is due, nothing is
 *    signed: the attempt is recorded as failed (the checkout says so), the job waits RETRY_AFTER_MS and
 *    quotes again. A swap that reverts on chain (price past the limit, deadline) moves nothing either.
 *    Funds are never lost: what is not swapped stays at the deposit address, on the charge's record.
 *  - USDC left over after the swap (the on-ramp bought the slippage margin, or its minimum) stays at
 *    the deposit address for support to refund, like any overpayment in another token.
 */
import { and, eq, gt, inArray, ne, notExists, or, sql } from 'drizzle-orm';
import { erc20Abi, type Address } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { IN_FLIGHT_HOLD_MS, findPaymentsInFlight } from '@/lib/charges/payment-in-flight';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, swapExecutions, type ChargeRow } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { isAppError } from '@/lib/errors';
import { log } from '@/lib/log';
import { formatAmount } from '@/lib/money';
import { depositAccount } from '@/lib/keyring/deposit-addresses';
import { prepareSwap, type PreparedSwap } from './prepare-swap';
import { newSwapExecutionId, recordSwap, type SignedSwap } from './record-swap';
import { submitSwap } from './submit-swap';
import { liveSwapOf, payableSwapCharge } from './swap-charge';
import { configuredSwapPairs } from '@/lib/chains/swap-pairs';
import { quoteExactOut, type ExactOutQuote } from '@/lib/chains/uniswap-v2-router';

/** After a refused attempt (the pool moved past the funds held), wait this long before quoting again. */
export const RETRY_AFTER_MS = 60_000;

export type ConversionOutcome =
  | 'busy'
  | 'other_payment_in_flight'
  | 'not_convertible'
  | 'already_converting'
  | 'no_funding'
  | 'chain_unavailable'
  | 'quote_unavailable'
  | 'insufficient_funding'
  | 'submitted';

/** Payable swap-pair charges with no swap in flight or done, and no refused attempt in the back-off window. */
export async function chargesAwaitingConversion(now = new Date(), limit = 50): Promise<string[]> {
  const pairs = configuredSwapPairs();
  if (!pairs.length) return [];
  const retryAfter = new Date(now.getTime() - RETRY_AFTER_MS);
  const rows = await getDb()
    .select({ id: charges.id })
    .from(charges)
    .where(
      and(
        inArray(charges.status, ['pending', 'processing']),
        // Overdue charges too while expiry may still be waiting for their funding order (convertChargeFunding decides).
        gt(charges.expiresAt, new Date(now.getTime() - IN_FLIGHT_HOLD_MS)),
        or(
          ...pairs.map((pair) =>
            and(eq(charges.chain, pair.chain), sql`lower(${charges.tokenAddress}) = ${pair.target.address.toLowerCase()}`),
          ),
        ),
        notExists(
          getDb()
            .select({ one: sql`1` })
            .from(swapExecutions)
            .where(
              and(
                eq(swapExecutions.chargeId, charges.id),
                or(ne(swapExecutions.status, 'failed'), gt(swapExecutions.createdAt, retryAfter)),
              ),
            ),
        ),
      ),
    )
    .orderBy(charges.createdAt)
    .limit(limit);
  return rows.map((row) => row.id);
}

type ConvertibleCheck = { outcome: ConversionOutcome } | { swapCharge: Awaited<ReturnType<typeof payableSwapCharge>> };

/** Whether the charge may be converted now (read with or without its row lock). */
async function checkConvertible(tx: DbOrTx, charge: ChargeRow, now: Date): Promise<ConvertibleCheck> {
  // One payment method at a time: not while a balance payment or a card payment of the charge is in flight.
  const inFlight = await findPaymentsInFlight(tx, charge.id, now);
  if (inFlight.some((payment) => payment.method !== 'swap')) return { outcome: 'other_payment_in_flight' };
  // USDC bought by the charge's funding order is converted even if the charge's time ran out meanwhile:
  // expiry waits for that order (lib/charges/payment-in-flight.ts).
  const isFundingInFlight = inFlight.some((payment) => payment.method === 'swap' && payment.providerName !== null);
  let swapCharge;
  try {
    swapCharge = await payableSwapCharge(tx, charge, now, { allowOverdue: isFundingInFlight });
  } catch (error) {
    if (isAppError(error)) return { outcome: 'not_convertible' };
    throw error;
  }
  if (await liveSwapOf(tx, charge.id)) return { outcome: 'already_converting' };
  return { swapCharge };
}

/** What the chain says, read before any transaction: a swap ready to record, or the reason the funds fall short. */
type ConversionPlan =
  | { outcome: ConversionOutcome }
  | { due: bigint; depositAddress: string; held: bigint; shortBy?: { quote: ExactOutQuote }; prepared?: PreparedSwap };

async function planConversion(chargeId: string, now: Date): Promise<ConversionPlan> {
  const [charge] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  if (!charge) return { outcome: 'busy' };
  const checked = await checkConvertible(getDb(), charge, now);
  if ('outcome' in checked) return checked;
  const { pair, depositAddress, depositIndex, due } = checked.swapCharge;
  const client = publicClientFor(pair.chain);
  if (!client) return { outcome: 'chain_unavailable' };
  const held = await client.readContract({
    address: pair.funding.address as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [depositAddress],
  });
  if (held === 0n) return { outcome: 'no_funding' };

  let quote;
  try {
    quote = await quoteExactOut(client, {
      router: pair.router,
      path: [pair.funding.address as Address, pair.target.address as Address],
      amountOut: due,
      slippageBps: env().SWAP_SLIPPAGE_BPS,
    });
  } catch (error) {
    if (isAppError(error) && error.code === 'quote_unavailable') return { outcome: 'quote_unavailable' };
    throw error;
  }
  if (quote.amountIn > held) return { due, depositAddress, held, shortBy: { quote } };

  const account = depositAccount(depositIndex);
  if (account.address !== depositAddress) {
    // DEPOSIT_HD_SEED is not the seed this address came from: signing would move nothing.
    log.error('deposit key does not match its address; check DEPOSIT_HD_SEED', { chargeId: charge.id, address: depositAddress });
    return { outcome: 'not_convertible' };
  }
  const amountInMax = held < quote.amountInMax ? held : quote.amountInMax;
  const prepared = await prepareSwap({ pair, client, account, recipient: depositAddress, quote, amountInMax, now });
  return { due, depositAddress, held, prepared };
}

/**
 * One charge: swap the USDC at its deposit address into the PZP it still needs, if it holds enough. The
 * chain is read first (no transaction open); the charge is then locked (SKIP LOCKED), re-checked, and the
 * attempt recorded in one short transaction — or nothing, if the charge changed meanwhile (the next pass
 * reads again).
 */
export async function convertChargeFunding(chargeId: string, now = new Date()): Promise<ConversionOutcome> {
  const plan = await planConversion(chargeId, now);
  if ('outcome' in plan) return plan.outcome;
  const step = await getDb().transaction(async (tx): Promise<{ outcome: ConversionOutcome; swap?: SignedSwap }> => {
    const [charge] = await tx.select().from(charges).where(eq(charges.id, chargeId)).for('update', { skipLocked: true });
    if (!charge) return { outcome: 'busy' };
    const checked = await checkConvertible(tx, charge, now);
    if ('outcome' in checked) return checked;
    const { pair, due, depositAddress } = checked.swapCharge;
    if (due !== plan.due || depositAddress !== plan.depositAddress) return { outcome: 'busy' };

    if (plan.shortBy) {
      const { quote } = plan.shortBy;
      const fmt = (units: bigint) => `${formatAmount(units, pair.funding.decimals)} ${pair.funding.symbol}`;
      const reason = `the pool now asks ${fmt(quote.amountIn)} for ${formatAmount(due, pair.target.decimals)} ${pair.target.symbol}; the deposit address holds ${fmt(plan.held)}`;
      await tx.insert(swapExecutions).values({
        id: newSwapExecutionId(),
        chargeId: charge.id,
        branch: 'onramp_conversion',
        userId: null,
        chain: pair.chain,
        router: pair.router,
        fromAddress: depositAddress,
        recipient: depositAddress,
        tokenIn: pair.funding.address,
        tokenOut: pair.target.address,
        amountOut: due,
        quotedAmountIn: quote.amountIn,
        amountInMax: plan.held,
        slippageBps: quote.slippageBps,
        deadline: now,
        status: 'failed',
        error: `not signed: ${reason}`,
      });
      await recordChargeEvent(tx, {
        chargeId: charge.id,
        fromStatus: charge.status,
        toStatus: charge.status,
        actor: 'system:swap-converter',
        type: 'charge.swap_failed',
        data: { reason, retryAfterMs: RETRY_AFTER_MS },
      });
      return { outcome: 'insufficient_funding' };
    }

    const prepared = plan.prepared!;
    const swap = await recordSwap(tx, prepared, {
      chargeId: charge.id,
      branch: 'onramp_conversion',
      userId: null,
      gasSponsor: { merchantId: charge.merchantId },
    });
    await recordChargeEvent(tx, {
      chargeId: charge.id,
      fromStatus: charge.status,
      toStatus: charge.status,
      actor: 'system:swap-converter',
      type: 'charge.swap_submitted',
      data: {
        method: 'swap_onramp_funding',
        swapExecutionId: swap.execution.id,
        txHash: swap.execution.swapTxHash,
        tokenIn: pair.funding.address,
        fundingHeldBaseUnits: plan.held.toString(),
        amountOutBaseUnits: due.toString(),
        amountInMaxBaseUnits: prepared.amountInMax.toString(),
      },
    });
    return { outcome: 'submitted', swap };
  });
  if (step.swap) await submitSwap(step.swap);
  return step.outcome;
}

/** The scheduler's entry point: convert what has arrived (swaps in flight are the transaction engine's). Returns how many started. */
export async function convertSwapFunding(now = new Date()): Promise<number> {
  let count = 0;
  for (const chargeId of await chargesAwaitingConversion(now)) {
    if ((await convertChargeFunding(chargeId, now)) === 'submitted') count++;
  }
  return count;
}
