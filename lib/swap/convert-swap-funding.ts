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
 *
 * Which charges are read (issue 27): only those with a signal of funding, so a pass costs the same at
 * 10 or 100,000 open PZP charges and a funded charge is never queued behind unfunded ones. Signals are
 * `swap_funding_signals` rows (lib/db/schema/swaps.ts): the charge watcher saw USDC sent to the deposit
 * address (lib/payments/poll-chain.ts, in the poll that sees it), the charge's funding order completed
 * (noted here from `onramp_orders` each pass), or a refused attempt's back-off ran out. A pass with no
 * signal due reads nothing from the chain. Each check marks the charge's due signals handled; a check
 * the chain or pool could not answer puts them off by RETRY_AFTER_MS. A signal the watcher missed is
 * caught by the slow rotation of ./check-swap-funding-fallback.ts.
 */
import { and, asc, eq, isNull, lte, min, sql } from 'drizzle-orm';
import { erc20Abi, type Address } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { findPaymentsInFlight } from '@/lib/charges/payment-in-flight';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, onrampOrders, swapExecutions, swapFundingSignals, type ChargeRow } from '@/lib/db/schema';
import { isAppError } from '@/lib/errors';
import { log } from '@/lib/log';
import { formatAmount } from '@/lib/money';
import { depositAccount } from '@/lib/keyring/deposit-addresses';
import { prepareSwap, type PreparedSwap } from './prepare-swap';
import { newSwapExecutionId, recordSwap, type SignedSwap } from './record-swap';
import { submitSwap } from './submit-swap';
import { liveSwapOf, payableSwapCharge } from './swap-charge';
import { configuredSwapPairs } from '@/lib/chains/swap-pairs';
import type { ExactOutQuote } from '@/lib/chains/uniswap-v2-router';
import { quoteSwapCharge } from './quote-swap-charge';

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

/**
 * How far back a pass looks for completed funding orders to note. Short: the order's USDC is also seen
 * arriving by the watcher, which never skips a block (its cursor outlives any downtime).
 */
const ORDER_NOTICE_WINDOW_MS = 15 * 60_000;

/**
 * The charges with a signal of funding due (at most `limit`, longest waiting first). Funding orders
 * completed in the last ORDER_NOTICE_WINDOW_MS are noted as signals first (once each: the order id is the
 * source). Both statements go through partial indexes: the cost follows signals and recent orders, not
 * open charges.
 */
export async function chargesAwaitingConversion(now = new Date(), limit = 50): Promise<string[]> {
  if (!configuredSwapPairs().length) return [];
  const db = getDb();
  await db.execute(sql`
    insert into ${swapFundingSignals} (charge_id, source, due_at)
    select ${onrampOrders.chargeId}, 'order:' || ${onrampOrders.id}, ${now.toISOString()}::timestamptz
    from ${onrampOrders}
    where ${onrampOrders.purpose} = 'swap_funding' and ${onrampOrders.status} = 'completed'
      and ${onrampOrders.updatedAt} > ${new Date(now.getTime() - ORDER_NOTICE_WINDOW_MS).toISOString()}::timestamptz
      and ${onrampOrders.chargeId} is not null
    on conflict do nothing`);
  const rows = await db
    .select({ chargeId: swapFundingSignals.chargeId })
    .from(swapFundingSignals)
    .where(and(isNull(swapFundingSignals.handledAt), lte(swapFundingSignals.dueAt, now)))
    .groupBy(swapFundingSignals.chargeId)
    .orderBy(asc(min(swapFundingSignals.dueAt)))
    .limit(limit);
  return rows.map((row) => row.chargeId);
}

/** Outcomes worth asking again soon: the chain, the pool or another payment method was not ready. */
const ASK_AGAIN: ReadonlySet<ConversionOutcome> = new Set(['chain_unavailable', 'quote_unavailable', 'other_payment_in_flight']);

/** After a check: the charge's signals due by `now` are handled, or put off when the answer was not final. */
async function settleSignals(chargeId: string, outcome: ConversionOutcome, now: Date): Promise<void> {
  if (outcome === 'busy') return; // another pass holds the charge: its check settles them
  const due = and(eq(swapFundingSignals.chargeId, chargeId), isNull(swapFundingSignals.handledAt), lte(swapFundingSignals.dueAt, now));
  await getDb()
    .update(swapFundingSignals)
    .set(ASK_AGAIN.has(outcome) ? { dueAt: new Date(now.getTime() + RETRY_AFTER_MS) } : { handledAt: now })
    .where(due);
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
    quote = await quoteSwapCharge(client, { pair, due });
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
  const outcome = await convertOnce(chargeId, now);
  await settleSignals(chargeId, outcome, now);
  return outcome;
}

async function convertOnce(chargeId: string, now: Date): Promise<ConversionOutcome> {
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
      const executionId = newSwapExecutionId();
      await tx.insert(swapExecutions).values({
        id: executionId,
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
      // Asked again once the back-off has run out (or sooner, if more USDC arrives).
      await tx
        .insert(swapFundingSignals)
        .values({ chargeId: charge.id, source: `retry:${executionId}`, dueAt: new Date(now.getTime() + RETRY_AFTER_MS) });
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

/**
 * The scheduler's entry point (every 5 s): check the charges with a signal due (swaps in flight are the
 * transaction engine's). No signal, no chain read. Returns how many swaps started.
 */
export async function convertSwapFunding(now = new Date()): Promise<number> {
  let count = 0;
  for (const chargeId of await chargesAwaitingConversion(now)) {
    if ((await convertChargeFunding(chargeId, now)) === 'submitted') count++;
  }
  return count;
}
