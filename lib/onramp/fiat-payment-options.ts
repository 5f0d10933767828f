/**
 * The fiat methods (card, bank transfer, Apple Pay, Google Pay) a consumer in `country` can use to pay
 * a charge in `token` on `chain`: the checkout's slot for the on-ramp providers, from the provider
 * registry. A provider whose minimum purchase is above the amount due is offered for its minimum
 * (`buyMinimum`, spec on-ramp rule 5) where the charge can be paid from a Chargeport balance (every
 * chain, Solana included): the minimum goes to the buyer's wallet, pays the charge, and the rest stays there (ADR 0019);
 * elsewhere it is shown unavailable, with why. A method that cannot deliver before the charge expires
 * (bank transfers take days; registry fact `settlementMinutes`) is not offered (ADR 0014).
 */
import type { ChainName } from '@/lib/chains/registry';
import { toCents } from './fiat-math';
import { FIAT_METHOD_LABELS, type FiatMethod } from './fiat-methods';
import { offeredProviders } from './registry/offered-providers';

export interface FiatPaymentOption {
  providerId: string;
  providerName: string;
  available: boolean;
  reason?: string;
  /** Methods that can pay this amount before the charge expires, default first. */
  methods: FiatMethod[];
  minimumUsd: string;
  /** Present when the amount due is below every offered method's minimum: the order buys this minimum (USD). */
  buyMinimum?: { minimumUsd: string };
}

export async function fiatPaymentOptions(input: {
  country: string;
  chain: ChainName;
  tokenSymbol: string;
  dueUsdCents?: bigint;
  /** When the charge expires: methods that settle later are left out. */
  expiresAt?: Date;
  /** The charge can be paid from a balance (every chain, Solana included): below a minimum, the minimum may be bought into the buyer's wallet. */
  canBuyMinimum?: boolean;
  now?: Date;
}): Promise<FiatPaymentOption[]> {
  const offers = await offeredProviders(input);
  const minutesLeft = input.expiresAt ? (input.expiresAt.getTime() - (input.now ?? new Date()).getTime()) / 60_000 : Infinity;
  return offers.map((offer) => {
    const inTime = offer.methods.filter((method) => offer.methodSettlementMinutes[method]! <= minutesLeft);
    const methods =
      input.dueUsdCents === undefined ? inTime : inTime.filter((method) => toCents(offer.methodMinimums[method]!) <= input.dueUsdCents!);
    const tooSlow = offer.available && offer.methods.length > 0 && inTime.length === 0;
    const belowMinimum = offer.available && !tooSlow && methods.length === 0;
    const buyMinimum = belowMinimum && !!input.canBuyMinimum;
    const tooSmall = belowMinimum && !buyMinimum;
    const slowest = offer.methods.filter((method) => !inTime.includes(method));
    const reason =
      offer.reason ??
      (tooSlow
        ? `${slowest.map((m) => FIAT_METHOD_LABELS[m]).join(', ')} through ${offer.displayName} cannot deliver before this charge expires`
        : tooSmall
          ? `${offer.displayName}'s minimum purchase is $${offer.minimumUsd}, more than this payment`
          : undefined);
    const minimumOf = (list: FiatMethod[]) => list.map((m) => offer.methodMinimums[m]!).sort((a, b) => Number(toCents(a) - toCents(b)))[0]!;
    return {
      providerId: offer.providerId,
      providerName: offer.displayName,
      available: offer.available && !tooSlow && !tooSmall,
      ...(reason ? { reason } : {}),
      methods: buyMinimum ? inTime : methods,
      minimumUsd: offer.minimumUsd,
      ...(buyMinimum ? { buyMinimum: { minimumUsd: minimumOf(inTime) } } : {}),
    };
  });
}
