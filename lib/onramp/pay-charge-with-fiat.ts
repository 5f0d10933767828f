/**
 * Paying a charge with fiat: an on-ramp order for the amount still due, delivered by the provider to
 * the charge's own deposit address. Below the provider's minimum (a $4.99 game purchase, a $20 card
 * minimum), the buyer may buy the minimum instead (`buyMinimum`, signed in): the order is for the
 * minimum, delivered to the buyer's own service wallet, which pays the charge once the delivery is
 * confirmed; the rest stays in the buyer's balance (pay-charge-from-order.ts, ADR 0019). From there it is a payment like any other: the chain watcher sees
 * it arrive and settles the charge. If the provider reports the purchase failed, the order's webhook
 * handling emits `payment.failed` and the charge stays payable (orders/apply-provider-webhook.ts).
 * One method at a time: while a balance payment or a swap of the charge is in flight, the order is
 * refused with 409 payment_in_progress (lib/charges/payment-in-flight.ts).
 */
import { and, desc, eq, inArray } from 'drizzle-orm';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, onrampOrders, onrampProviders } from '@/lib/db/schema';
import { checkoutBaseUrl } from '@/lib/env';
import { formatAmount } from '@/lib/money';
import { failureMessage } from './failure-message';
import { listWallets } from '@/lib/wallets/list-wallets';
import { loadCheckoutStatus } from '@/lib/payments/checkout-status';
import { AppError } from '@/lib/errors';
import type { FiatMethod } from './fiat-methods';
import { placeOnrampOrder, type PlacedOrder } from './orders/place-order';
import { usdRate } from '@/lib/pricing/approximate-usd';
import { quoteOnramp, tokenOn } from './quote-onramp';
import { valueInCents } from './fiat-math';

export async function payChargeWithFiat(input: {
  chargeId: string;
  providerId: string;
  paymentMethod: FiatMethod;
  country: string;
  userId?: string | null;
  /** Where the provider sends the buyer back (the checkout, keeping popup mode). */
  returnPath?: string;
  /** The buyer accepted, on the checkout, to buy the provider's minimum when the amount due is below it. */
  buyMinimum?: boolean;
}): Promise<PlacedOrder> {
  const [charge] = await getDb().select().from(charges).where(eq(charges.id, input.chargeId));
  if (!charge) throw new AppError('invalid_request', 'This charge does not exist.');
  // Pending, or processing with something still due (underpaid): the order buys only what is due.
  // The order is recorded under the charge's row lock, which checks again (place-order.ts).
  if ((charge.status !== 'pending' && charge.status !== 'processing') || charge.expiresAt <= new Date())
    throw new AppError('invalid_request', 'This charge can no longer be paid.');
  const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
  const status = await loadCheckoutStatus(charge.id);
  if (!deposit || !status) throw new AppError('invalid_request', 'This charge has no deposit address.');
  const token = tokenOfCharge(charge);
  const due = status.due;
  if (due === '0') throw new AppError('invalid_request', 'Nothing is left to pay on this charge.');
  const redirectUrl = `${checkoutBaseUrl()}${input.returnPath ?? `/checkout/${charge.id}`}`;
  if (input.buyMinimum) {
    // Into the buyer's own wallet, which then pays the charge: so the buyer must be someone with a wallet.
    if (!input.userId)
      throw new AppError(
        'unauthenticated',
        'Sign in (or create an account) to buy the minimum: the rest is kept in your Chargeport balance.',
      );
    const family = CHAINS[charge.chain as ChainName].family;
    const wallet = (await listWallets(input.userId)).find((w) => w.family === family);
    if (!wallet) throw new AppError('invalid_wallet', `Your account has no ${family === 'evm' ? 'EVM' : 'Solana'} wallet.`);
    return placeOnrampOrder({
      purpose: 'charge_minimum',
      chargeId: charge.id,
      userId: input.userId,
      providerId: input.providerId,
      paymentMethod: input.paymentMethod,
      country: input.country,
      chain: charge.chain as ChainName,
      tokenSymbol: token.symbol,
      walletAddress: wallet.address,
      walletLabel: 'Your Chargeport wallet',
      cryptoAmount: due,
      acceptMinimum: true,
      redirectUrl,
    });
  }
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
    redirectUrl,
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
      purpose: onrampOrders.purpose,
      chargePaymentError: onrampOrders.chargePaymentError,
    })
    .from(onrampOrders)
    .innerJoin(onrampProviders, eq(onrampProviders.id, onrampOrders.providerId))
    .where(and(eq(onrampOrders.chargeId, chargeId), inArray(onrampOrders.purpose, ['charge_payment', 'charge_minimum'])))
    .orderBy(desc(onrampOrders.createdAt))
    .limit(1);
  if (!row) return undefined;
  // The provider's code (`card_declined`) in words: the buyer never reads a raw code.
  return {
    ...row,
    failureReason: failureMessage(row.failureReason),
    amount: `${formatAmount(row.cryptoBaseUnits, row.tokenDecimals)} ${row.tokenSymbol}`,
  };
}

export interface MinimumPurchasePreview {
  /** The provider's minimum, in USD, and in tokens of the charge. */
  minimumFiat: string;
  minimumCrypto: string;
  /** What the purchase costs, fees included, in the provider's currency. */
  total: string;
  fiatCurrency: string;
  /** What stays in the buyer's balance after the charge is paid. */
  remainder: string;
}

/** What buying the provider's minimum for a charge means, shown before the buyer buys it (a quote, not a promise). */
export async function minimumPurchasePreview(input: {
  providerId: string;
  paymentMethod: FiatMethod;
  country: string;
  chain: ChainName;
  tokenSymbol: string;
  due: string;
}): Promise<MinimumPurchasePreview | undefined> {
  const base = {
    providerId: input.providerId,
    country: input.country,
    chain: input.chain,
    tokenSymbol: input.tokenSymbol,
    paymentMethod: input.paymentMethod,
  };
  try {
    const requested = await quoteOnramp({ ...base, amount: { kind: 'crypto', value: input.due } });
    if (!requested.belowMinimum) return undefined;
    const minimum = await quoteOnramp({ ...base, amount: { kind: 'crypto', value: requested.minimum.crypto } });
    const decimals = tokenOn(input.chain, input.tokenSymbol)!.decimals;
    const remainder = BigInt(minimum.cryptoBaseUnits) - BigInt(requested.cryptoBaseUnits);
    return {
      minimumFiat: requested.minimum.fiat,
      minimumCrypto: minimum.cryptoAmount,
      total: minimum.total,
      fiatCurrency: minimum.fiatCurrency,
      remainder: formatAmount(remainder > 0n ? remainder : 0n, decimals),
    };
  } catch {
    return undefined;
  }
}
