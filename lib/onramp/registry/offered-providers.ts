/**
 * Which providers a buyer is offered for a chain and token, from the registry rows in the database
 * (the reviewed facts, loaded at start) and the adapters configured on this deployment.
 * Providers that cannot serve the request stay in the list, unavailable, with the reason to show.
 */
import { CHAINS, tokenHasSymbol, type ChainName } from '@/lib/chains/registry';
import type { FiatMethod } from '@/lib/onramp/fiat-methods';
import { adapterFor } from '@/lib/onramp/providers/adapter-for';
import type { OnrampProviderAdapter, OnrampProviderId } from '@/lib/onramp/providers/types';
import { assetUnavailableReason, countryMatches, methodsIn, orderCurrency, type MethodFact, type ProviderFacts } from './facts';
import { registryEntries } from './registry-entries';

export interface OfferedProvider {
  providerId: OnrampProviderId;
  displayName: string;
  available: boolean;
  /** Why it is unavailable, in words for the buyer. */
  reason?: string;
  /** Methods offered in the buyer's country, in the provider's order of preference (first = default). */
  methods: FiatMethod[];
  /** Minimum purchase (USD) of the default method; per method in methodMinimums. */
  minimumUsd: string;
  methodMinimums: Partial<Record<FiatMethod, string>>;
  /** The longest each method usually takes to deliver (registry fact `settlementMinutes`). */
  methodSettlementMinutes: Partial<Record<FiatMethod, number>>;
  fiatCurrency: string;
}

export function countryName(country: string): string {
  return new Intl.DisplayNames(['en'], { type: 'region' }).of(country) ?? country;
}

function offeredMethods(facts: ProviderFacts, adapter: OnrampProviderAdapter, country: string): MethodFact[] {
  const currency = orderCurrency(facts);
  return methodsIn(facts, country).filter((method) => adapter.supportsPaymentMethod(method.method, currency));
}

/** Why this provider cannot sell this to this buyer, or undefined when it can. */
export function unavailableReason(
  facts: ProviderFacts,
  adapter: OnrampProviderAdapter,
  input: { country: string; chain: ChainName; tokenSymbol: string },
): string | undefined {
  const name = countryName(input.country);
  if (!countryMatches(facts.countries, input.country)) return `${facts.displayName} does not serve ${name}`;
  const assetReason = assetUnavailableReason(facts, input.country, input.chain, input.tokenSymbol, name);
  if (assetReason) return assetReason;
  if (!adapter.supportsAsset(input.chain, input.tokenSymbol)) {
    const token = CHAINS[input.chain].tokens.find((t) => tokenHasSymbol(t, input.tokenSymbol));
    return `${facts.displayName} cannot deliver ${token?.symbol ?? input.tokenSymbol} on ${CHAINS[input.chain].displayName} through this service yet`;
  }
  if (!offeredMethods(facts, adapter, input.country).length) return `${facts.displayName} has no payment method for ${name}`;
  return undefined;
}

export async function offeredProviders(input: { country: string; chain: ChainName; tokenSymbol: string }): Promise<OfferedProvider[]> {
  const offers: (OfferedProvider & { bestFee: number })[] = [];
  for (const { facts } of await registryEntries()) {
    const adapter = adapterFor(facts.id, facts.displayName);
    if (!adapter) continue;
    const reason = unavailableReason(facts, adapter, input);
    const methods = reason ? [] : offeredMethods(facts, adapter, input.country);
    const defaultMethod = methods[0] ?? facts.methods[0]!;
    offers.push({
      providerId: facts.id,
      displayName: facts.displayName,
      available: !reason,
      ...(reason ? { reason } : {}),
      methods: methods.map((m) => m.method),
      minimumUsd: defaultMethod.minimumUsd,
      methodMinimums: Object.fromEntries(methods.map((m) => [m.method, m.minimumUsd])),
      methodSettlementMinutes: Object.fromEntries(methods.map((m) => [m.method, m.settlementMinutes])),
      fiatCurrency: orderCurrency(facts),
      // Ordering only (the default method's fee rate); amounts never use it.
      bestFee: Number(defaultMethod.fee.percent),
    });
  }
  return offers
    .sort((a, b) => Number(b.available) - Number(a.available) || a.bestFee - b.bestFee || a.displayName.localeCompare(b.displayName))
    .map(({ bestFee: _bestFee, ...offer }) => offer);
}
