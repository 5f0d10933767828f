import type { Metadata } from 'next';
import Link from 'next/link';
import type { OnrampDestination } from '@/lib/onramp/links/destination';
import { OnrampForm, type OnrampChainOption } from '@/components/onramp/onramp-form';
import { LocationOptions } from '@/components/location/location-options';
import { LocationSelector } from '@/components/location/location-selector';
import { getSessionUser } from '@/lib/auth/session';
import { CHAINS } from '@/lib/chains/registry';
import { countryOptions } from '@/lib/geo/country';
import { requestCountry } from '@/lib/geo/request-country';
import { offeredProviders, type OfferedProvider } from '@/lib/onramp/registry/offered-providers';
import { verifiedLinkMerchantName } from '@/lib/onramp/onramp-link-key';
import { listWallets } from '@/lib/wallets/list-wallets';
import { linkDestination } from '@/lib/onramp/links/link-destination';
import { onrampHref, parseOnrampParams, type SearchParams } from '@/lib/onramp/links/onramp-params';

export const metadata: Metadata = { title: 'Buy crypto' };

/**
 * The on-ramp (spec "Hosted checkout and on-ramp site"; also `/` of the checkout site): the link's
 * chain, token, wallet and wallet_label are checked here, the destination decided, and the providers
 * for the buyer's country loaded for every chain and token offered; the form picks among them.
 */
export default async function OnrampPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const query = await searchParams;
  const params = parseOnrampParams(query);
  const user = await getSessionUser().catch(() => undefined);
  const { country } = await requestCountry();
  const countries = countryOptions();
  const countryName = countries.find((c) => c.code === country)?.name ?? country;
  const restricted = params.chains.length === 1 ? params.chains[0] : undefined;
  const returnTo = onrampHref({
    chain: restricted,
    token: restricted ? params.defaultToken : undefined,
    wallet: params.wallet?.address,
    walletLabel: params.wallet?.rawLabel,
    signature: params.wallet?.signature,
  });

  let destination: OnrampDestination;
  if (params.wallet) {
    const { signature, rawLabel } = params.wallet;
    const [own, verifiedBy] = await Promise.all([
      user?.emailVerifiedAt ? listWallets(user.id) : [],
      signature && rawLabel
        ? verifiedLinkMerchantName(
            { merchantId: signature.merchantId, wallet: params.wallet.address, walletLabel: rawLabel },
            signature.value,
          )
        : null,
    ]);
    destination = linkDestination({ wallet: params.wallet, ownAddresses: own.map((wallet) => wallet.address), verifiedBy });
  } else if (user?.emailVerifiedAt) {
    const wallets = await listWallets(user.id);
    destination = { kind: 'own', wallets: Object.fromEntries(wallets.map((wallet) => [wallet.family, wallet.address])) };
  } else if (user) {
    destination = { kind: 'signin', href: '/verify-email', message: 'Verify your e-mail to buy for your Chargeport wallet' };
  } else {
    destination = {
      kind: 'signin',
      href: `/signin?callbackUrl=${encodeURIComponent(returnTo)}`,
      message: 'Sign in to buy for your Chargeport wallet',
    };
  }

  const chains: OnrampChainOption[] = params.chains.map((name) => ({
    name,
    displayName: CHAINS[name].displayName,
    family: CHAINS[name].family,
    tokens: CHAINS[name].tokens.map((token) => ({ symbol: token.symbol, name: token.name, decimals: token.decimals })),
  }));
  // A handful of (chain, token) pairs, each from the cached registry: the form switches between them instantly.
  const pairs = chains.flatMap((chain) => chain.tokens.map((token) => ({ chain: chain.name, tokenSymbol: token.symbol })));
  const offers = params.walletError ? [] : await Promise.all(pairs.map((pair) => offeredProviders({ country, ...pair })));
  const providers: Record<string, OfferedProvider[]> = Object.fromEntries(
    pairs.map((pair, index) => [`${pair.chain}:${pair.tokenSymbol}`, offers[index] ?? []]),
  );

  return (
    <div className="min-h-dvh">
      <header className="mx-auto flex max-w-4xl items-center justify-between gap-3 px-4 pt-4">
        <Link href="/" className="text-sm font-semibold text-slate-700">
          Chargeport
        </Link>
        <LocationSelector country={country} countryName={countryName} />
      </header>
      <main className="mx-auto flex max-w-4xl flex-col gap-4 px-4 py-6 md:py-10">
        <h1 className="text-2xl font-semibold tracking-tight">Buy crypto</h1>
        {params.notices.map((notice) => (
          <p
            key={notice}
            role="status"
            className="rounded-lg bg-sky-50 px-3 py-2 text-sm text-sky-900 ring-1 ring-sky-200"
            data-testid="link-notice"
          >
            {notice}
          </p>
        ))}
        {params.walletError ? (
          <section className="flex flex-col gap-3 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
            <p
              role="alert"
              className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-900 ring-1 ring-rose-200"
              data-testid="wallet-error"
            >
              {params.walletError}
            </p>
            {/* Buying for the buyer's own wallet instead: the same chain and token, without the bad address. */}
            <Link
              href={onrampHref({ chain: restricted, token: restricted ? params.defaultToken : undefined })}
              className="text-sm font-semibold text-brand-600 underline underline-offset-4"
            >
              Buy for your own Chargeport wallet instead
            </Link>
          </section>
        ) : (
          <OnrampForm
            chains={chains}
            defaultChain={params.defaultChain}
            defaultToken={params.defaultToken}
            providers={providers}
            destination={destination}
            country={country}
            countryName={countryName}
          />
        )}
      </main>
      {/* After the content: the first paint need not wait for ~250 options (ADR 0031). */}
      <LocationOptions country={country} options={countries} />
    </div>
  );
}
