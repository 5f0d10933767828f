/**
 * The fiat methods (card, bank transfer, Apple Pay, Google Pay) a consumer in `country` can use to pay
 * a charge in `token` on `chain`: the checkout's slot for the on-ramp providers, from the provider
 * registry. A provider whose minimum purchase is above the amount due is shown, unavailable, with why:
 * buying its minimum would overpay the charge.
 */
import type { ChainName } from '@/lib/chains/registry';
import { toCents } from './fiat-math';
import type { FiatMethod } from './fiat-methods';
import { offeredProviders } from './registry/query';

export interface FiatPaymentOption {
  providerId: string;
  providerName: string;
  available: boolean;
  reason?: string;
  /** Methods that can pay this amount, default first. */
  methods: FiatMethod[];
  minimumUsd: string;
}

export async function fiatPaymentOptions(input: {
  country: string;
  chain: ChainName;
  tokenSymbol: string;
  dueUsdCents?: bigint;
}): Promise<FiatPaymentOption[]> {
  const offers = await offeredProviders(input);
  return offers.map((offer) => {
    const methods =
      input.dueUsdCents === undefined
        ? offer.methods
        : offer.methods.filter((method) => toCents(offer.methodMinimums[method]!) <= input.dueUsdCents!);
    const tooSmall = offer.available && methods.length === 0;
    const reason =
      offer.reason ?? (tooSmall ? `${offer.displayName}'s minimum purchase is $${offer.minimumUsd}, more than this payment` : undefined);
    return {
      providerId: offer.providerId,
      providerName: offer.displayName,
      available: offer.available && !tooSmall,
      ...(reason ? { reason } : {}),
      methods,
      minimumUsd: offer.minimumUsd,
    };
  });
}
