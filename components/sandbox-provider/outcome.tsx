'use client';

import { useEffect, useState } from 'react';
import { Panel } from './brand';

const REDIRECT_SECONDS = 5;

export function ReturnLink({ redirectUrl }: { redirectUrl: string }) {
  return (
    <a
      href={redirectUrl}
      className="inline-flex min-h-11 items-center justify-center rounded-xl bg-teal-700 px-4 text-sm font-semibold text-white hover:bg-teal-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-700"
    >
      Return to merchant
    </a>
  );
}

/** After a payment: the promise of delivery, and back to the merchant after a few seconds. */
export function PaymentReceived({
  redirectUrl,
  autoRedirect,
  delivered = false,
}: {
  redirectUrl: string;
  autoRedirect: boolean;
  delivered?: boolean;
}) {
  const [secondsLeft, setSecondsLeft] = useState(REDIRECT_SECONDS);
  useEffect(() => {
    if (!autoRedirect) return;
    if (secondsLeft <= 0) {
      window.location.assign(redirectUrl);
      return;
    }
    const timer = setTimeout(() => setSecondsLeft((s) => s - 1), 1000);
    return () => clearTimeout(timer);
  }, [autoRedirect, redirectUrl, secondsLeft]);
  return (
    <Panel className="flex flex-col gap-3">
      <p role="status" className="text-lg font-semibold text-teal-800" data-testid="sandbox-outcome" data-outcome="paid">
        {delivered ? 'Payment received, your tokens were delivered' : 'Payment received, your tokens are on the way'}
      </p>
      {!delivered && <p className="text-sm text-stone-600">They arrive in your wallet as soon as the network confirms the transfer.</p>}
      <ReturnLink redirectUrl={redirectUrl} />
      {autoRedirect && <p className="text-xs text-stone-500">Returning you to the merchant in {secondsLeft} s…</p>}
    </Panel>
  );
}

export function PaymentFailed({ message, redirectUrl }: { message: string; redirectUrl: string }) {
  return (
    <Panel className="flex flex-col gap-3">
      <p role="alert" className="text-lg font-semibold text-rose-700" data-testid="sandbox-outcome" data-outcome="failed">
        Payment failed
      </p>
      <p className="text-sm text-stone-700">{message}</p>
      <p className="text-sm text-stone-600">Go back to the merchant to try again.</p>
      <ReturnLink redirectUrl={redirectUrl} />
    </Panel>
  );
}
