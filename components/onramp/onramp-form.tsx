'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import { placeOnrampOrderAction, type PlaceOrderResult } from '@/app/onramp/actions';
import { Button } from '@/components/ui/button';
import type { ChainFamily, ChainName } from '@/lib/chains/registry';
import { parseAmount } from '@/lib/money';
import type { FiatMethod } from '@/lib/onramp/fiat-methods';
import { parseFiat } from '@/lib/onramp/fiat-math';
import type { OnrampQuoteView } from '@/lib/onramp/quote-onramp';
import type { OfferedProvider } from '@/lib/onramp/registry/offered-providers';
import { destinationAddress, type OnrampDestination } from '@/lib/onramp/links/destination';
import { DestinationLine } from './destination';
import { formatFiat } from '@/lib/format-amount';
import { shortAddress } from './format';
import { MethodPicker, ProviderList } from './provider-list';
import { QuotePanel } from './quote-panel';
import { requestQuote, type QuoteRequest } from './quote-request';
import { createQuoteScheduler, type ScheduledState } from './quote-scheduler';

/** Long enough to finish typing "125.50", short enough to feel immediate. */
const QUOTE_DEBOUNCE_MS = 500;

export interface OnrampChainOption {
  name: ChainName;
  displayName: string;
  family: ChainFamily;
  tokens: { symbol: string; name: string; decimals: number }[];
}

export interface OnrampFormProps {
  chains: OnrampChainOption[];
  defaultChain: ChainName;
  defaultToken: string;
  /** Offered providers per `${chain}:${token}`, for the buyer's country. */
  providers: Record<string, OfferedProvider[]>;
  destination: OnrampDestination;
  /** The buyer's country: a new one (location selector) asks for a new quote. */
  country: string;
  countryName: string;
}

type AmountKind = 'crypto' | 'usd';
type BuyError = NonNullable<PlaceOrderResult['error']>;

function preferredToken(chain: OnrampChainOption): string {
  return (chain.tokens.find((t) => t.symbol === 'USDC') ?? chain.tokens[0]!).symbol;
}

/** The typed amount as the quote API takes it, or why it cannot be asked for yet. */
function checkAmount(
  text: string,
  kind: AmountKind,
  token: { symbol: string; decimals: number },
): { amount?: QuoteRequest['amount']; problem?: string } {
  const value = text.trim();
  if (!value) return {};
  if (kind === 'usd')
    return parseFiat(value) === undefined ? { problem: 'Enter a USD amount such as 25 or 25.50.' } : { amount: { kind, value } };
  const parsed = parseAmount(value, token.decimals);
  if (parsed.ok) return { amount: { kind, value } };
  return {
    problem:
      parsed.reason === 'too_many_decimals'
        ? `${token.symbol} has at most ${token.decimals} decimals.`
        : `Enter a ${token.symbol} amount such as 25 or 0.5.`,
  };
}

export function OnrampForm({ chains, defaultChain, defaultToken, providers, destination, country, countryName }: OnrampFormProps) {
  const router = useRouter();
  const [chainName, setChainName] = useState(defaultChain);
  const [tokenSymbol, setTokenSymbol] = useState(defaultToken);
  const [amountKind, setAmountKind] = useState<AmountKind>('crypto');
  const [amountText, setAmountText] = useState('');
  const [providerChoice, setProviderChoice] = useState<string>();
  const [methodChoice, setMethodChoice] = useState<FiatMethod>();
  const [quoteState, setQuoteState] = useState<ScheduledState<OnrampQuoteView>>({ status: 'idle' });
  const [buyError, setBuyError] = useState<BuyError>();
  const [placing, setPlacing] = useState(false);
  const [scheduler] = useState(() => createQuoteScheduler({ delayMs: QUOTE_DEBOUNCE_MS, run: requestQuote, onState: setQuoteState }));

  const chain = chains.find((c) => c.name === chainName) ?? chains[0]!;
  const token = chain.tokens.find((t) => t.symbol === tokenSymbol) ?? chain.tokens[0]!;
  const offered = providers[`${chain.name}:${token.symbol}`] ?? [];
  // The buyer's pick while it can serve this chain and token; otherwise the best available (list is best first).
  const provider = offered.find((p) => p.available && p.providerId === providerChoice) ?? offered.find((p) => p.available);
  const method = provider && methodChoice && provider.methods.includes(methodChoice) ? methodChoice : provider?.methods[0];
  const { amount, problem } = checkAmount(amountText, amountKind, token);
  const walletAddress = destinationAddress(destination, chain.family);

  const quoteInput = useMemo<QuoteRequest | null>(
    () =>
      provider && method && amount
        ? {
            providerId: provider.providerId,
            chain: chain.name,
            tokenSymbol: token.symbol,
            paymentMethod: method,
            amount: { kind: amount.kind, value: amount.value },
          }
        : null,
    [provider, method, amount?.kind, amount?.value, chain.name, token.symbol], // eslint-disable-line react-hooks/exhaustive-deps -- the amount's fields, not its identity
  );

  // Every change of what is asked (country included: the route reads it from the cookie) supersedes the last quote.
  useEffect(() => {
    scheduler.schedule(quoteInput);
  }, [scheduler, quoteInput, country]);
  useEffect(() => () => scheduler.dispose(), [scheduler]);

  // A quote is only good until it expires: ask again then, without waiting for the buyer.
  const expiresAt = quoteState.status === 'ready' ? quoteState.output.expiresAt : undefined;
  useEffect(() => {
    if (!expiresAt || !quoteInput) return;
    const timer = setTimeout(
      () => scheduler.schedule(quoteInput, { immediate: true }),
      Math.max(0, new Date(expiresAt).getTime() - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [expiresAt, quoteInput, scheduler]);

  const quote = quoteState.status === 'ready' ? quoteState.output : undefined;
  const minimum =
    buyError?.code === 'below_minimum' && buyError.details?.minimumFiat && buyError.details.minimumCrypto
      ? { fiat: buyError.details.minimumFiat, crypto: buyError.details.minimumCrypto }
      : quote?.belowMinimum
        ? quote.minimum
        : undefined;

  function select(update: () => void) {
    update();
    setBuyError(undefined);
  }

  function switchAmountKind(kind: AmountKind) {
    if (kind === amountKind) return;
    // Keep the same purchase: the last quote knows both sides of it.
    select(() => {
      setAmountKind(kind);
      setAmountText(quote ? (kind === 'usd' ? quote.subtotal : quote.cryptoAmount) : '');
    });
  }

  async function buy(acceptMinimum: boolean) {
    if (!provider || !method || !quote) return;
    setPlacing(true);
    setBuyError(undefined);
    const result = await placeOnrampOrderAction({
      providerId: provider.providerId,
      paymentMethod: method,
      chain: chain.name,
      tokenSymbol: token.symbol,
      cryptoAmount: quote.cryptoAmount,
      acceptMinimum,
      ...(destination.kind === 'link' ? { wallet: destination.address, walletLabel: destination.label ?? undefined } : {}),
    }).catch((): PlaceOrderResult => ({
      error: { code: 'network', message: 'The order could not be sent. Check your connection and try again.' },
    }));
    if (result.error) {
      setBuyError(result.error);
      setPlacing(false);
      return;
    }
    const { orderId, checkoutUrl, checkoutKind } = result.data;
    let popupBlocked = false;
    if (checkoutKind === 'redirect') {
      // The provider's screen in a new tab; this tab follows the order. No opener: the provider's page
      // must not be able to navigate ours.
      const tab = window.open(checkoutUrl, '_blank');
      if (tab) tab.opener = null;
      else popupBlocked = true;
    }
    const view = checkoutKind === 'embed' ? '?view=embed' : popupBlocked ? '?popup=blocked' : '';
    router.push(`/onramp/orders/${encodeURIComponent(orderId)}${view}`);
  }

  const canBuy = !!quote && !minimum && !!walletAddress && !placing;

  return (
    <div className="grid gap-6 md:grid-cols-[13rem_1fr]">
      <fieldset className="min-w-0" data-testid="chains">
        <legend className="mb-2 text-sm font-semibold">Chain</legend>
        {/* A column on the left; on a phone a row above that scrolls sideways. */}
        <div className="-mx-1 flex gap-2 overflow-x-auto px-1 pb-1 md:flex-col md:overflow-visible">
          {chains.map((option) => (
            <label
              key={option.name}
              className="shrink-0 cursor-pointer rounded-lg bg-white px-3 py-2 text-sm font-medium ring-1 ring-slate-300 has-checked:bg-brand-50 has-checked:ring-2 has-checked:ring-brand-500 has-focus-visible:outline-2 has-focus-visible:outline-brand-600"
            >
              <input
                type="radio"
                name="chain"
                value={option.name}
                className="sr-only"
                checked={option.name === chain.name}
                onChange={() =>
                  select(() => {
                    setChainName(option.name);
                    setTokenSymbol(preferredToken(option));
                  })
                }
              />
              {option.displayName}
            </label>
          ))}
        </div>
      </fieldset>

      <div className="flex min-w-0 flex-col gap-5 rounded-2xl bg-white p-5 shadow-sm ring-1 ring-slate-200 sm:p-6">
        <DestinationLine destination={destination} family={chain.family} chainName={chain.displayName} />

        <fieldset data-testid="tokens">
          <legend className="mb-2 text-sm font-semibold">Token</legend>
          <div className="flex flex-wrap gap-2">
            {chain.tokens.map((option) => (
              <label
                key={option.symbol}
                title={option.name}
                className="cursor-pointer rounded-full px-3 py-1.5 text-sm font-medium ring-1 ring-slate-300 has-checked:bg-brand-600 has-checked:text-white has-checked:ring-brand-600 has-focus-visible:outline-2 has-focus-visible:outline-brand-600"
              >
                <input
                  type="radio"
                  name="token"
                  value={option.symbol}
                  className="sr-only"
                  checked={option.symbol === token.symbol}
                  onChange={() => select(() => setTokenSymbol(option.symbol))}
                />
                {option.symbol}
              </label>
            ))}
          </div>
        </fieldset>

        <div className="flex flex-col gap-1.5">
          <div className="flex items-center justify-between gap-3">
            <label htmlFor="onramp-amount" className="text-sm font-semibold">
              Amount
            </label>
            <div role="radiogroup" aria-label="Enter the amount in" className="flex rounded-lg bg-slate-100 p-0.5 text-xs font-semibold">
              {(['crypto', 'usd'] as const).map((kind) => (
                <button
                  key={kind}
                  type="button"
                  role="radio"
                  aria-checked={amountKind === kind}
                  className={`rounded-md px-2.5 py-1 ${amountKind === kind ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600'}`}
                  onClick={() => switchAmountKind(kind)}
                >
                  {kind === 'usd' ? 'USD' : token.symbol}
                </button>
              ))}
            </div>
          </div>
          <div className="relative">
            <input
              id="onramp-amount"
              inputMode="decimal"
              autoComplete="off"
              placeholder={amountKind === 'usd' ? '25.00' : '25'}
              value={amountText}
              maxLength={40}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? 'onramp-amount-problem' : undefined}
              onChange={(event) => select(() => setAmountText(event.target.value))}
              className="min-h-11 w-full rounded-lg border border-slate-300 bg-white py-2 pr-16 pl-3 font-mono text-lg tabular-nums outline-none focus:border-brand-500 focus:ring-2 focus:ring-brand-100 aria-invalid:border-rose-500"
            />
            <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-sm font-semibold text-slate-500">
              {amountKind === 'usd' ? 'USD' : token.symbol}
            </span>
          </div>
          {problem && (
            <p id="onramp-amount-problem" role="alert" className="text-sm text-rose-700">
              {problem}
            </p>
          )}
        </div>

        <ProviderList
          providers={offered}
          selected={provider?.providerId}
          countryName={countryName}
          onSelect={(id) => select(() => setProviderChoice(id))}
        />
        {provider && <MethodPicker methods={provider.methods} selected={method} onSelect={(m) => select(() => setMethodChoice(m))} />}

        <section aria-label="Price" className="border-t border-slate-200 pt-4">
          <QuotePanel
            state={quoteState}
            arrivesAt={`on ${chain.displayName}${walletAddress ? ` at ${shortAddress(walletAddress)}` : ''}`}
            hint={
              provider
                ? undefined
                : `No provider sells ${token.symbol} on ${chain.displayName} in ${countryName}. Pick another token or chain.`
            }
          />
        </section>

        {minimum && provider && (
          <div
            role="alert"
            className="flex flex-col gap-3 rounded-lg bg-amber-50 px-3 py-3 text-sm text-amber-950 ring-1 ring-amber-200"
            data-testid="below-minimum"
          >
            <p>
              {provider.displayName} sells at least{' '}
              <strong>
                {formatFiat(minimum.fiat, 'USD')} ({minimum.crypto} {token.symbol})
              </strong>{' '}
              in one purchase. Your amount is below that minimum.
            </p>
            {walletAddress && (
              <Button type="button" onClick={() => buy(true)} disabled={placing}>
                Buy the minimum ({minimum.crypto} {token.symbol})
              </Button>
            )}
          </div>
        )}

        {buyError && buyError.code !== 'below_minimum' && (
          <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-900 ring-1 ring-rose-200" data-testid="buy-error">
            {buyError.message}
          </p>
        )}

        {destination.kind === 'signin' ? (
          <Link
            href={destination.href}
            className="inline-flex min-h-11 items-center justify-center rounded-lg bg-brand-600 px-4 text-sm font-semibold text-white hover:bg-brand-700"
          >
            {destination.message}
          </Link>
        ) : (
          !minimum && (
            <div className="flex flex-col gap-1.5">
              <Button type="button" onClick={() => buy(false)} disabled={!canBuy} data-testid="buy">
                {placing ? 'Opening the payment screen…' : 'Buy'}
              </Button>
              {provider && (
                <p className="text-center text-xs text-slate-500">
                  {provider.displayName}&rsquo;s payment screen opens in a new tab; this page follows your order.
                </p>
              )}
            </div>
          )
        )}
      </div>
    </div>
  );
}
