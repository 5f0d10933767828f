/**
 * Whether the swap on-ramp is offered for a charge, and why not (spec, "Token on-ramp"):
 *
 *  1. only for the configured (token, chain) pairs — PZP on BNB Smart Chain (swap-pairs.ts);
 *  2. only outside the United States — for both branches: the flow as a whole is not offered there. The
 *     rule reads `complianceCountry`, the server-side location (lib/geo/compliance-country.ts); an
 *     unknown location is treated as possibly the United States (not offered). `country` (the buyer's
 *     selector) only picks the providers listed;
 *  3. the on-ramp branch only with a provider that sells the funding token (USDC) on that chain in the
 *     buyer's country — from the provider registry (offeredProviders), which today leaves exactly one
 *     outside the United States. The others are listed, unavailable, with the reason to show.
 *
 * The held-funds branch needs no provider: outside the United States it is always offered.
 */
import { CHAINS } from '@/lib/chains/registry';
import type { FiatMethod } from '@/lib/onramp/fiat-methods';
import { countryName, offeredProviders, type OfferedProvider } from '@/lib/onramp/registry/offered-providers';
import { AppError } from '@/lib/errors';
import { swapPairFor, type SwapPair } from '@/lib/chains/swap-pairs';

export interface SwapProviderOption {
  providerId: string;
  displayName: string;
  available: boolean;
  reason?: string;
  methods: FiatMethod[];
  minimumUsd: string;
}

export type SwapAvailability =
  | { available: false; code: 'not_a_swap_pair' | 'united_states' | 'location_unknown'; reason: string }
  | {
      available: true;
      pair: SwapPair;
      onramp: { available: boolean; reason?: string; providers: SwapProviderOption[] };
    };

export async function swapAvailability(
  input: { country: string; complianceCountry: string | null; chain: string; tokenAddress: string },
  deps: { offeredProviders?: (query: { country: string; chain: 'BSC'; tokenSymbol: string }) => Promise<OfferedProvider[]> } = {},
): Promise<SwapAvailability> {
  const pair = swapPairFor(input.chain, input.tokenAddress);
  if (!pair) {
    return { available: false, code: 'not_a_swap_pair', reason: 'The swap on-ramp is only offered for PZP on BNB Smart Chain.' };
  }
  const country = input.country.toUpperCase();
  if (input.complianceCountry === null) {
    return {
      available: false,
      code: 'location_unknown',
      reason: `Swapping into ${pair.target.symbol} is not available here: it is not offered in the United States, and we could not confirm where you are. Pay with ${pair.target.symbol} you already hold.`,
    };
  }
  if (input.complianceCountry.toUpperCase() === 'US') {
    return {
      available: false,
      code: 'united_states',
      reason: `Swapping into ${pair.target.symbol} is not available in the United States: no on-ramp provider serves ${CHAINS[pair.chain].displayName} there. Pay with ${pair.target.symbol} you already hold.`,
    };
  }
  const query = deps.offeredProviders ?? offeredProviders;
  const offers = await query({ country, chain: pair.chain as 'BSC', tokenSymbol: pair.funding.symbol });
  const supporting = offers.filter((offer) => offer.available);
  const chainName = CHAINS[pair.chain].displayName;
  const where = countryName(country);
  const onlyReason = supporting.length
    ? `only ${supporting.map((p) => p.displayName).join(' or ')} ${supporting.length === 1 ? 'supports' : 'support'} ${chainName} in ${where}`
    : undefined;
  const providers = offers.map((offer) => ({
    providerId: offer.providerId,
    displayName: offer.displayName,
    available: offer.available,
    ...(offer.available ? {} : { reason: onlyReason ? `Not for this swap: ${onlyReason}.` : `${offer.reason ?? 'Unavailable'}.` }),
    methods: offer.methods,
    minimumUsd: offer.minimumUsd,
  }));
  return {
    available: true,
    pair,
    onramp: supporting.length
      ? { available: true, providers }
      : {
          available: false,
          reason: `No on-ramp provider sells ${pair.funding.symbol} on ${chainName} in ${where}. Pay with ${pair.funding.symbol} you already hold instead.`,
          providers,
        },
  };
}

/** The on-ramp branch's provider must be one that supports the chain in the buyer's country. */
export function assertSwapProvider(availability: SwapAvailability, providerId: string): SwapPair {
  if (!availability.available) throw new AppError('swap_unavailable', availability.reason);
  const offer = availability.onramp.providers.find((p) => p.providerId === providerId);
  if (!availability.onramp.available) throw new AppError('swap_unavailable', availability.onramp.reason!);
  if (!offer?.available) throw new AppError('swap_unavailable', offer?.reason ?? `Unknown provider "${providerId}".`);
  return availability.pair;
}

/** The held-funds branch: only the location rule applies. */
export function assertSwapOffered(availability: SwapAvailability): SwapPair {
  if (!availability.available) throw new AppError('swap_unavailable', availability.reason);
  return availability.pair;
}
