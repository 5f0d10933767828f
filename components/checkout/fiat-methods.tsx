import type { FiatMethod, FiatPaymentOption } from '@/lib/onramp/fiat-payment-options';

const METHOD_LABELS: Record<FiatMethod, string> = {
  card: 'Card',
  bank_transfer: 'Bank transfer',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
};

/** "Pay with card, bank transfer, Apple Pay or Google Pay": what the on-ramp providers offer in the consumer's country. */
export function FiatMethods({ options, countryName, tokenLabel }: { options: FiatPaymentOption[]; countryName: string; tokenLabel: string }) {
  return (
    <section aria-labelledby="fiat-heading" className="flex flex-col gap-2 border-t border-slate-200 pt-4" data-testid="fiat-methods">
      <h2 id="fiat-heading" className="text-sm font-semibold">
        Pay with card, bank transfer, Apple Pay or Google Pay
      </h2>
      {options.length ? (
        <ul className="flex flex-col gap-1 text-sm">
          {options.map((option) => (
            <li key={option.providerId}>
              {option.providerName}: {option.methods.map((m) => METHOD_LABELS[m]).join(', ')} (from ${option.minimumUsd})
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-600">
          Not offered in {countryName} for {tokenLabel} yet. Change your location at the top of the page, or pay from a balance or a wallet.
        </p>
      )}
    </section>
  );
}
