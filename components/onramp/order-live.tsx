'use client';

import { Amount } from '@/components/ui/amount';
import { FIAT_METHOD_LABELS } from '@/lib/onramp/fiat-methods';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import type { OnrampOrderStatusName } from '@/lib/onramp/orders/state';
import type { FiatMethod } from '@/lib/onramp/fiat-methods';
import type { OnrampOrderView } from '@/lib/onramp/orders/get-order';
import { formatFiat } from '@/lib/format-amount';
import { shortAddress } from './format';

const POLL_MS = 2500;
const TERMINAL: readonly OnrampOrderStatusName[] = ['completed', 'failed', 'expired'];

const STATUS_LABELS: Record<OnrampOrderStatusName, { label: string; className: string }> = {
  created: { label: 'Waiting for payment', className: 'bg-amber-100 text-amber-800' },
  pending: { label: 'Tokens on the way', className: 'bg-sky-100 text-sky-800' },
  completed: { label: 'Completed', className: 'bg-emerald-100 text-emerald-800' },
  failed: { label: 'Failed', className: 'bg-rose-100 text-rose-800' },
  expired: { label: 'Expired', className: 'bg-slate-200 text-slate-700' },
};

const TIMELINE_LABELS: Record<OnrampOrderStatusName, string> = {
  created: 'Order placed',
  pending: 'Payment received',
  completed: 'Tokens delivered',
  failed: 'Failed',
  expired: 'Expired',
};

/** Same text on the server and in every browser time zone (no hydration mismatch). */
function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

function methodLabel(method: string): string {
  return FIAT_METHOD_LABELS[method as FiatMethod] ?? method;
}

/**
 * The order page's live part: polls the order until it ends (completed, failed, expired) and says
 * what happens next in each state.
 */
export function OrderLive({
  initial,
  signedIn,
  retryHref,
  embed,
  popupBlocked,
}: {
  initial: OnrampOrderView;
  signedIn: boolean;
  /** The on-ramp again with the order's chain, token and wallet. */
  retryHref: string;
  /** The provider's screen belongs in this page (checkoutKind `embed`). */
  embed: boolean;
  /** The browser refused the new tab: the link below is the way on. */
  popupBlocked: boolean;
}) {
  const [order, setOrder] = useState(initial);
  const isFinal = TERMINAL.includes(order.status);

  useEffect(() => {
    if (isFinal) return;
    let stopped = false;
    const timer = setInterval(async () => {
      const response = await fetch(`/api/onramp/orders/${encodeURIComponent(initial.id)}`, { cache: 'no-store' }).catch(() => null);
      const body = response?.ok ? ((await response.json()) as { data: OnrampOrderView }) : null;
      if (!stopped && body?.data) setOrder(body.data);
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [isFinal, initial.id]);

  const style = STATUS_LABELS[order.status];

  return (
    <div className="flex flex-col gap-5">
      <section
        aria-live="polite"
        className="flex flex-col gap-3 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200"
        data-testid="order-status"
        data-status={order.status}
      >
        <span className={`self-start rounded-full px-3 py-1 text-sm font-medium ${style.className}`}>{style.label}</span>
        {order.status === 'created' && (
          <>
            <p className="text-lg font-semibold">Waiting for payment at {order.providerName}</p>
            {popupBlocked && (
              <p className="text-sm text-slate-700">
                Your browser did not open {order.providerName}&rsquo;s payment screen in a new tab. Continue with the link below.
              </p>
            )}
            {order.checkoutUrl && embed && (
              <iframe
                src={order.checkoutUrl}
                title={`${order.providerName} payment screen`}
                className="h-[640px] w-full rounded-lg ring-1 ring-slate-200"
                allow="payment; camera; clipboard-write"
                referrerPolicy="no-referrer"
              />
            )}
            {order.checkoutUrl && (
              <a
                href={order.checkoutUrl}
                target="_blank"
                rel="noopener noreferrer"
                className="self-start text-sm font-semibold text-brand-600 underline underline-offset-4"
                data-testid="provider-link"
              >
                Open {order.providerName}&rsquo;s payment screen
              </a>
            )}
          </>
        )}
        {order.status === 'pending' && (
          <p className="text-lg font-semibold">
            Payment received, tokens on the way: <Amount value={order.cryptoAmount} symbol={order.tokenSymbol} /> to{' '}
            {shortAddress(order.walletAddress)}.
          </p>
        )}
        {order.status === 'completed' && (
          <>
            <p className="text-lg font-semibold" data-testid="order-arrived">
              <Amount value={order.deliveredAmount ?? order.cryptoAmount} symbol={order.tokenSymbol} /> arrived on {order.chainName}.
            </p>
            {order.deliveryTxHash &&
              (order.explorerUrl ? (
                <a
                  href={order.explorerUrl}
                  target="_blank"
                  rel="noopener noreferrer"
                  className="self-start text-sm font-semibold text-brand-600 underline underline-offset-4"
                  data-testid="explorer-link"
                >
                  View the transaction
                </a>
              ) : (
                <p className="font-mono text-xs break-all text-slate-600" data-testid="delivery-tx">
                  Transaction {order.deliveryTxHash}
                </p>
              ))}
            {signedIn && (
              <p className="flex gap-4 text-sm">
                <Link href="/wallet" className="font-semibold text-brand-600 underline underline-offset-4">
                  Wallet home
                </Link>
                <Link href="/wallet/activity" className="font-semibold text-brand-600 underline underline-offset-4">
                  Activity
                </Link>
              </p>
            )}
          </>
        )}
        {order.status === 'failed' && (
          <>
            <p className="text-lg font-semibold">The purchase did not go through.</p>
            <p className="text-sm text-slate-700" data-testid="failure-reason">
              {order.failureReason ?? `${order.providerName} did not complete the payment.`} No tokens were sent.
            </p>
            <Link href={retryHref} className="self-start text-sm font-semibold text-brand-600 underline underline-offset-4">
              Try again
            </Link>
          </>
        )}
        {order.status === 'expired' && (
          <>
            <p className="text-lg font-semibold">This order expired: the payment was not started at {order.providerName} in time.</p>
            <Link href={retryHref} className="self-start text-sm font-semibold text-brand-600 underline underline-offset-4">
              Start a new order
            </Link>
          </>
        )}
      </section>

      <section aria-labelledby="order-bought" className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <h2 id="order-bought" className="text-sm font-semibold">
          Your order
        </h2>
        {order.raisedToMinimum && (
          <p className="mt-3 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-950 ring-1 ring-amber-200" data-testid="raised-to-minimum">
            You asked for <Amount value={order.requestedAmount} symbol={order.tokenSymbol} />; {order.providerName}&rsquo;s minimum purchase
            made this order <Amount value={order.cryptoAmount} symbol={order.tokenSymbol} />.
          </p>
        )}
        <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
          <dt className="text-slate-600">Buying</dt>
          <dd className="text-right font-mono">
            <Amount value={order.cryptoAmount} symbol={order.tokenSymbol} testId="order-amount" />
          </dd>
          <dt className="text-slate-600">Chain</dt>
          <dd className="text-right">{order.chainName}</dd>
          <dt className="text-slate-600">Deliver to</dt>
          <dd className="min-w-0 text-right">
            {order.walletLabel && <span className="block truncate font-medium">{order.walletLabel}</span>}
            <span className="font-mono text-xs break-all text-slate-600">{order.walletAddress}</span>
          </dd>
          <dt className="text-slate-600">Paid with</dt>
          <dd className="text-right">
            {methodLabel(order.paymentMethod)} at {order.providerName}
          </dd>
          <dt className="text-slate-600">Total</dt>
          <dd className="text-right font-mono tabular-nums" data-testid="order-total">
            {formatFiat(order.fiatTotal, order.fiatCurrency)}
          </dd>
        </dl>
      </section>

      <section aria-labelledby="order-timeline" className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <h2 id="order-timeline" className="text-sm font-semibold">
          Timeline
        </h2>
        <ol className="mt-3 flex flex-col gap-2 text-sm" data-testid="order-timeline">
          {order.timeline.map((entry, index) => (
            <li key={index} className="flex flex-wrap justify-between gap-x-4">
              <span>{TIMELINE_LABELS[entry.toStatus as OnrampOrderStatusName] ?? entry.toStatus}</span>
              <time dateTime={entry.at} className="font-mono text-xs text-slate-500">
                {formatTime(entry.at)}
              </time>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
