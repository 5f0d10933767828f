import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { cookies, headers } from 'next/headers';
import { CheckoutLive, WhilePayable } from '@/components/checkout/checkout-live';
import { ConnectWalletLazy } from '@/components/checkout/connect-wallet-lazy';
import { ExpiryCountdown } from '@/components/checkout/expiry-countdown';
import { FiatMethods } from '@/components/checkout/fiat-methods';
import { ItemImage } from '@/components/checkout/item-image';
import { LiveStatus } from '@/components/checkout/live-status';
import { PayFromBalanceForm } from '@/components/checkout/pay-from-balance-form';
import { PaymentTabs, type PaymentTab } from '@/components/checkout/payment-tabs';
import { SwapOnrampSection } from '@/components/checkout/swap-onramp-section';
import { LocationOptions } from '@/components/location/location-options';
import { LocationSelector } from '@/components/location/location-selector';
import { Amount } from '@/components/ui/amount';
import { CopyButton } from '@/components/ui/copy-button';
import { COUNTRY_COOKIE } from '@/lib/geo/country';
import { loadCheckoutPage, type CheckoutPage, type PaymentWay } from '@/lib/views/load-checkout-page';
import { cancelCheckoutAction } from './actions';

export const metadata: Metadata = { title: 'Checkout', robots: { index: false } };

const WAY_LABELS: Record<PaymentWay, string> = {
  balance: 'Balance',
  wallet: 'Crypto wallet',
  swap: 'With USDC',
  card: 'Card or bank',
};

export default async function CheckoutPage({
  params,
  searchParams,
}: {
  params: Promise<{ chargeId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ chargeId }, query, requestHeaders, cookieJar] = await Promise.all([params, searchParams, headers(), cookies()]);
  const page = await loadCheckoutPage({ chargeId, query, requestHeaders, countryCookie: cookieJar.get(COUNTRY_COOKIE)?.value });
  if (!page) notFound();
  // The countdown's first value is rendered here, from the server's clock (see ExpiryCountdown). A server
  // component renders once per request, so this is that request's time, not an unstable render input.
  // eslint-disable-next-line react-hooks/purity
  const renderedAt = Date.now();
  const { view, status, payable, popupOrigin } = page;
  const symbol = view.token.symbol;

  return (
    <div className="min-h-dvh">
      {view.isTest && (
        <div role="status" className="bg-amber-400 px-4 py-1.5 text-center text-sm font-semibold text-amber-950" data-testid="test-banner">
          TEST MODE — this charge runs on {view.chainName}; no real funds move.
        </div>
      )}
      <header className="mx-auto flex max-w-4xl items-center justify-between gap-3 px-4 pt-4">
        <span className="text-sm font-semibold text-slate-700">Chargeport</span>
        <LocationSelector country={page.country} countryName={page.countryName} />
      </header>
      <main className="mx-auto grid max-w-4xl grid-cols-1 gap-6 px-4 py-6 md:grid-cols-[minmax(0,1fr)_24rem] md:py-10">
        <section aria-labelledby="order-heading" className="min-w-0 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
          <div className="flex items-center gap-3">
            {view.merchantLogoUrl ? (
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
            ) : (
              <span aria-hidden className="flex size-10 items-center justify-center rounded-lg bg-brand-50 font-semibold text-brand-700">
                {view.merchantName.slice(0, 1).toUpperCase()}
              </span>
            )}
            <div className="min-w-0">
              <p className="text-sm text-slate-500">Pay</p>
              <h1 id="order-heading" className="break-words text-xl font-semibold" data-testid="merchant-name">
                {view.merchantName}
              </h1>
            </div>
          </div>
          {view.items.length > 0 && (
            <ul className="mt-6 divide-y divide-slate-100" data-testid="items">
              {view.items.map((item, index) => (
                <li key={index} className="flex items-start gap-4 py-3">
                  <ItemImage {...(item.image ? { src: item.image } : {})} />
                  <div className="min-w-0 flex-1">
                    <p className="break-words font-medium [overflow-wrap:anywhere]">{item.name}</p>
                    <p className="text-sm text-slate-500">
                      {item.quantity} × <Amount value={item.unitAmount} symbol={symbol} />
                    </p>
                  </div>
                  <Amount value={item.lineTotal} symbol={symbol} className="font-mono" />
                </li>
              ))}
            </ul>
          )}
          <div className="mt-4 flex flex-wrap items-baseline justify-between gap-x-3 border-t border-slate-200 pt-4">
            <span className="font-medium">Total</span>
            <Amount value={view.total} symbol={symbol} className="font-mono text-2xl font-semibold" testId="total" />
          </div>
          {page.usdLine?.kind === 'priced' && (
            <p className="mt-1 text-right text-sm text-slate-700" data-testid="usd-price">
              {page.usdLine.text}
            </p>
          )}
          <p className="mt-1 text-right text-sm text-slate-500">
            {page.usdLine?.kind === 'approximate' && (
              <>
                <span data-testid="usd-value">{page.usdLine.text}</span>
                {' · '}
              </>
            )}
            {symbol} on <span data-testid="chain">{view.chainName}</span>
          </p>
        </section>

        <aside className="flex min-w-0 flex-col gap-5 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
          {status && (
            <CheckoutLive initial={status} rendered={{ payable, due: status.due }}>
              <div className="flex flex-wrap items-start justify-between gap-3">
                <LiveStatus {...(popupOrigin ? { popupOrigin } : {})} />
                {payable && (
                  <WhilePayable>
                    <span className="shrink-0 text-sm text-slate-500">
                      <ExpiryCountdown expiresAt={view.expiresAt} serverNow={renderedAt} />
                    </span>
                  </WhilePayable>
                )}
              </div>

              {payable && (
                <WhilePayable>
                  <div className="flex flex-col gap-5" data-testid="payment-options">
                    <PaymentTabs
                      tabs={page.ways.map(
                        (way) => ({ id: way, label: WAY_LABELS[way], panel: <WayPanel way={way} page={page} /> }) satisfies PaymentTab,
                      )}
                    />
                    {page.canCancel && (
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
          <p className="mt-auto break-all text-xs text-slate-500">Charge {view.id}</p>
        </aside>
      </main>
      {/* After the content: the first paint need not wait for ~250 options (ADR 0031). */}
      <LocationOptions country={page.country} options={page.countries} />
    </div>
  );
}

/** One way to pay, as its tab shows it. */
function WayPanel({ way, page }: { way: PaymentWay; page: CheckoutPage }) {
  const { view, status, popupOrigin } = page;
  const symbol = view.token.symbol;
  switch (way) {
    case 'balance':
      return <BalancePanel page={page} />;
    case 'wallet': {
      const deposit = status?.deposit;
      if (!deposit) return null;
      return (
        <section aria-label="Pay from any wallet" className="flex flex-col gap-3">
          <p className="text-sm text-slate-600" data-testid="send-exactly">
            {page.isPartPaid ? 'Send the remaining ' : 'Send exactly '}
            <Amount value={page.due} symbol={symbol} exact className="font-mono font-semibold text-slate-900" /> on {view.chainName} to:
          </p>
          {page.qrSvg && (
            <div
              className="mx-auto size-44"
              aria-label="QR code of the payment request"
              role="img"
              data-testid="payment-qr"
              data-uri={deposit.uri}
              dangerouslySetInnerHTML={{ __html: page.qrSvg }}
            />
          )}
          <p className="break-all rounded-lg bg-slate-100 p-2 font-mono text-xs" data-testid="deposit-address">
            {deposit.address}
          </p>
          <div className="flex flex-wrap justify-center gap-2">
            <CopyButton text={deposit.address} label="Copy address" compact testId="copy-address" />
            <CopyButton text={page.due} label="Copy amount" compact testId="copy-amount" />
          </div>
          <a
            href={deposit.uri}
            className="text-center text-sm font-semibold text-brand-600 underline underline-offset-4"
            data-testid="open-in-wallet"
          >
            Open in wallet
          </a>
          {page.chain.family === 'evm' && page.chain.evmChainId !== null && (
            <ConnectWalletLazy
              chainId={page.chain.evmChainId}
              depositAddress={deposit.address}
              tokenAddress={view.token.address}
              isNative={view.token.isNative}
              amountBaseUnits={page.dueBaseUnits}
              label={`${page.due} ${symbol}`}
              walletConnectProjectId={page.walletConnectProjectId}
            />
          )}
        </section>
      );
    }
    case 'swap':
      return (
        <SwapOnrampSection
          chargeId={view.id}
          chain={view.chain}
          tokenAddress={view.token.address}
          country={page.country}
          complianceCountry={page.complianceCountry}
          signedIn={page.signedIn}
          {...(popupOrigin ? { popupOrigin } : {})}
        />
      );
    case 'card':
      return (
        <FiatMethods
          chargeId={view.id}
          {...(popupOrigin ? { popupOrigin } : {})}
          options={page.fiat.options}
          countryName={page.countryName}
          tokenLabel={`${symbol} on ${view.chainName}`}
          {...(page.fiat.latestOrder ? { latestOrder: page.fiat.latestOrder } : {})}
          minimumPreviews={page.fiat.minimumPreviews}
          due={page.due}
          symbol={symbol}
          signedIn={page.signedIn}
          signInUrl={page.signInUrl}
        />
      );
  }
}

function BalancePanel({ page }: { page: CheckoutPage }) {
  const { view, balance } = page;
  const symbol = view.token.symbol;
  switch (balance.kind) {
    case 'signed_out':
      return (
        <Link href={balance.signInUrl} className="text-sm font-semibold text-brand-600 underline underline-offset-4">
          Sign in to pay from your Chargeport balance
        </Link>
      );
    case 'part_paid':
      return <p className="text-sm text-slate-600">Part of this charge is paid: pay the rest from a crypto wallet.</p>;
    case 'needs_pin':
      return (
        <div className="flex flex-col gap-2 text-sm" data-testid="set-pin">
          <p className="text-slate-700">Payments from your Chargeport balance are confirmed with a PIN, and your account has none yet.</p>
          <Link href={balance.setPinUrl} className="font-semibold text-brand-600 underline underline-offset-4">
            Set a PIN, then come back to pay
          </Link>
        </div>
      );
    case 'unreadable':
      return <p className="text-sm text-slate-600">Your balance on {view.chainName} cannot be read right now.</p>;
    case 'ready':
      return (
        <PayFromBalanceForm
          chargeId={view.id}
          total={view.total}
          symbol={symbol}
          balance={balance.balance}
          enough={balance.enough}
          merchantName={view.merchantName}
          allowance={balance.allowance}
          topUp={{
            shortfall: balance.shortfall,
            chainName: view.chainName,
            walletAddress: balance.walletAddress,
            onrampUrl: balance.onrampUrl,
          }}
        />
      );
  }
}
