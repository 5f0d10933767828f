import { adapterFor } from '@/lib/onramp/providers/adapter-for';
import type { OnrampProviderAdapter } from '@/lib/onramp/providers/types';
import type { ProviderFacts } from './facts';
import { registryEntries } from './registry-entries';

/** The provider's facts and its adapter, when it is enabled and configured here. */
export async function providerWithAdapter(
  providerId: string,
): Promise<{ facts: ProviderFacts; adapter: OnrampProviderAdapter } | undefined> {
  const entry = (await registryEntries()).find((e) => e.facts.id === providerId);
  const adapter = entry && adapterFor(entry.facts.id, entry.facts.displayName);
  return entry && adapter ? { facts: entry.facts, adapter } : undefined;
}
