/**
 * Placing an on-ramp order: check the provider serves this buyer, price it, apply the provider's
 * minimum (spec rule 5: below it, the order is for the minimum when the buyer accepts), record the
 * order and its first timeline entry, then ask the provider for its checkout link.
 *
 * The order row exists before the provider hears of it, so even its fastest webhook finds the order.
 * A provider that refuses the order leaves it `failed` with the reason, never half-made.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { CHAINS, CHAIN_NAMES, isValidAddress, normalizeAddress } from '@/lib/chains/registry';
import { lockChargeForPayment } from '@/lib/charges/payment-in-flight';
import { getDb } from '@/lib/db/client';
import { ONRAMP_ORDER_PURPOSES, onrampOrderEvents, onrampOrders } from '@/lib/db/schema';
import { checkoutBaseUrl } from '@/lib/env';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { parseAmount } from '@/lib/money';
import { FIAT_METHOD_LABELS, FIAT_METHODS, type FiatMethod } from '@/lib/onramp/fiat-methods';
import { isOnrampProviderError } from '@/lib/onramp/providers/errors';
import { AppError } from '@/lib/errors';
import { onrampOrderMachine } from './state';
import { priceOf, quoteOnramp, tokenOn, type OnrampQuoteView } from '@/lib/onramp/quote-onramp';
import { methodFact, orderCurrency, type ProviderFacts } from '@/lib/onramp/registry/facts';
import { providerWithAdapter } from '@/lib/onramp/registry/provider-with-adapter';
import { toCents } from '@/lib/onramp/fiat-math';

/** A created order nobody starts within this time expires. */
const ORDER_START_WINDOW_MS = 30 * 60_000;

const placeOrderInputSchema = z.object({
  purpose: z.enum(ONRAMP_ORDER_PURPOSES).default('wallet_topup'),
  userId: z.string().nullish(),
  chargeId: z.string().nullish(),
  providerId: z.string().min(1),
  paymentMethod: z.enum(FIAT_METHODS),
  country: z.string().regex(/^[A-Z]{2}$/),
  chain: z.enum(CHAIN_NAMES),
  tokenSymbol: z.string().trim().min(1).max(16),
  walletAddress: z.string().trim().min(1).max(128),
  walletLabel: z.string().trim().max(80).nullish(),
  /** Token amount to buy, as decimal text. */
  cryptoAmount: z.string().trim().min(1).max(80),
  /** Below the provider's minimum: true buys the minimum instead; false refuses with `below_minimum`. */
  acceptMinimum: z.boolean().default(false),
  /** Where the provider sends the buyer back; `{orderId}` is replaced. Default: the order page. */
  redirectUrl: z.url({ protocol: /^https?$/ }).optional(),
});
export type PlaceOrderInput = z.input<typeof placeOrderInputSchema>;

export interface PlacedOrder {
  orderId: string;
  checkoutUrl: string;
  checkoutKind: 'redirect' | 'embed';
  quote: OnrampQuoteView;
  raisedToMinimum: boolean;
}

function orderPageUrl(orderId: string): string {
  return `${checkoutBaseUrl()}/onramp/orders/${orderId}`;
}

export async function placeOnrampOrder(rawInput: PlaceOrderInput, now = new Date()): Promise<PlacedOrder> {
  const parsed = placeOrderInputSchema.safeParse(rawInput);
  if (!parsed.success)
    throw new AppError('invalid_request', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const input = parsed.data;
  const chain = CHAINS[input.chain];
  const token = tokenOn(input.chain, input.tokenSymbol);
  if (!token) throw new AppError('unsupported_token', `${input.tokenSymbol} is not a token of ${chain.displayName}.`);
  if (!isValidAddress(chain.family, input.walletAddress)) {
    throw new AppError('invalid_wallet', `${input.walletAddress} is not a valid ${chain.displayName} address.`);
  }
  const walletAddress = normalizeAddress(chain.family, input.walletAddress);

  const requested = await quoteOnramp(
    {
      providerId: input.providerId,
      country: input.country,
      chain: input.chain,
      tokenSymbol: token.symbol,
      paymentMethod: input.paymentMethod,
      amount: { kind: 'crypto', value: input.cryptoAmount },
    },
    now,
  );
  let quote = requested;
  if (requested.belowMinimum) {
    if (!input.acceptMinimum) {
      throw new AppError(
        'below_minimum',
        `The minimum purchase here is $${requested.minimum.fiat} (${requested.minimum.crypto} ${token.symbol}).`,
        { details: { minimumFiat: requested.minimum.fiat, minimumCrypto: requested.minimum.crypto } },
      );
    }
    quote = await minimumQuote(input, requested, now);
  }

  const { facts, adapter } = (await providerWithAdapter(input.providerId))!;
  const orderId = newId('onrampOrder');
  const order = {
    id: orderId,
    userId: input.userId ?? null,
    chargeId: input.chargeId ?? null,
    purpose: input.purpose,
    providerId: facts.id,
    chain: input.chain,
    tokenSymbol: token.symbol,
    tokenAddress: token.address,
    tokenDecimals: token.decimals,
    walletAddress,
    walletLabel: input.walletLabel || null,
    country: input.country,
    paymentMethod: input.paymentMethod,
    fiatCurrency: orderCurrency(facts),
    requestedBaseUnits: BigInt(requested.cryptoBaseUnits),
    cryptoBaseUnits: BigInt(quote.cryptoBaseUnits),
    raisedToMinimum: quote !== requested,
    quote: { rate: quote.rate, subtotal: quote.subtotal, providerFee: quote.providerFee, networkFee: quote.networkFee, total: quote.total },
    fiatTotal: quote.total,
    status: 'created' as const,
    expiresAt: new Date(now.getTime() + ORDER_START_WINDOW_MS),
  };
  await getDb().transaction(async (tx) => {
    // An order paying a charge is one payment method of it: recorded under the charge's row lock, and
    // refused while another method is in flight (lib/charges/payment-in-flight.ts).
    if (order.chargeId) {
      const charge = await lockChargeForPayment(tx, order.chargeId, order.purpose === 'swap_funding' ? 'swap' : 'fiat', now);
      assertSettlesBeforeExpiry({ facts, paymentMethod: input.paymentMethod, country: input.country, expiresAt: charge.expiresAt, now });
    }
    await tx.insert(onrampOrders).values(order);
    await tx.insert(onrampOrderEvents).values({
      id: newId('onrampOrderEvent'),
      orderId,
      fromStatus: null,
      toStatus: 'created',
      source: 'buyer',
      data: { raisedToMinimum: order.raisedToMinimum, requested: requested.cryptoAmount, ordered: quote.cryptoAmount },
    });
  });

  const redirectUrl = (input.redirectUrl ?? orderPageUrl('{orderId}'))
    .replace(encodeURIComponent('{orderId}'), orderId)
    .replace('{orderId}', orderId);
  try {
    const checkout = await adapter.buildCheckout(
      {
        orderId,
        walletAddress,
        chain: input.chain,
        tokenSymbol: token.symbol,
        fiatCurrency: order.fiatCurrency,
        amount: { kind: 'crypto', value: quote.cryptoAmount },
        country: input.country,
        paymentMethod: input.paymentMethod,
        redirectUrl,
      },
      { now },
    );
    await getDb().update(onrampOrders).set({ checkoutUrl: checkout.url }).where(eq(onrampOrders.id, orderId));
    return { orderId, checkoutUrl: checkout.url, checkoutKind: checkout.kind, quote, raisedToMinimum: order.raisedToMinimum };
  } catch (error) {
    const reason = isOnrampProviderError(error) ? error.message : 'The provider could not start the purchase.';
    log.warn('on-ramp provider refused an order', { orderId, providerId: facts.id, error });
    await getDb().transaction(async (tx) => {
      const [failed] = await tx
        .update(onrampOrders)
        .set({ status: 'failed', failureReason: reason })
        .where(and(eq(onrampOrders.id, orderId), inArray(onrampOrders.status, onrampOrderMachine.leadingTo('failed'))))
        .returning({ id: onrampOrders.id });
      if (!failed) return; // a provider update got there first: it decides the outcome
      await tx.insert(onrampOrderEvents).values({
        id: newId('onrampOrderEvent'),
        orderId,
        fromStatus: 'created',
        toStatus: 'failed',
        source: 'system:provider',
        data: { reason },
      });
    });
    throw new AppError(
      'provider_error',
      `${facts.displayName} could not start the purchase: ${reason} Try again or choose another provider.`,
    );
  }
}

/**
 * A charge is paid by its expiry or not at all: a method that usually takes longer to deliver (a bank
 * transfer's days) is refused for it (ADR 0014). The checkout does not offer such a method either.
 */
function assertSettlesBeforeExpiry(input: {
  facts: ProviderFacts;
  paymentMethod: FiatMethod;
  country: string;
  expiresAt: Date;
  now: Date;
}): void {
  const method = methodFact(input.facts, input.paymentMethod, input.country);
  if (!method) return; // quoteOnramp already refused a method the provider does not offer here
  const minutesLeft = Math.floor((input.expiresAt.getTime() - input.now.getTime()) / 60_000);
  if (method.settlementMinutes <= minutesLeft) return;
  throw new AppError(
    'settles_after_expiry',
    `${FIAT_METHOD_LABELS[input.paymentMethod]} through ${input.facts.displayName} can take up to ${durationText(method.settlementMinutes)} to deliver, and this charge expires in ${durationText(Math.max(minutesLeft, 0))}. Choose a faster method, such as a card, or pay from a wallet.`,
  );
}

function durationText(minutes: number): string {
  if (minutes >= 2 * 24 * 60) return `${Math.floor(minutes / (24 * 60))} days`;
  if (minutes >= 120) return `${Math.floor(minutes / 60)} hours`;
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** The same purchase at the method's minimum. */
async function minimumQuote(
  input: z.output<typeof placeOrderInputSchema>,
  requested: OnrampQuoteView,
  now: Date,
): Promise<OnrampQuoteView> {
  const { facts } = (await providerWithAdapter(input.providerId))!;
  const method = methodFact(facts, input.paymentMethod, input.country)!;
  const token = tokenOn(input.chain, input.tokenSymbol)!;
  const minimumCents = toCents(method.minimumUsd);
  return priceOf(parseDecimal(requested.minimum.crypto, token.decimals), {
    providerId: facts.id,
    token,
    rate: requested.rate,
    feePercent: method.fee.percent,
    minimumFeeCents: toCents(method.fee.minimumUsd),
    networkFeeCents: toCents(facts.networkFeeUsd[input.chain] ?? '0'),
    fiatCurrency: requested.fiatCurrency,
    minimum: { fiat: requested.minimum.fiat, crypto: requested.minimum.crypto, cents: minimumCents },
    now,
  });
}

function parseDecimal(text: string, decimals: number): bigint {
  const parsed = parseAmount(text, decimals);
  if (!parsed.ok) throw new Error(`minimum ${text} is not an amount of ${decimals} decimals`);
  return parsed.baseUnits;
}
