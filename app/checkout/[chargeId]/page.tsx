import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import QRCode from 'qrcode';
import { cookies, headers } from 'next/headers';
import { ConnectWalletLazy } from '@/components/checkout/connect-wallet-lazy';
import { ExpiryCountdown } from '@/components/checkout/expiry-countdown';
import { FiatMethods } from '@/components/checkout/fiat-methods';
import { LocationSelector } from '@/components/location/location-selector';
import { CheckoutLive, WhilePayable } from '@/components/checkout/checkout-live';
import { LiveStatus } from '@/components/checkout/live-status';
import { PayFromBalanceForm } from '@/components/checkout/pay-from-balance-form';
import { SwapOnrampSection } from '@/components/checkout/swap-onramp-section';
import { cancelCheckoutAction } from './actions';
import { getSessionUser } from '@/lib/auth/session';
import { CHAINS } from '@/lib/chains/registry';
import { checkoutPath, checkoutPopupOrigin } from '@/lib/charges/checkout-popup';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import { loadCheckoutView } from '@/lib/charges/checkout-view';
import { complianceCountryFrom } from '@/lib/geo/compliance-country';
import { COUNTRY_COOKIE, countryFromRequest, countryOptions } from '@/lib/geo/country';
import { formatAmount, parseAmount } from '@/lib/money';
import { fiatPaymentOptions } from '@/lib/onramp/fiat-payment-options';
import { dueUsdCents, latestFiatOrder, minimumPurchasePreview } from '@/lib/onramp/pay-charge-with-fiat';
import { approximateUsd, formatUsd } from '@/lib/pricing/usd-value';
import { loadCheckoutStatus } from '@/lib/payments/checkout-status';
import { listWallets } from '@/lib/wallets/list-wallets';
import { tokenBalance } from '@/lib/wallets/token-balance';

export const metadata: Metadata = { title: 'Checkout', robots: { index: false } };

export default async function CheckoutPage({
  params,
  searchParams,
}: {
  params: Promise<{ chargeId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ chargeId }, query] = await Promise.all([params, searchParams]);
  const view = await loadCheckoutView(chargeId);
  if (!view) notFound();
  // Opened by the SDK's pay(): report to the opener and close instead of redirecting (lib/charges/checkout-popup.ts).
  const popupOrigin = checkoutPopupOrigin(query.mode, query.origin);
  const [status, user] = await Promise.all([loadCheckoutStatus(chargeId), getSessionUser().catch(() => undefined)]);
  // Every way to pay is rendered only while the charge may be paid now (nothing in flight, before
  // expiresAt, something due), for the amount still due; <CheckoutLive> hides them the moment that changes.
  // A charge whose chain is no longer served gets none: nothing would see a payment.
  const payable = (status?.payable ?? false) && view.isChainServed;
  const qr = payable && status?.deposit ? await QRCode.toString(status.deposit.uri, { type: 'svg', margin: 1, width: 176 }) : null;

  const chain = CHAINS[view.chain];
  const token = tokenOfCharge({
    chain: view.chain,
    tokenAddress: view.token.address,
    tokenSymbol: view.token.symbol,
    tokenDecimals: view.token.decimals,
  });
  const [requestHeaders, cookieJar] = await Promise.all([headers(), cookies()]);
  const { country } = countryFromRequest(requestHeaders, cookieJar.get(COUNTRY_COOKIE)?.value);
  const countries = countryOptions();
  const dueBaseUnits = status ? baseUnitsOf(status.due, view.token.decimals) : BigInt(view.totalBaseUnits);
  // Part of it has arrived: wallets are asked for the rest only, and the balance form (which pays the whole total) is not offered.
  const isPartPaid = dueBaseUnits < BigInt(view.totalBaseUnits);
  const due = `${status?.due ?? view.total} ${view.token.symbol}`;
  const dueCents = payable
    ? await dueUsdCents(
        { chain: view.chain, tokenAddress: view.token.address, tokenSymbol: view.token.symbol, tokenDecimals: view.token.decimals },
        dueBaseUnits,
      ).catch(() => undefined)
    : undefined;
  const [usd, fiatOptions, fiatOrder] = await Promise.all([
    token ? approximateUsd(token, BigInt(view.totalBaseUnits)).catch(() => undefined) : undefined,
    payable
      ? fiatPaymentOptions({
          country,
          chain: view.chain,
          tokenSymbol: view.token.symbol,
          ...(dueCents !== undefined ? { dueUsdCents: dueCents } : {}),
          expiresAt: new Date(view.expiresAt),
          // Below a provider's minimum, the minimum can go to the buyer's wallet, which pays the charge (ADR 0019).
          canBuyMinimum: chain.family === 'evm',
        })
      : [],
    payable ? latestFiatOrder(view.id) : undefined,
  ]);

  const minimumPreviews = Object.fromEntries(
    await Promise.all(
      fiatOptions
        .filter((option) => option.buyMinimum && option.methods[0])
        .map(async (option) => [
          option.providerId,
          await minimumPurchasePreview({
            providerId: option.providerId,
            paymentMethod: option.methods[0]!,
            country,
            chain: view.chain,
            tokenSymbol: view.token.symbol,
            due: status?.due ?? view.total,
          }),
        ]),
    ),
  );

  let balance: { text: string; enough: boolean; shortfall: string; walletAddress: string } | undefined;
  if (payable && !isPartPaid && user?.emailVerifiedAt) {
    const evm = (await listWallets(user.id)).find((wallet) => wallet.family === 'evm');
    const units = evm && token && chain.family === 'evm' ? await tokenBalance(view.chain, token, evm.address) : undefined;
    if (units !== undefined && token && evm) {
      const total = BigInt(view.totalBaseUnits);
      balance = {
        text: `${formatAmount(units, token.decimals)} ${token.symbol}`,
        enough: units >= total,
        shortfall: `${formatAmount(units >= total ? 0n : total - units, token.decimals)} ${token.symbol}`,
        walletAddress: evm.address,
      };
    }
  }

  return (
    <div className="min-h-dvh">
      {view.isTest && (
        <div role="status" className="bg-amber-400 px-4 py-1.5 text-center text-sm font-semibold text-amber-950" data-testid="test-banner">
          TEST MODE — this charge runs on {view.chainName}; no real funds move.
        </div>
      )}
      <header className="mx-auto flex max-w-4xl items-center justify-between gap-3 px-4 pt-4">
        <span className="text-sm font-semibold text-slate-700">Chargeport</span>
        <LocationSelector country={country} options={countries} />
      </header>
      <main className="mx-auto grid max-w-4xl grid-cols-1 gap-6 px-4 py-6 md:grid-cols-[minmax(0,1fr)_22rem] md:py-10">
        <section aria-labelledby="order-heading" className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
          <div className="flex items-center gap-3">
            {view.merchantLogoUrl && (
              // The merchant's own image host: a plain img (next/image would need every host configured).
              // eslint-disable-next-line @next/next/no-img-element
              <img
                src={view.merchantLogoUrl}
                alt=""
                width={40}
                height={40}
                className="size-10 rounded-lg object-cover"
                data-testid="merchant-logo"
              />
            )}
            <div>
              <p className="text-sm text-slate-500">Pay</p>
              <h1 id="order-heading" className="text-xl font-semibold" data-testid="merchant-name">
                {view.merchantName}
              </h1>
            </div>
          </div>
          {view.items.length > 0 && (
            <ul className="mt-6 divide-y divide-slate-100" data-testid="items">
              {view.items.map((item, index) => (
                <li key={index} className="flex items-center gap-4 py-3">
                  {item.image ? (
                    // Merchant-hosted images: any origin, so a plain img (next/image would need each host configured).
                    // eslint-disable-next-line @next/next/no-img-element
                    <img src={item.image} alt="" width={48} height={48} className="size-12 rounded-lg bg-slate-100 object-cover" />
                  ) : (
                    <div aria-hidden className="size-12 rounded-lg bg-slate-100" />
                  )}
                  <div className="min-w-0 flex-1">
                    <p className="truncate font-medium">{item.name}</p>
                    <p className="text-sm text-slate-500">
                      {item.quantity} × {item.unitAmount} {view.token.symbol}
                    </p>
                  </div>
                  <p className="font-mono tabular-nums">
                    {item.lineTotal} {view.token.symbol}
                  </p>
                </li>
              ))}
            </ul>
          )}
          <div className="mt-4 flex items-baseline justify-between border-t border-slate-200 pt-4">
            <span className="font-medium">Total</span>
            <span className="font-mono text-2xl font-semibold tabular-nums" data-testid="total">
              {view.total} {view.token.symbol}
            </span>
          </div>
          {view.pricing && (
            <p className="mt-1 text-right text-sm text-slate-700" data-testid="usd-price">
              Price {formatUsd(usdCentsText(view.pricing.usd))} ·{' '}
              {view.pricing.rateSource === 'par'
                ? `1 ${view.token.symbol} = $1 (stablecoin)`
                : `1 ${view.token.symbol} = $${view.pricing.rate}, locked when the charge was created`}
            </p>
          )}
          <p className="mt-1 text-right text-sm text-slate-500">
            {usd && !view.pricing && (
              <>
                <span data-testid="usd-value">≈ {formatUsd(usd)}</span>
                {' · '}
              </>
            )}
            {view.token.symbol} on <span data-testid="chain">{view.chainName}</span>
          </p>
        </section>

        <aside className="flex flex-col gap-5 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
          {status && (
            <CheckoutLive initial={status} rendered={{ payable, due: status.due }}>
              <div className="flex items-start justify-between gap-3">
                <LiveStatus {...(popupOrigin ? { popupOrigin } : {})} />
                {payable && (
                  <WhilePayable>
                    <span className="shrink-0 text-sm text-slate-500">
                      <ExpiryCountdown expiresAt={view.expiresAt} />
                    </span>
                  </WhilePayable>
                )}
              </div>

              {payable && (
                <WhilePayable>
                  <div className="flex flex-col gap-5" data-testid="payment-options">
                    <section aria-labelledby="balance-heading" className="flex flex-col gap-2">
                      <h2 id="balance-heading" className="text-sm font-semibold">
                        Pay from your balance
                      </h2>
                      {isPartPaid ? (
                        <p className="text-sm text-slate-600">Part of this charge is paid: pay the rest from any wallet below.</p>
                      ) : balance ? (
                        <PayFromBalanceForm
                          chargeId={view.id}
                          total={`${view.total} ${view.token.symbol}`}
                          balance={balance.text}
                          enough={balance.enough}
                          topUp={{
                            shortfall: balance.shortfall,
                            chainName: view.chainName,
                            walletAddress: balance.walletAddress,
                            onrampUrl: `/onramp?${new URLSearchParams({ chain: view.chain, token: view.token.symbol, wallet: balance.walletAddress, wallet_label: 'Your Chargeport wallet' })}`,
                          }}
                        />
                      ) : user ? (
                        <p className="text-sm text-slate-600">Your balance on {view.chainName} cannot be read right now.</p>
                      ) : (
                        <Link
                          href={`/signin?callbackUrl=${encodeURIComponent(checkoutPath(view.id, popupOrigin))}`}
                          className="text-sm font-semibold text-brand-600 underline underline-offset-4"
                        >
                          Sign in to pay from your Chargeport balance
                        </Link>
                      )}
                    </section>

                    {status.deposit && (
                      <section aria-labelledby="wallet-heading" className="flex flex-col gap-2 border-t border-slate-200 pt-4">
                        <h2 id="wallet-heading" className="text-sm font-semibold">
                          Pay from any wallet
                        </h2>
                        <p className="text-sm text-slate-600" data-testid="send-exactly">
                          {isPartPaid ? 'Send the remaining ' : 'Send exactly '}
                          <strong className="font-mono">{due}</strong> on {view.chainName} to:
                        </p>
                        {qr && (
                          <div
                            className="mx-auto size-44"
                            aria-label="QR code of the payment request"
                            role="img"
                            data-testid="payment-qr"
                            data-uri={status.deposit.uri}
                            dangerouslySetInnerHTML={{ __html: qr }}
                          />
                        )}
                        <p className="break-all rounded-lg bg-slate-100 p-2 font-mono text-xs" data-testid="deposit-address">
                          {status.deposit.address}
                        </p>
                        <a
                          href={status.deposit.uri}
                          className="text-center text-sm font-semibold text-brand-600 underline underline-offset-4"
                          data-testid="open-in-wallet"
                        >
                          Open in wallet
                        </a>
                        {chain.family === 'evm' && (
                          <ConnectWalletLazy
                            chainId={chain.evmChainId!}
                            depositAddress={status.deposit.address}
                            tokenAddress={view.token.address}
                            isNative={view.token.isNative}
                            amountBaseUnits={dueBaseUnits.toString()}
                            label={due}
                          />
                        )}
                      </section>
                    )}

                    <SwapOnrampSection
                      chargeId={view.id}
                      chain={view.chain}
                      tokenAddress={view.token.address}
                      country={country}
                      complianceCountry={complianceCountryFrom(requestHeaders)}
                      signedIn={!!user?.emailVerifiedAt}
                      {...(popupOrigin ? { popupOrigin } : {})}
                    />

                    <FiatMethods
                      chargeId={view.id}
                      {...(popupOrigin ? { popupOrigin } : {})}
                      options={fiatOptions}
                      countryName={countries.find((c) => c.code === country)?.name ?? country}
                      tokenLabel={`${view.token.symbol} on ${view.chainName}`}
                      {...(fiatOrder ? { latestOrder: fiatOrder } : {})}
                      minimumPreviews={minimumPreviews}
                      due={due}
                      signedIn={!!user?.emailVerifiedAt}
                      signInUrl={`/signin?callbackUrl=${encodeURIComponent(checkoutPath(view.id, popupOrigin))}`}
                    />

                    {status.status === 'pending' && (view.cancelUrl || popupOrigin) && (
                      <form action={cancelCheckoutAction} className="text-center">
                        <input type="hidden" name="chargeId" value={view.id} />
                        {popupOrigin && <input type="hidden" name="popupOrigin" value={popupOrigin} />}
                        <button type="submit" className="text-sm text-slate-500 underline underline-offset-4">
                          {popupOrigin ? 'Cancel payment' : `Cancel and return to ${view.merchantName}`}
                        </button>
                      </form>
                    )}
                  </div>
                </WhilePayable>
              )}
            </CheckoutLive>
          )}
          {!view.isChainServed && view.status === 'pending' && (
            <p className="text-sm text-slate-600" data-testid="chain-not-served">
              Payments on {view.chainName} are not available on this service right now. Do not send funds for this charge.
            </p>
          )}
          <p className="mt-auto text-xs text-slate-500">Charge {view.id}</p>
        </aside>
      </main>
    </div>
  );
}

/** A decimal text of the checkout status back in base units (zero stays zero). */
function baseUnitsOf(amount: string, decimals: number): bigint {
  const parsed = parseAmount(amount, decimals);
  return parsed.ok ? parsed.baseUnits : 0n;
}

/** "4.9" → "4.90": formatUsd wants cents. */
function usdCentsText(amount: string): string {
  const [whole, fraction = ''] = amount.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}
