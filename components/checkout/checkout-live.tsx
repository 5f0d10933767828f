'use client';

import { useRouter } from 'next/navigation';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import type { CheckoutStatus } from '@/lib/payments/checkout-status';

const POLL_MS = 2000;
const FINAL_STATUSES = ['succeeded', 'failed', 'expired', 'canceled'];

interface LiveCheckout {
  status: CheckoutStatus;
  /** The server-rendered ways to pay still match the charge: show them. */
  showPaymentOptions: boolean;
}

const LiveCheckoutContext = createContext<LiveCheckout | null>(null);

/**
 * Follows the charge for the whole checkout: polls its status, and decides whether the ways to pay the
 * server rendered may still be shown. They are hidden at once when the charge stops being payable
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
    const timer = setInterval(async () => {
      const response = await fetch(`/api/checkout/${initial.chargeId}/status`, { cache: 'no-store' }).catch(() => null);
      const body = response?.ok ? ((await response.json()) as { data: CheckoutStatus }) : null;
      if (!stopped && body?.data) setStatus(body.data);
    }, POLL_MS);
    return () => {
      stopped = true;
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
