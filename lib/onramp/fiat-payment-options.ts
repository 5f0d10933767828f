/**
 * The fiat methods (card, bank transfer, Apple Pay, Google Pay) a consumer in `country` can use to pay
 * a charge in `token` on `chain`: the checkout's slot for the on-ramp providers.
 *
 * Providers will come from the on-ramp provider registry (the on-ramp issue). Until one serves the
 * country, chain and token, nothing is offered and the checkout says so.
 */
import type { ChainName } from '@/lib/chains/registry';

export const FIAT_METHODS = ['card', 'bank_transfer', 'apple_pay', 'google_pay'] as const;
export type FiatMethod = (typeof FIAT_METHODS)[number];

export interface FiatPaymentOption {
  providerId: string;
  providerName: string;
  methods: FiatMethod[];
  minimumUsd: string;
}

/** Providers offering a fiat method for this country, chain and token; none until the provider registry lands. */
export async function fiatPaymentOptions(input: { country: string; chain: ChainName; tokenSymbol: string }): Promise<FiatPaymentOption[]> {
  void input;
  return [];
}
