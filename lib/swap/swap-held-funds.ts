/**
 * Branch A of the swap on-ramp: the signed-in payer swaps USDC they already hold in their service
 * wallet into exactly what the charge still needs in PZP, delivered to the charge's deposit address.
 *
 *  - quoteHeldFundsSwap: what is shown first — PZP out (the amount due), USDC the pool asks now, the
 *    most USDC the swap may take (+ slippage limit), the price and the payer's balance.
 *  - swapHeldFunds: PIN first; then a fresh quote and the swap's transfers prepared (RPC, no transaction
 *    open), re-checked under the charge's row lock before anything is recorded. If the pool moved so
 *    that it now asks more than the maximum the payer saw (or the amount due changed), the swap is
 *    refused (`slippage_exceeded`) and nothing is written. Otherwise approve + swapTokensForExactTokens are signed with that maximum and
 *    recorded before broadcast (prepare-swap.ts, record-swap.ts, submit-swap.ts), gas comes from the gas tank, and the timeline says so.
 *    One swap per charge: a double click gets the first swap back.
 */
import { and, eq } from 'drizzle-orm';
import { erc20Abi, type Address } from 'viem';
import { z } from 'zod';
import { verifyPinStepUp } from '@/lib/accounts/step-up';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS } from '@/lib/chains/registry';
import { assertNoOtherPaymentInFlight } from '@/lib/charges/payment-in-flight';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, wallets, type SwapExecutionRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { accountFromKey } from '@/lib/transactions/account-from-key';
import { openWalletKey } from '@/lib/keyring/envelope';
import { prepareSwap, type PreparedSwap } from './prepare-swap';
import { recordSwap } from './record-swap';
import { submitSwap } from './submit-swap';
import { swapQuoteView, type SwapQuoteView } from './quote-view';
import { assertSwapOffered, swapAvailability } from './swap-availability';
import { liveSwapOf, payableSwapCharge } from './swap-charge';
import { quoteSwapCharge } from './quote-swap-charge';

export interface HeldFundsQuote extends SwapQuoteView {
  /** The payer's balance of the funding token. */
  balance: string;
  /** Whether it covers the most the swap may take. */
  enough: boolean;
}

export async function quoteHeldFundsSwap(input: {
  userId: string;
  chargeId: string;
  country: string;
  complianceCountry: string | null;
}): Promise<HeldFundsQuote> {
  const { charge, pair, due, wallet } = await loadForUser(getDb(), input);
  assertSwapOffered(
    await swapAvailability({
      country: input.country,
      complianceCountry: input.complianceCountry,
      chain: charge.chain,
      tokenAddress: charge.tokenAddress,
    }),
  );
  const client = requireClient(pair.chain);
  const quote = await quoteSwapCharge(client, { pair, due });
  const balance = await client.readContract({
    address: pair.funding.address as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [wallet],
  });
  return { ...swapQuoteView(pair, quote), balance: formatAmount(balance, pair.funding.decimals), enough: balance >= quote.amountInMax };
}

export const swapHeldFundsInputSchema = z.object({
  userId: z.string().min(1),
  chargeId: z.string().min(1).max(64),
  pin: z.string(),
  /** The most input the payer accepted: the quote's amountInMax, in base units. */
  maxAmountIn: z.string().regex(/^[1-9]\d{0,77}$/, 'must be a positive whole number of base units'),
  country: z.string().regex(/^[A-Z]{2}$/),
  /** The server-side location (lib/geo/compliance-country.ts); null: unknown. */
  complianceCountry: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .nullable(),
});

export interface HeldFundsSwap {
  swapExecutionId: string;
  txHash: string;
}

export async function swapHeldFunds(raw: z.input<typeof swapHeldFundsInputSchema>): Promise<HeldFundsSwap> {
  const parsed = swapHeldFundsInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_request', `${issue.path.join('.')}: ${issue.message}`, { param: issue.path.join('.') });
  }
  const input = parsed.data;
  await verifyPinStepUp({ userId: input.userId, pin: input.pin, attempt: { action: 'held_funds_swap' } });
  const availability = await swapAvailability({
    country: input.country,
    complianceCountry: input.complianceCountry,
    ...(await chargeToken(input.chargeId)),
  });
  assertSwapOffered(availability);

  // The chain is read first (quote, balance, gas, nonces), with no transaction open; then one short
  // transaction re-checks under the charge's row lock and records.
  const seen = await loadForUser(getDb(), input);
  const earlier = await liveSwapOf(getDb(), seen.charge.id);
  if (earlier) return existingSwapFor(earlier, input.userId);
  await assertNoOtherPaymentInFlight(getDb(), seen.charge.id, 'swap');
  const prepared = await prepareHeldFundsSwap(seen, BigInt(input.maxAmountIn));

  const signed = await getDb().transaction(async (tx) => {
    const { charge, due } = await loadForUser(tx, input, { lock: true });
    const existing = await liveSwapOf(tx, charge.id);
    if (existing) return { ...existingSwapFor(existing, input.userId), isNew: false as const };
    await assertNoOtherPaymentInFlight(tx, charge.id, 'swap');
    if (due !== seen.due) {
      throw new AppError('slippage_exceeded', 'The amount due changed while the swap was being prepared. Get a new quote.');
    }
    const swap = await recordSwap(tx, prepared, {
      chargeId: charge.id,
      branch: 'held_funds',
      userId: input.userId,
      gasSponsor: { userId: input.userId },
    });
    await recordChargeEvent(tx, {
      chargeId: charge.id,
      fromStatus: charge.status,
      toStatus: charge.status,
      actor: `user:${input.userId}`,
      type: 'charge.swap_submitted',
      data: {
        method: 'swap_held_funds',
        swapExecutionId: swap.execution.id,
        txHash: swap.execution.swapTxHash,
        from: seen.wallet,
        tokenIn: prepared.pair.funding.address,
        amountOutBaseUnits: due.toString(),
        amountInMaxBaseUnits: prepared.amountInMax.toString(),
      },
    });
    return { swapExecutionId: swap.execution.id, txHash: swap.execution.swapTxHash!, isNew: true as const, swap };
  });

  if (signed.isNew) await submitSwap(signed.swap);
  return { swapExecutionId: signed.swapExecutionId, txHash: signed.txHash };
}

/** A double click gets the first swap back; another payer's (or branch's) swap makes the charge unpayable. */
function existingSwapFor(existing: SwapExecutionRow, userId: string): HeldFundsSwap {
  if (existing.userId === userId && existing.branch === 'held_funds') return { swapExecutionId: existing.id, txHash: existing.swapTxHash! };
  throw new AppError('charge_not_payable', 'This charge is already being paid by a swap.');
}

/** A fresh quote within what the payer accepted, their balance, and the swap's transfers prepared (RPC only). */
async function prepareHeldFundsSwap(seen: Awaited<ReturnType<typeof loadForUser>>, accepted: bigint): Promise<PreparedSwap> {
  const { pair, due, wallet, walletRow, depositAddress } = seen;
  const client = requireClient(pair.chain);
  const quote = await quoteSwapCharge(client, { pair, due });
  const fmt = (units: bigint) => `${formatAmount(units, pair.funding.decimals)} ${pair.funding.symbol}`;
  if (quote.amountIn > accepted) {
    throw new AppError(
      'slippage_exceeded',
      `The price moved: the swap now needs ${fmt(quote.amountIn)}, more than the ${fmt(accepted)} you accepted. Get a new quote.`,
    );
  }
  const balance = await client.readContract({
    address: pair.funding.address as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [wallet],
  });
  if (balance < quote.amountIn) {
    throw new AppError(
      'insufficient_balance',
      `Your wallet holds ${fmt(balance)} on ${CHAINS[pair.chain].displayName}; this swap needs ${fmt(quote.amountIn)}. Top up first.`,
    );
  }
  // Never more than the payer accepted, the slippage limit above the fresh quote, or what the wallet holds.
  const amountInMax = [accepted, quote.amountInMax, balance].reduce((a, b) => (a < b ? a : b));
  return prepareSwap({ pair, client, account: accountFromKey(openWalletKey(walletRow)), recipient: depositAddress, quote, amountInMax });
}

async function chargeToken(chargeId: string): Promise<{ chain: string; tokenAddress: string }> {
  const [charge] = await getDb()
    .select({ chain: charges.chain, tokenAddress: charges.tokenAddress })
    .from(charges)
    .where(eq(charges.id, chargeId));
  if (!charge) throw new AppError('not_found', `No charge ${chargeId}.`);
  return charge;
}

async function loadForUser(tx: DbOrTx, input: { userId: string; chargeId: string }, options: { lock?: boolean } = {}) {
  const query = tx.select().from(charges).where(eq(charges.id, input.chargeId));
  const [charge] = options.lock ? await query.for('update') : await query;
  if (!charge) throw new AppError('not_found', `No charge ${input.chargeId}.`);
  const { pair, due, depositAddress } = await payableSwapCharge(tx, charge);
  const [walletRow] = await tx
    .select()
    .from(wallets)
    .where(and(eq(wallets.userId, input.userId), eq(wallets.family, 'evm')));
  if (!walletRow) throw new AppError('charge_not_payable', 'Your account has no EVM wallet to swap from.');
  return { charge, pair, due, depositAddress, walletRow, wallet: walletRow.address as Address };
}

function requireClient(chain: keyof typeof CHAINS) {
  const client = publicClientFor(chain);
  if (!client) throw new AppError('chain_unavailable', `${CHAINS[chain].displayName} is not reachable right now. Try again shortly.`);
  return client;
}
