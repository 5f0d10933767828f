/**
 * The hosted checkout as the web SDK's popup (`pay()` in sdk/src/pay.ts): opened on
 * `/checkout/{id}?mode=popup&origin={merchant origin}`, it reports the charge's final status to its
 * opener with postMessage (targetOrigin = that origin) and closes, instead of redirecting.
 *
 * Trusting `origin` from the query is safe: the message tells the opener only the charge's status,
 * which anyone holding the charge id can already read (GET /api/checkout/{id}/status), and
 * targetOrigin makes the browser deliver it to that origin or nowhere. The SDK side checks the
 * sender (sdk/src/checkout-message.ts); sdk/test/checkout-message.test.ts keeps both in step.
 */
import { chargeMachine, type ChargeStatus } from './state';

export const CHECKOUT_MESSAGE_TYPE = 'chargeport:checkout';

/** What the popup posts to its opener. */
export interface CheckoutMessage {
  type: typeof CHECKOUT_MESSAGE_TYPE;
  chargeId: string;
  status: ChargeStatus;
}

/**
 * The opener's origin when the checkout runs as a popup: `mode` is `popup` and `origin` is exactly an
 * http(s) origin (scheme, host, port; no path). Anything else means a normal checkout page.
 */
export function checkoutPopupOrigin(mode: unknown, origin: unknown): string | undefined {
  if (mode !== 'popup' || typeof origin !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return url.origin === origin ? origin : undefined;
}

/** The checkout's own path, keeping popup mode (sign-in's callbackUrl, the Cancel action's way back). */
export function checkoutPath(chargeId: string, popupOrigin?: string): string {
  const path = `/checkout/${encodeURIComponent(chargeId)}`;
  return popupOrigin ? `${path}?${new URLSearchParams({ mode: 'popup', origin: popupOrigin })}` : path;
}

/** The message for the opener once the charge is final; undefined while it can still change. */
export function checkoutMessage(chargeId: string, status: ChargeStatus): CheckoutMessage | undefined {
  return chargeMachine.isTerminal(status) ? { type: CHECKOUT_MESSAGE_TYPE, chargeId, status } : undefined;
}
