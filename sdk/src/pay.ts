/**
 * `pay()`: the buyer pays a charge without the merchant's page going anywhere. The hosted checkout
 * opens in a centred popup window while an overlay dims the page; the checkout reports the final
 * status back with `postMessage` and closes, and `pay()` resolves with it.
 *
 * Why a popup and not an iframe: the checkout's session cookies are `__Host-` and SameSite=Lax, so
 * sign-in and the PIN would not work inside a frame on another site, and a framed PIN page invites
 * clickjacking. A popup is a first-party window of Chargeport.
 *
 * The session logic (`runPaySession`) takes its browser parts as a {@link PayEnvironment}, so it is
 * unit-tested without a DOM; `pay()` wires in the real window.
 */
import {
  checkoutMessageFrom,
  isFinalCheckoutStatus,
  popupCheckoutUrl,
  resolveCheckout,
  type CheckoutRef,
  type FinalCheckoutStatus,
  type MessageEventLike,
  type ResolvedCheckout,
} from './checkout-message.ts';
import { ChargeportError } from './errors.ts';
import { showOverlay } from './overlay.ts';

/**
 * How a `pay()` ended. `dismissed`: the buyer closed the window (or chose "Cancel payment") before
 * the charge reached a final status; the charge may still be pending, or paid and confirming.
 */
export type PayStatus = FinalCheckoutStatus | 'dismissed';

export interface PayResult {
  chargeId: string;
  status: PayStatus;
}

/**
 * What to pay: a charge id, a `paymentUrl`, `createCharge`'s result — or a promise of one of them,
 * so that the window opens at once in the click handler (browsers block popups opened after an
 * `await`) while the charge is still being created.
 */
export type PayTarget = CheckoutRef | PromiseLike<CheckoutRef>;

export interface PayOptions {
  /** Origin of Chargeport, e.g. `https://pay.example.com`; needed for a bare charge id. */
  baseUrl?: string;
  /**
   * Reads the charge's status when the buyer dismissed the window, so that a charge that did reach
   * a final status (say, paid just before closing) is reported as such. Failures are ignored. The
   * client's `pay()` sets it to its `getCharge`.
   */
  lookupStatus?: (chargeId: string) => Promise<string>;
}

/** A window `pay()` opened: only what it uses. */
interface PopupLike {
  readonly closed: boolean;
  close(): void;
  focus(): void;
  location: { replace(url: string): void };
}

/** The browser as `runPaySession` sees it. */
export interface PayEnvironment {
  /** Origin of the merchant's page: the checkout posts its outcome to this origin only. */
  openerOrigin: string;
  /** Opens the popup on `url`, or on a "loading" page when the charge is not known yet; null when blocked. */
  openPopup(url: string | undefined): PopupLike | null;
  /** Subscribes to the page's `message` events; returns the unsubscribe. */
  onMessage(listener: (event: MessageEventLike) => void): () => void;
  /** Shows the overlay; returns its removal. */
  showOverlay(actions: { onShowWindow(): void; onCancel(): void }): () => void;
  /** Calls `tick` every `ms` milliseconds; returns the stop. */
  every(ms: number, tick: () => void): () => void;
}

/** How often `pay()` checks whether the buyer closed the popup. */
const POPUP_POLL_MS = 400;

/**
 * One payment: opens the popup (synchronously, so call it from the click handler), shows the overlay,
 * waits for the checkout's message, a closed window or "Cancel payment", and cleans up after itself.
 */
export async function runPaySession(target: PayTarget, env: PayEnvironment, options: PayOptions = {}): Promise<PayResult> {
  const pending = isPromiseLike(target) ? target : undefined;
  let checkout: ResolvedCheckout | undefined = pending ? undefined : resolveCheckout(target as CheckoutRef, options.baseUrl);

  const popup = env.openPopup(checkout ? popupCheckoutUrl(checkout, env.openerOrigin) : undefined);
  if (!popup) {
    // The caller may still want the charge (e.g. to redirect instead): do not leave its failure unhandled here.
    if (pending) Promise.resolve(pending).then(undefined, () => {});
    throw new ChargeportError({
      status: 0,
      code: 'popup_blocked',
      message:
        'The browser blocked the payment window. Call pay() directly in a click handler, or send the buyer to the paymentUrl (redirectToCheckout).',
    });
  }

  let settle!: (status: PayStatus) => void;
  const outcome = new Promise<PayStatus>((resolve) => (settle = resolve));
  const stopListening = env.onMessage((event) => {
    const status = checkout && checkoutMessageFrom(event, { checkoutOrigin: checkout.url.origin, popup, chargeId: checkout.chargeId });
    if (status) settle(status);
  });
  const hideOverlay = env.showOverlay({
    onShowWindow: () => popup.focus(),
    onCancel: () => {
      popup.close();
      hideOverlay();
      settle('dismissed');
    },
  });
  // A closed window is taken as dismissed one tick late: the checkout posts its message just before
  // it closes itself, and that message must win.
  let closedTicks = 0;
  const stopPolling = env.every(POPUP_POLL_MS, () => {
    if (!popup.closed || ++closedTicks < 2) return;
    hideOverlay();
    settle('dismissed');
  });

  try {
    if (!checkout) {
      try {
        checkout = resolveCheckout(await pending!, options.baseUrl);
      } catch (error) {
        popup.close();
        throw error;
      }
      if (!popup.closed) popup.location.replace(popupCheckoutUrl(checkout, env.openerOrigin));
    }
    let status = await outcome;
    if (status === 'dismissed' && options.lookupStatus) {
      const current = await options.lookupStatus(checkout.chargeId).catch(() => undefined);
      if (isFinalCheckoutStatus(current)) status = current;
    }
    return { chargeId: checkout.chargeId, status };
  } finally {
    stopPolling();
    stopListening();
    hideOverlay();
  }
}

/** Popup size: the checkout's one-column layout. */
const POPUP_WIDTH = 480;
const POPUP_HEIGHT = 760;
const POPUP_NAME = 'chargeport-checkout';
let activePayment = false;

/**
 * Opens the checkout of a charge in a popup over this page and resolves when the buyer is done:
 * `{ chargeId, status }` with status `succeeded`, `canceled`, `expired`, `failed` or `dismissed`.
 * Call it directly in a click handler. The result is what the buyer's window said: before you
 * deliver, confirm on your server (webhook, or `getCharge` with your secret key).
 *
 * @throws {ChargeportError} `popup_blocked` when the browser refused the window (fall back to
 *   `redirectToCheckout(paymentUrl)`), `payment_in_progress` while another `pay()` is open.
 * @throws {TypeError} outside a browser, or for something that is not a charge id or checkout URL.
 */
export async function pay(target: PayTarget, options: PayOptions = {}): Promise<PayResult> {
  if (typeof window === 'undefined' || typeof document === 'undefined') throw new TypeError('pay() only works in a browser');
  if (activePayment) {
    throw new ChargeportError({
      status: 0,
      code: 'payment_in_progress',
      message: 'A payment window is already open: wait for its pay() to settle.',
    });
  }
  activePayment = true;
  try {
    return await runPaySession(target, browserEnvironment(window), options);
  } finally {
    activePayment = false;
  }
}

function browserEnvironment(win: Window): PayEnvironment {
  return {
    openerOrigin: win.location.origin,
    openPopup: (url) => {
      const popup = win.open(url ?? '', POPUP_NAME, popupFeatures(win));
      if (popup && url === undefined) showLoading(popup);
      return popup;
    },
    onMessage: (listener) => {
      win.addEventListener('message', listener);
      return () => win.removeEventListener('message', listener);
    },
    showOverlay: (actions) => showOverlay(win.document, actions),
    every: (ms, tick) => {
      const timer = win.setInterval(tick, ms);
      return () => win.clearInterval(timer);
    },
  };
}

/** Centred over the merchant's window. `popup` asks for a minimal window rather than a tab. */
function popupFeatures(win: Window): string {
  const width = Math.min(POPUP_WIDTH, win.screen.availWidth);
  const height = Math.min(POPUP_HEIGHT, win.screen.availHeight);
  const left = Math.max(0, Math.round(win.screenX + (win.outerWidth - width) / 2));
  const top = Math.max(0, Math.round(win.screenY + (win.outerHeight - height) / 2));
  return `popup=yes,width=${width},height=${height},left=${left},top=${top}`;
}

/** The blank popup is still same-origin with the page: say what is coming while the charge is created. */
function showLoading(popup: Window): void {
  try {
    popup.document.title = 'Chargeport';
    popup.document.body.style.cssText =
      'font-family:system-ui,sans-serif;color:#475569;display:grid;place-items:center;min-height:90vh;margin:0';
    popup.document.body.textContent = 'Opening the Chargeport checkout…';
  } catch {
    // Not reachable (another browser policy): the empty window is fine too.
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<CheckoutRef> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
