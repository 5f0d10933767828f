'use client';

import { useRouter } from 'next/navigation';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import type { CheckoutStatus } from '@/lib/payments/checkout-status';

/** Only when the status cannot be streamed (see below). */
const POLL_MS = 2000;
const STREAM_SILENCE_MS = 5000;
const FINAL_STATUSES = ['succeeded', 'failed', 'expired', 'canceled'];

interface LiveCheckout {
  status: CheckoutStatus;
  /** The server-rendered ways to pay still match the charge: show them. */
  showPaymentOptions: boolean;
}

const LiveCheckoutContext = createContext<LiveCheckout | null>(null);

/**
 * Follows the charge for the whole checkout: hears its status pushed (server-sent events, polling as the
 * fallback), and decides whether the ways to pay the server rendered may still be shown. They are hidden at once when the charge stops being payable
 * (paid, canceled, expired — by the server's word or by the clock at expiresAt — or a payment is in
 * flight), and when the amount due changed since they were rendered (a part payment arrived): their
 * address text, QR code and wallet links would ask for the old amount. Either way the page is then
 * re-rendered (router.refresh) for the current state, so options come back only for what is due now.
 */
export function CheckoutLive({
  initial,
  rendered,
  children,
}: {
  initial: CheckoutStatus;
  /** What the server rendered the payment options for. */
  rendered: { payable: boolean; due: string };
  children: ReactNode;
}) {
  const router = useRouter();
  const [polled, setStatus] = useState(initial);
  const [isPastExpiry, setPastExpiry] = useState(false);
  const isFinal = FINAL_STATUSES.includes(polled.status);

  useEffect(() => {
    if (isFinal) return;
    let stopped = false;
    let timer: ReturnType<typeof setInterval> | undefined;
    const update = (next: CheckoutStatus) => {
      if (!stopped) setStatus(next);
    };
    const poll = () => {
      if (stopped || timer) return;
      timer = setInterval(async () => {
        const response = await fetch(`/api/checkout/${initial.chargeId}/status`, { cache: 'no-store' }).catch(() => null);
        const body = response?.ok ? ((await response.json()) as { data: CheckoutStatus }) : null;
        if (body?.data) update(body.data);
      }, POLL_MS);
    };
    // Pushed by the server (GET …/events); polling when the browser, a proxy or the server will not stream.
    const source = typeof EventSource === 'undefined' ? null : new EventSource(`/api/checkout/${initial.chargeId}/events`);
    let heard = false;
    const giveUp = () => {
      source?.close();
      poll();
    };
    // The stream sends the status on connect: silence means something between buffers it.
    const watchdog = source ? setTimeout(() => heard || giveUp(), STREAM_SILENCE_MS) : undefined;
    if (source) {
      source.onmessage = (event: MessageEvent<string>) => {
        heard = true;
        const next = JSON.parse(event.data) as CheckoutStatus;
        update(next);
        if (FINAL_STATUSES.includes(next.status)) source.close();
      };
      // Refused (rate_limited, an old server): closed for good. A dropped stream reconnects by itself.
      source.onerror = () => {
        if (source.readyState === EventSource.CLOSED) giveUp();
      };
    } else {
      poll();
    }
    return () => {
      stopped = true;
      source?.close();
      clearTimeout(watchdog);
      clearInterval(timer);
    };
  }, [isFinal, initial.chargeId]);

  // At expiresAt nothing more may be sent, whatever the next poll says (the expiry job may be seconds behind).
  useEffect(() => {
    const left = Math.max(0, Date.parse(polled.expiresAt) - Date.now());
    const timer = setTimeout(() => setPastExpiry(true), Math.min(left, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [polled.expiresAt]);

  const status = isPastExpiry && polled.payable ? { ...polled, payable: false } : polled;
  const isStale = rendered.payable !== status.payable || (status.payable && rendered.due !== status.due);
  useEffect(() => {
    if (isStale) router.refresh();
  }, [isStale, status.payable, status.due, router]);

  return (
    <LiveCheckoutContext.Provider value={{ status, showPaymentOptions: status.payable && !isStale }}>
      {children}
    </LiveCheckoutContext.Provider>
  );
}

export function useLiveCheckout(): LiveCheckout {
  const live = useContext(LiveCheckoutContext);
  if (!live) throw new Error('useLiveCheckout needs a <CheckoutLive> around it');
  return live;
}

/** Renders its children (a way to pay, the countdown) only while the charge may be paid as they were rendered. */
export function WhilePayable({ children }: { children: ReactNode }) {
  return useLiveCheckout().showPaymentOptions ? <>{children}</> : null;
}
