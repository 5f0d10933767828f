import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { ExpiryCountdown } from '@/components/checkout/expiry-countdown';
import { StatusBadge } from '@/components/checkout/status-badge';
import { loadCheckoutView } from '@/lib/charges/checkout-view';

export const metadata: Metadata = { title: 'Checkout', robots: { index: false } };

export default async function CheckoutPage({ params }: { params: Promise<{ chargeId: string }> }) {
  const { chargeId } = await params;
  const view = await loadCheckoutView(chargeId);
  if (!view) notFound();
  const payable = view.status === 'pending';

  return (
    <div className="min-h-dvh">
      {view.isTest && (
        <div role="status" className="bg-amber-400 px-4 py-1.5 text-center text-sm font-semibold text-amber-950" data-testid="test-banner">
          TEST MODE — this charge runs on {view.chainName}; no real funds move.
        </div>
      )}
      <main className="mx-auto grid max-w-4xl gap-6 px-4 py-8 md:grid-cols-[1fr_22rem] md:py-14">
        <section aria-labelledby="order-heading" className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
          <p className="text-sm text-slate-500">Pay</p>
          <h1 id="order-heading" className="text-xl font-semibold" data-testid="merchant-name">
            {view.merchantName}
          </h1>
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
          <p className="mt-1 text-right text-sm text-slate-500">
            on <span data-testid="chain">{view.chainName}</span>
          </p>
        </section>

        <aside className="flex flex-col gap-4 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
          <div className="flex items-center justify-between">
            <StatusBadge status={view.status} />
            {payable && (
              <span className="text-sm text-slate-500">
                <ExpiryCountdown expiresAt={view.expiresAt} />
              </span>
            )}
          </div>
          {payable ? (
            <p className="text-sm text-slate-600">
              Send exactly <strong className="font-mono">{view.total} {view.token.symbol}</strong> on {view.chainName}.
            </p>
          ) : (
            <p className="text-sm text-slate-600">This charge can no longer be paid.</p>
          )}
          {payable && view.cancelUrl && (
            <a href={view.cancelUrl} className="text-center text-sm text-slate-500 underline underline-offset-4">
              Cancel and return to {view.merchantName}
            </a>
          )}
          <p className="mt-auto text-xs text-slate-400">Charge {view.id}</p>
        </aside>
      </main>
    </div>
  );
}
