/**
 * The on-ramp provider registry: what each provider serves (countries, chains and tokens per country,
 * payment methods, minimum purchase in USD, fees, fiat currencies), kept as reviewed data in
 * providers.json with its review date, validated here, loaded into `onramp_providers` at start
 * (sync.ts) and read back by the pages (offered-providers.ts). Components never hard-code a provider fact.
 */
import { z } from 'zod';
import { CHAINS, CHAIN_NAMES, tokenHasSymbol, type ChainName } from '@/lib/chains/registry';
import { FIAT_METHODS, type FiatMethod } from '@/lib/onramp/fiat-methods';
import { ONRAMP_PROVIDER_IDS } from '@/lib/onramp/providers/types';
import registryData from './providers.json' with { type: 'json' };

const usd = z.string().regex(/^\d+(?:\.\d{1,2})?$/, 'must be a USD amount such as "20" or "3.99"');
const percent = z.string().regex(/^\d{1,2}(?:\.\d{1,2})?$/, 'must be a percentage such as "4.5"');
const countryCode = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code');

/** Countries a fact applies to: every country but some, or only some. */
const countryRuleSchema = z.union([
  z.object({ except: z.array(countryCode) }).strict(),
  z.object({ only: z.array(countryCode).min(1) }).strict(),
]);
export type CountryRule = z.infer<typeof countryRuleSchema>;

const methodFactSchema = z
  .object({
    method: z.enum(FIAT_METHODS),
    countries: countryRuleSchema.optional(),
    minimumUsd: usd,
    fee: z.object({ percent, minimumUsd: usd }).strict(),
    /**
     * The longest a purchase by this method usually takes from the buyer paying to the tokens arriving,
     * in minutes (cards: minutes; bank transfers: days). A charge offers only methods that settle before
     * it expires (fiat-payment-options.ts, orders/place-order.ts).
     */
    settlementMinutes: z
      .number()
      .int()
      .positive()
      .max(14 * 24 * 60),
  })
  .strict();
export type MethodFact = z.infer<typeof methodFactSchema>;

const assetFactSchema = z
  .object({
    chain: z.enum(CHAIN_NAMES),
    tokens: z.array(z.string().min(1)).min(1),
    countries: countryRuleSchema.optional(),
  })
  .strict();

export const providerFactsSchema = z
  .object({
    id: z.enum(ONRAMP_PROVIDER_IDS),
    displayName: z.string().min(1),
    website: z.url({ protocol: /^https$/ }),
    countries: countryRuleSchema,
    /** In order of preference; orders are in USD whenever the provider takes USD (the spec prefers it). */
    fiatCurrencies: z.array(z.string().regex(/^[A-Z]{3}$/)).min(1),
    /** In order of preference: the first one offered in the buyer's country is the default. */
    methods: z.array(methodFactSchema).min(1),
    assets: z.array(assetFactSchema).min(1),
    networkFeeUsd: z.partialRecord(z.enum(CHAIN_NAMES), usd),
  })
  .strict()
  .superRefine((provider, ctx) => {
    for (const [index, asset] of provider.assets.entries()) {
      for (const symbol of asset.tokens) {
        if (!CHAINS[asset.chain].tokens.some((token) => tokenHasSymbol(token, symbol))) {
          ctx.addIssue({
            code: 'custom',
            path: ['assets', index, 'tokens'],
            message: `${symbol} is not a registry token of ${asset.chain}`,
          });
        }
      }
      if (provider.networkFeeUsd[asset.chain] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['networkFeeUsd', asset.chain],
          message: 'every chain a provider sells on needs its network fee',
        });
      }
    }
  });
export type ProviderFacts = z.infer<typeof providerFactsSchema>;

export const registryFileSchema = z
  .object({
    reviewedOn: z.iso.date(),
    notes: z.string(),
    providers: z.array(providerFactsSchema).min(1),
  })
  .strict()
  .refine((file) => new Set(file.providers.map((p) => p.id)).size === file.providers.length, 'provider ids must be unique');
export type RegistryFile = z.infer<typeof registryFileSchema>;

/** The reviewed file, validated: a bad edit fails at start (and in the unit test), never at a buyer. */
export function reviewedRegistry(): RegistryFile {
  return registryFileSchema.parse(registryData);
}

export function countryMatches(rule: CountryRule | undefined, country: string): boolean {
  if (!rule) return true;
  return 'only' in rule ? rule.only.includes(country) : !rule.except.includes(country);
}

/** The methods a provider offers in a country, in its order of preference. */
export function methodsIn(provider: ProviderFacts, country: string): MethodFact[] {
  return provider.methods.filter((method) => countryMatches(method.countries, country));
}

export function methodFact(provider: ProviderFacts, method: FiatMethod, country: string): MethodFact | undefined {
  return methodsIn(provider, country).find((fact) => fact.method === method);
}

/** Why the provider cannot sell this token on this chain to a buyer in this country, or undefined when it can. */
export function assetUnavailableReason(
  provider: ProviderFacts,
  country: string,
  chain: ChainName,
  tokenSymbol: string,
  countryName: string,
): string | undefined {
  const chainInfo = CHAINS[chain];
  const token = chainInfo.tokens.find((t) => tokenHasSymbol(t, tokenSymbol));
  const symbol = token?.symbol ?? tokenSymbol;
  const entries = provider.assets.filter((asset) => asset.chain === chain && asset.tokens.some((t) => token && tokenHasSymbol(token, t)));
  if (!entries.length) {
    const anyOnChain = provider.assets.some((asset) => asset.chain === chain);
    return anyOnChain
      ? `${provider.displayName} does not sell ${symbol} on ${chainInfo.displayName}`
      : `${provider.displayName} does not support ${chainInfo.displayName}`;
  }
  if (!entries.some((asset) => countryMatches(asset.countries, country))) {
    return `${provider.displayName} does not sell ${symbol} on ${chainInfo.displayName} in ${countryName}`;
  }
  return undefined;
}

/** The fiat currency of an order: USD when the provider takes it, else its first currency. */
export function orderCurrency(provider: ProviderFacts): string {
  return provider.fiatCurrencies.includes('USD') ? 'USD' : provider.fiatCurrencies[0]!;
}
