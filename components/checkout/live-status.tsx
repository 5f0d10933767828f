'use client';

import { useEffect } from 'react';
import { checkoutMessage } from '@/lib/charges/checkout-popup';
import { useLiveCheckout } from './checkout-live';
import { Amount } from '@/components/ui/amount';
import { StatusBadge } from './status-badge';

/** Long enough to read "Paid" before the window goes. */
const CLOSE_POPUP_MS = 1500;

/** Final statuses this popup has posted, kept across remounts and reloads of the page. */
const reportedInThisPage = new Set<string>();

function reportKey(chargeId: string, status: string): string {
  return `chargeport:reported:${chargeId}:${status}`;
}

function wasReported(chargeId: string, status: string): boolean {
  const key = reportKey(chargeId, status);
  if (reportedInThisPage.has(key)) return true;
  try {
    return window.sessionStorage.getItem(key) === '1';
  } catch {
    return false; // storage blocked: the in-page set still holds for remounts
  }
}

function markReported(chargeId: string, status: string): void {
  const key = reportKey(chargeId, status);
  reportedInThisPage.add(key);
  try {
    window.sessionStorage.setItem(key, '1');
  } catch {
    // storage blocked or full: the in-page set is enough within this page
  }
}

/**
 * The charge's live status (from <CheckoutLive>): status, amount due, confirmations, a payment in
 * flight; then on to successUrl. As the SDK's popup (`popupOrigin` set), it reports the final status to
 * the opener and closes instead.
 */
export function LiveStatus({ popupOrigin }: { popupOrigin?: string }) {
  const { status } = useLiveCheckout();

  useEffect(() => {
    const message = popupOrigin ? checkoutMessage(status.chargeId, status.status) : undefined;
    const opener = typeof window === 'undefined' ? null : (window.opener as Window | null);
    if (!message || !opener) return;
    // The final status is reported once: the page can remount after its Cancel action or a refresh,
    // and the opener must not hear "canceled" twice.
    if (!wasReported(message.chargeId, message.status)) {
      // targetOrigin: only the page that opened this popup (and said so in the URL) may read it.
      opener.postMessage(message, popupOrigin!);
      markReported(message.chargeId, message.status);
    }
    const timer = setTimeout(() => window.close(), CLOSE_POPUP_MS);
    return () => clearTimeout(timer);
  }, [popupOrigin, status.chargeId, status.status]);

  useEffect(() => {
    if (popupOrigin || status.status !== 'succeeded' || !status.successUrl) return;
    const target = new URL(status.successUrl);
    target.searchParams.set('chargeId', status.chargeId);
    const timer = setTimeout(() => window.location.assign(target.href), 1500);
    return () => clearTimeout(timer);
  }, [popupOrigin, status]);

  return (
    <div
      className="flex min-w-0 flex-1 flex-col items-start gap-2"
      aria-live="polite"
      data-testid="live-status"
      data-status={status.status}
    >
      <StatusBadge status={status.status} />
      {status.status === 'processing' && status.due !== '0' && (
        <p className="text-sm text-slate-700" data-testid="amount-due">
          Received <Amount value={status.received} symbol={status.symbol} />; still due{' '}
          <strong>
            <Amount value={status.due} symbol={status.symbol} />
          </strong>
          .
        </p>
      )}
      {status.inFlight && (
        <p role="status" className="text-sm text-slate-700" data-testid="payment-in-flight">
          {status.inFlight.message}
          {status.inFlight.resumeUrl && (
            <>
              {' '}
              <a
                href={status.inFlight.resumeUrl}
                target="_blank"
                rel="noopener"
                className="font-semibold text-brand-600 underline underline-offset-4"
              >
                Open it
              </a>
            </>
          )}
        </p>
      )}
      {status.payments
        .filter((p) => !p.isLate)
        .map((payment) => (
          <p key={payment.txHash} className="text-xs text-slate-600">
            <Amount value={payment.amount} symbol={status.symbol} /> ·{' '}
            {payment.status === 'dropped'
              ? 'removed from the chain, waiting'
              : `${Math.min(payment.confirmations, payment.required)}/${payment.required} confirmations`}
            {payment.explorerUrl && (
              <>
                {' · '}
                <a href={payment.explorerUrl} target="_blank" rel="noreferrer" className="underline" data-testid="view-transaction">
                  View transaction
                </a>
              </>
            )}
          </p>
        ))}
      {status.status === 'succeeded' && (
        <p className="text-sm font-medium text-emerald-800">
          {popupOrigin
            ? 'Paid. This window closes by itself.'
            : status.successUrl
              ? 'Paid. Taking you back…'
              : 'Paid. You can close this page.'}
        </p>
      )}
      {(status.status === 'expired' || status.status === 'canceled' || status.status === 'failed') && (
        <p className="text-sm text-slate-600" data-testid="not-payable">
          This charge can no longer be paid.
        </p>
      )}
    </div>
  );
}
