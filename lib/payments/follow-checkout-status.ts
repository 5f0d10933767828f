/**
 * Pushes a charge's checkout status to the open checkouts that follow it (the events stream,
 * ./checkout-event-stream.ts). One LISTEN connection per server process, on channel `checkout_status`,
 * which triggers notify with the charge id whenever what the checkout shows changes (migration
 * checkout_status_notify); a notification reloads the charge's status once, however many streams follow
 * it, and each follower gets it if it differs from the last one sent. Also reloaded: when LISTEN
 * (re)starts (notifications sent while disconnected are lost), every few seconds while a payment is
 * pending (its confirmations come from the chain, not the database), and every 15 s otherwise.
 */
import { listenForNotifications, type NotificationListener } from '@/lib/db/client';
import { log } from '@/lib/log';
import { loadCheckoutStatus, type CheckoutStatus } from './checkout-status';

type StatusListener = (status: CheckoutStatus) => void;

interface Followed {
  /** Each listener with the last status it got, as JSON: listeners get only changes. */
  listeners: Map<StatusListener, string>;
  loading: boolean;
  again: boolean;
  timer?: NodeJS.Timeout;
}

const PENDING_PAYMENT_REFRESH_MS = 3_000;
const IDLE_REFRESH_MS = 15_000;

const globalForCheckout = globalThis as unknown as {
  __chargeportCheckoutFollowers?: { followed: Map<string, Followed>; listener?: NotificationListener };
};

function hub() {
  globalForCheckout.__chargeportCheckoutFollowers ??= { followed: new Map() };
  const state = globalForCheckout.__chargeportCheckoutFollowers;
  // closeDb() ends the listener (tests, shutdown): the next follower starts a new one.
  if (!state.listener || state.listener.closed) {
    state.listener = listenForNotifications('checkout_status', {
      onNotification: (chargeId) => void refresh(chargeId),
      onListening: () => {
        for (const chargeId of state.followed.keys()) void refresh(chargeId);
      },
      onLost: () => log.warn('checkout status notifications lost; reloading when listening again'),
    });
  }
  return state;
}

/**
 * Calls `listener` with the charge's status now (from `initial` when given) and on every change
 * until the returned function is called.
 */
export function followCheckoutStatus(chargeId: string, listener: StatusListener, initial?: CheckoutStatus): () => void {
  const { followed } = hub();
  let entry = followed.get(chargeId);
  if (!entry) {
    entry = { listeners: new Map(), loading: false, again: false };
    followed.set(chargeId, entry);
  }
  if (initial) {
    entry.listeners.set(listener, JSON.stringify(initial));
    listener(initial);
    if (!entry.timer) scheduleRefresh(chargeId, entry, initial);
  } else {
    entry.listeners.set(listener, '');
    void refresh(chargeId);
  }
  return () => {
    entry.listeners.delete(listener);
    if (entry.listeners.size || followed.get(chargeId) !== entry) return;
    clearTimeout(entry.timer);
    followed.delete(chargeId);
  };
}

/** Reloads the charge's status once (a reload asked for during one runs once after it) and pushes a change. */
async function refresh(chargeId: string): Promise<void> {
  const entry = globalForCheckout.__chargeportCheckoutFollowers?.followed.get(chargeId);
  if (!entry) return;
  if (entry.loading) {
    entry.again = true;
    return;
  }
  entry.loading = true;
  try {
    do {
      entry.again = false;
      const status = await loadCheckoutStatus(chargeId).catch((error: unknown) => {
        log.error('checkout status reload failed', { chargeId, error });
        return undefined;
      });
      if (!status) continue;
      const json = JSON.stringify(status);
      for (const [listener, sent] of entry.listeners) {
        if (sent === json) continue;
        entry.listeners.set(listener, json);
        listener(status);
      }
      scheduleRefresh(chargeId, entry, status);
    } while (entry.again);
  } finally {
    entry.loading = false;
  }
}

function scheduleRefresh(chargeId: string, entry: Followed, status: CheckoutStatus): void {
  clearTimeout(entry.timer);
  const pending = status.payments.some((payment) => payment.status === 'pending');
  entry.timer = setTimeout(() => void refresh(chargeId), pending ? PENDING_PAYMENT_REFRESH_MS : IDLE_REFRESH_MS);
  entry.timer.unref();
}
