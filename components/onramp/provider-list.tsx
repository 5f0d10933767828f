import { FIAT_METHOD_LABELS } from '@/lib/onramp/fiat-methods';
import type { FiatMethod } from '@/lib/onramp/fiat-methods';
import type { OfferedProvider } from '@/lib/onramp/registry/offered-providers';
import { formatFiat } from '@/lib/format-amount';

/**
 * The providers for the chosen chain and token in the buyer's country, best first. One that cannot
 * sell it stays listed, disabled, with the reason, so the buyer knows to pick another (on-ramp rule 3).
 */
export function ProviderList({
  providers,
  selected,
  onSelect,
  countryName,
}: {
  providers: OfferedProvider[];
  selected: string | undefined;
  onSelect: (providerId: OfferedProvider['providerId']) => void;
  countryName: string;
}) {
  return (
    <fieldset className="flex flex-col gap-2" data-testid="providers">
      <legend className="mb-2 text-sm font-semibold">Provider</legend>
      {providers.length === 0 && (
        <p className="text-sm text-slate-600">
          No provider sells tokens in {countryName} here. Change your location at the top of the page.
        </p>
      )}
      {providers.map((provider) => (
        <label
          key={provider.providerId}
          data-testid={`provider-${provider.providerId}`}
          data-available={provider.available}
          className={`flex items-start gap-3 rounded-lg px-3 py-2.5 ring-1 ${
            provider.available
              ? 'cursor-pointer ring-slate-300 has-checked:bg-brand-50 has-checked:ring-2 has-checked:ring-brand-500'
              : 'cursor-not-allowed bg-slate-50 ring-slate-200'
          }`}
        >
          <input
            type="radio"
            name="provider"
            value={provider.providerId}
            className="mt-1 accent-brand-600"
            checked={selected === provider.providerId}
            disabled={!provider.available}
            aria-describedby={`provider-${provider.providerId}-note`}
            onChange={() => onSelect(provider.providerId)}
          />
          <span className="flex min-w-0 flex-col">
            <span className={`font-medium ${provider.available ? '' : 'text-slate-500'}`}>{provider.displayName}</span>
            <span id={`provider-${provider.providerId}-note`} className="text-sm text-slate-600" data-testid="provider-note">
              {provider.available
                ? `From ${formatFiat(provider.minimumUsd, 'USD')} · ${provider.methods.map((m) => FIAT_METHOD_LABELS[m]).join(', ')}`
                : `Unavailable: ${provider.reason}`}
            </span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

export function MethodPicker({
  methods,
  selected,
  onSelect,
}: {
  methods: FiatMethod[];
  selected: FiatMethod | undefined;
  onSelect: (method: FiatMethod) => void;
}) {
  if (!methods.length) return null;
  return (
    <fieldset className="flex flex-col gap-2" data-testid="methods">
      <legend className="mb-2 text-sm font-semibold">Pay with</legend>
      <div className="flex flex-wrap gap-2">
        {methods.map((method) => (
          <label
            key={method}
            className="cursor-pointer rounded-full px-3 py-1.5 text-sm ring-1 ring-slate-300 has-checked:bg-brand-600 has-checked:text-white has-checked:ring-brand-600 has-focus-visible:outline-2 has-focus-visible:outline-brand-600"
          >
            <input
              type="radio"
              name="method"
              value={method}
              className="sr-only"
              checked={selected === method}
              onChange={() => onSelect(method)}
            />
            {FIAT_METHOD_LABELS[method]}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
