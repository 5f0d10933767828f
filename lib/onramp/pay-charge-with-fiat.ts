/**
 * Paying a charge with fiat: an on-ramp order for the amount still due, delivered by the provider to
 * the charge's own deposit address. From there it is a payment like any other: the chain watcher sees
 * it arrive and settles the charge. If the provider reports the purchase failed, the order's webhook
 * handling emits `payment.failed` and the charge stays payable (orders/apply-provider-webhook.ts).
 * One method at a time: while a balance payment or a swap of the charge is in flight, the order is
 * refused with 409 payment_in_progress (lib/charges/payment-in-flight.ts).
 */
import { and, desc, eq } from 'drizzle-orm';
import { type ChainName } from '@/lib/chains/registry';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, onrampOrders, onrampProviders } from '@/lib/db/schema';
import { checkoutBaseUrl } from '@/lib/env';
import { formatAmount } from '@/lib/money';
import { loadCheckoutStatus } from '@/lib/payments/checkout-status';
import { OnrampError } from './errors';
import type { FiatMethod } from './fiat-methods';
import { placeOnrampOrder, type PlacedOrder } from './orders/place-order';
import { usdRate } from './quotes';
import { valueInCents } from './fiat-math';

export async function payChargeWithFiat(input: {
  chargeId: string;
  providerId: string;
  paymentMethod: FiatMethod;
  country: string;
  userId?: string | null;
  /** Where the provider sends the buyer back (the checkout, keeping popup mode). */
  returnPath?: string;
}): Promise<PlacedOrder> {
  const [charge] = await getDb().select().from(charges).where(eq(charges.id, input.chargeId));
  if (!charge) throw new OnrampError('invalid_request', 'This charge does not exist.');
  // Pending, or processing with something still due (underpaid): the order buys only what is due.
  // The order is recorded under the charge's row lock, which checks again (place-order.ts).
  if ((charge.status !== 'pending' && charge.status !== 'processing') || charge.expiresAt <= new Date())
    throw new OnrampError('invalid_request', 'This charge can no longer be paid.');
  const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
  const status = await loadCheckoutStatus(charge.id);
  if (!deposit || !status) throw new OnrampError('invalid_request', 'This charge has no deposit address.');
  const token = tokenOfCharge(charge);
  const due = status.due;
  if (due === '0') throw new OnrampError('invalid_request', 'Nothing is left to pay on this charge.');
  return placeOnrampOrder({
    purpose: 'charge_payment',
    chargeId: charge.id,
    userId: input.userId ?? null,
    providerId: input.providerId,
    paymentMethod: input.paymentMethod,
    country: input.country,
    chain: charge.chain as ChainName,
    tokenSymbol: token.symbol,
    walletAddress: deposit.address,
    walletLabel: null,
    cryptoAmount: due,
    acceptMinimum: false,
    redirectUrl: `${checkoutBaseUrl()}${input.returnPath ?? `/checkout/${charge.id}`}`,
  });
}

/** The amount still due on a charge, in USD cents, when its token has a price (for the providers' minimums). */
export async function dueUsdCents(
  charge: { chain: string; tokenAddress: string; tokenSymbol: string; tokenDecimals: number },
  dueBaseUnits: bigint,
): Promise<bigint | undefined> {
  const token = tokenOfCharge(charge);
  const rate = await usdRate(token);
  return rate ? valueInCents(dueBaseUnits, token.decimals, rate) : undefined;
}

/** The newest fiat order for a charge, for the checkout to show its progress or failure. */
export async function latestFiatOrder(chargeId: string) {
  const [row] = await getDb()
    .select({
      id: onrampOrders.id,
      status: onrampOrders.status,
      failureReason: onrampOrders.failureReason,
      checkoutUrl: onrampOrders.checkoutUrl,
      providerName: onrampProviders.displayName,
      cryptoBaseUnits: onrampOrders.cryptoBaseUnits,
      tokenDecimals: onrampOrders.tokenDecimals,
      tokenSymbol: onrampOrders.tokenSymbol,
    })
    .from(onrampOrders)
    .innerJoin(onrampProviders, eq(onrampProviders.id, onrampOrders.providerId))
    .where(and(eq(onrampOrders.chargeId, chargeId), eq(onrampOrders.purpose, 'charge_payment')))
    .orderBy(desc(onrampOrders.createdAt))
    .limit(1);
  if (!row) return undefined;
  return { ...row, amount: `${formatAmount(row.cryptoBaseUnits, row.tokenDecimals)} ${row.tokenSymbol}` };
}
